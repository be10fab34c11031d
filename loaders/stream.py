"""A vault load as a stream: what is known before any page is parsed, then the parsed pages in
chunks. The writer writes one chunk while the workers parse the next, so an ingest holds one or
two chunks of records at a time instead of the whole vault's, and parsing overlaps writing."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from loaders.records import PageFacts, PageStamp, Problem, VaultSnapshot

if TYPE_CHECKING:
    from loaders.log_segments import LogState
    from loaders.scan import VaultScan


@dataclass(frozen=True)
class WrittenLog:
    """What the graph holds of the log once a load that parsed it is written: what
    `loaders.vault.LogHistory` would read back, so a long-lived process that wrote it need
    not (101k entries' lines, prints and signatures at 100k pages: 0.4 s per logged edit)."""

    page: str
    state: LogState
    signatures: dict[str, str]


C = TypeVar("C")


@dataclass
class VaultStream(Generic[C]):
    """Everything but `chunks` is known up front; `problems` grows while `chunks` is read
    (parse problems are found as pages are parsed), so read it after the last chunk. A chunk
    holds each page's facts, or what a function of them run beside the parse made of them
    (`loaders.vault.stream_vault`'s `then`)."""

    root: str
    todo: tuple[str, ...]  # keys of the pages `chunks` yields, in order
    unchanged: tuple[str, ...]
    deleted: tuple[str, ...]
    stamps: tuple[PageStamp, ...]
    problems: list[Problem]
    chunks: Generator[list[C], None, None]
    scan: VaultScan | None = None  # what this load saw, for the next (see `LoadOptions.scan`)
    log: str | None = None  # key of the log page, when `chunks` yields it
    log_moves: bool = False  # the log's unchanged entries are not in `chunks`: move their facts
    written_log: WrittenLog | None = None  # the log as the graph holds it once this is written

    def close(self) -> None:
        """Stop parsing (a writer that failed midway): the workers are let go now, not when
        the garbage collector finds the generator."""
        self.chunks.close()

    def snapshot(self: VaultStream[PageFacts]) -> VaultSnapshot:
        """The whole load in memory (reads every chunk)."""
        facts = tuple(f for chunk in self.chunks for f in chunk)
        return VaultSnapshot(root=self.root, facts=facts, unchanged=self.unchanged,
                             deleted=self.deleted, problems=tuple(self.problems),
                             stamps=self.stamps)
