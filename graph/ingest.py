"""Ingest = load the vault (loaders) + write what changed (writer) + report. The one place that
joins the two layers."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Generator, Iterable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, LiteralString

import neo4j
from pydantic import BaseModel

from graph.connection import translate_errors
from graph.lock import ingest_lock
from graph.schema import ensure_schema
from graph.writer import GraphWriter
from graph.writes import PAGE_HASH_FIELDS
from loaders.files import PreviousPage
from loaders.gc_pause import cyclic_gc_paused, set_aside
from loaders.log_segments import LogState
from loaders.records import PageFacts, Problem
from loaders.scan import VaultScan
from loaders.stream import VaultStream, WrittenLog
from loaders.vault import CHUNK_PAGES, LoadOptions, stream_vault

TOTALS: LiteralString = (
    "CALL () { MATCH (p:Page) WHERE p.path ENDS WITH '.md' RETURN count(p) AS pages } "
    "CALL () { MATCH (:Page)-[r:LINKS_TO]->() RETURN count(r) AS links } "
    "CALL () { MATCH (:Page)-[r:LINKS_TO]->(:Dangling) RETURN count(r) AS dangling } "
    "CALL () { MATCH (e:LogEntry) RETURN count(e) AS log_entries } "
    "CALL () { MATCH (n) RETURN count(n) AS every } "
    "CALL () { MATCH (l:IngestLock) RETURN count(l) AS leases } "
    "CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships } "
    "RETURN pages, links, dangling, log_entries, every - leases AS nodes, relationships")


def _previous(rows: list[list[Any]]) -> dict[str, PreviousPage]:
    """`PAGE_HASHES` rows by page key: what the graph holds of each page and its file's
    stamp."""
    assert PAGE_HASH_FIELDS == ("key", "hash", "names", "kind", "path", "mtime_ns", "size",
                                "title", "aliases")
    return {key: PreviousPage(digest or "", tuple(names or ()), kind or "", path=path or "",
                              mtime_ns=mtime_ns or 0, size=-1 if size is None else size,
                              title=title or "", aliases=tuple(aliases or ()))
            for key, digest, names, kind, path, mtime_ns, size, title, aliases in rows}


@dataclass
class IngestSession:
    """What a long-lived process (`vaultkg watch`, the API's `ingest` mutation) keeps between
    its ingests, so the next one reads neither every page's hash from Neo4j (1 s at 100k
    pages) nor, told which paths changed, the whole vault: the pages as its last ingest left
    the graph, that ingest's scan, and the generation it wrote. Trusted only while the graph's
    generation is still that one (see `graph.lock`): another ingest, finished or crashed
    midway, or a wipe, changes it."""

    generation: str | None = None
    previous: dict[str, PreviousPage] | None = None
    scan: VaultScan | None = None
    log: WrittenLog | None = None  # the log's entries as that ingest left them

    def take(self, generation: str | None) -> tuple[dict[str, PreviousPage] | None,
                                                    VaultScan | None, WrittenLog | None]:
        """What is kept, if the graph is still at its generation; either way the session holds
        nothing until `keep` (an ingest that fails midway leaves it empty)."""
        kept = (self.previous, self.scan, self.log) if generation == self.generation \
            else (None, None, None)
        self.generation, self.previous, self.scan, self.log = None, None, None, None
        return kept

    def keep(self, generation: str, previous: dict[str, PreviousPage],
             scan: VaultScan | None, log: WrittenLog | None) -> None:
        if scan is not None:
            scan.release_texts()
        self.generation, self.previous, self.scan, self.log = generation, previous, scan, log


@dataclass
class _KeptLogHistory:
    """The graph's log entries as the session's last ingest wrote them (`WrittenLog`), instead
    of read back; which pages entries reach is still read from the graph."""

    log: WrittenLog
    graph: GraphWriter

    def entry_signatures(self) -> Mapping[str, str | None]:
        return self.log.signatures

    def entries_reach(self, keys: Collection[str]) -> tuple[set[str], set[str]]:
        return self.graph.entries_reach(keys)

    def log_state(self, page: str) -> LogState | None:
        return self.log.state if page == self.log.page else self.graph.log_state(page)


def _log_after(kept: WrittenLog | None,
               stream: VaultStream[PageFacts]) -> WrittenLog | None:
    """The log's entries as the graph holds them once `stream` is written: as it wrote them,
    or, if it left the log alone, as they were (none, if it deleted the log page)."""
    if stream.written_log is not None:
        return stream.written_log
    return kept if kept is not None and kept.page not in stream.deleted else None


def _noting(chunks: Generator[list[PageFacts], None, None],
            written: dict[str, PreviousPage]) -> Generator[list[PageFacts], None, None]:
    """`chunks`, noting what the graph will hold of each page in them."""
    try:
        for chunk in chunks:
            for f in chunk:
                written[f.page.key] = PreviousPage.of(f.page)
            yield chunk
    finally:
        chunks.close()


def _after(previous: dict[str, PreviousPage], written: dict[str, PreviousPage],
           stream: VaultStream[PageFacts]) -> dict[str, PreviousPage]:
    """`previous` (updated in place) as a read of the graph would give it once `stream` is
    written: the pages written, without the deleted ones, with the stamps recorded."""
    for key in stream.deleted:
        previous.pop(key, None)
    previous.update(written)
    for st in stream.stamps:
        previous[st.key] = replace(previous[st.key], mtime_ns=st.mtime_ns, size=st.size)
    return previous


class IngestReport(BaseModel):
    """What an ingest run did and what the graph now holds."""

    vault: str
    pages: int
    links: int
    dangling: int
    log_entries: int
    nodes: int
    relationships: int
    parsed: int
    unchanged: int
    deleted: int
    nodes_created: int
    nodes_deleted: int
    relationships_created: int
    relationships_deleted: int
    log_lines_moved: int = 0  # lines of log.md whose facts moved (see graph.log_update)
    changed: bool
    elapsed_s: float
    problems: list[str]
    skipped: list[str]


def ingest(driver: neo4j.Driver, database: str, path: Path, *, force: bool = False,
           progress: Callable[[int, int], None] | None = None,
           batch_size: int = 5000, on_wait: Callable[[], None] | None = None,
           chunk_pages: int = CHUNK_PAGES, session: IngestSession | None = None,
           changed: Collection[str] | None = None) -> IngestReport:
    """Bring the graph in line with the vault at `path`, touching only what changed, writing
    `chunk_pages` parsed pages at a time while the next are parsed. Concurrent ingests into one
    database take turns (see `graph.lock`). With a `session` kept from the last ingest, and the
    paths `changed` since (relative to the folder read, e.g. from a file watcher), only those
    are read."""
    started = time.perf_counter()
    ensure_schema(driver, database)
    with ingest_lock(driver, database, on_wait=on_wait) as lease:
        writer = GraphWriter(driver, database, batch_size=batch_size)
        previous, scan, log = session.take(lease.before) if session is not None \
            else (None, None, None)
        with ExitStack() as aside:
            # Paused as in load_vault, but not around the writes: with it there, the 100k full
            # ingest peaked 1 GiB higher (their garbage needs the cyclic collector).
            with cyclic_gc_paused():
                if previous is None:
                    previous = _previous(writer.previous_pages())
                stream = stream_vault(path, LoadOptions(
                    previous=previous, force=force, progress=progress, scan=scan,
                    changed=changed,
                    log_history=writer if log is None else _KeptLogHistory(log, writer)),
                    chunk_pages)
                aside.enter_context(set_aside())  # before the collector resumes: see set_aside
            written: dict[str, PreviousPage] = {}
            if session is not None:
                stream.chunks = _noting(stream.chunks, written)
            try:
                stats = writer.write(stream)
            finally:
                stream.close()
        if session is not None:
            session.keep(lease.owner, _after(previous, written, stream), stream.scan,
                         _log_after(log, stream))
    return IngestReport(
        vault=stream.root, **graph_totals(driver, database), **problem_lines(stream.problems),
        parsed=len(stream.todo),
        unchanged=len(stream.unchanged), deleted=len(stream.deleted),
        nodes_created=stats.nodes_created, nodes_deleted=stats.nodes_deleted,
        relationships_created=stats.relationships_created,
        relationships_deleted=stats.relationships_deleted, log_lines_moved=stats.moved,
        changed=stats.changed,
        elapsed_s=round(time.perf_counter() - started, 3))


def graph_totals(driver: neo4j.Driver, database: str) -> dict[str, int]:
    """What the graph holds, as `IngestReport` counts it (pages, links, nodes, ...)."""
    with translate_errors():
        records, _, _ = driver.execute_query(TOTALS, database_=database, routing_="r")
    return dict(records[0].data())


def problem_lines(problems: Iterable[Problem]) -> dict[str, list[str]]:
    """A load's problems as `IngestReport` lists them: warnings, and pages skipped."""
    problems = list(problems)
    return {"problems": [str(p) for p in problems if not p.skipped],
            "skipped": [str(p) for p in problems if p.skipped]}
