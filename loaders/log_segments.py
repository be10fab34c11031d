"""The log page cut into its entries' segments, each with a print, so that a changed log is
parsed and written only where it changed.

`log.md` is one page, so any edit to it changes the page; and an entry added at the top (as
LLM-maintained vaults do, newest first) moves every line below it. A segment is an entry's
lines, from its heading to the line before the next entry. What a segment's lines yield depends
on its text, its entry, the section it opens in, the name index, and a few things of the whole
log (`context_print`): its print hashes the first three, with lines counted from the segment's
start. A segment whose print, context and names are unchanged yields what it yielded before,
only moved: it is not parsed again, and the writer moves its facts (`graph.log_update`). The
lines before the first entry (the preamble) have no segment: they are always parsed.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from loaders.files import RECORDS_VERSION
from loaders.links import body_lines, mask_code
from loaders.mention_filter import NameScan
from loaders.page_parser import HEADING
from loaders.provenance import EntryIndex
from loaders.records import LogEntry, LogSegment, Page
from loaders.text import fold_name

# How the graph stores the log's facts: a graph written another way is never moved from.
# Bullets and touches located from their entry's line; each entry with its `search_text`.
LOG_FORMAT = "entry-offsets+search-text"


class SegmentIndex:
    """Which of some segments a line belongs to, by the segments' first lines."""

    def __init__(self, segments: Sequence[LogSegment]) -> None:
        self.segments = sorted(segments, key=lambda s: s.start)
        self.starts = [s.start for s in self.segments]

    def of(self, line: int | None) -> LogSegment | None:
        """The segment holding `line`; None outside them and for facts without a line."""
        if line is None:
            return None
        at = bisect_right(self.starts, line) - 1
        if at < 0 or line > self.segments[at].end:
            return None
        return self.segments[at]


def segment_prints(entries: Sequence[LogEntry], lines: Sequence[str],
                   body_start: int) -> tuple[LogSegment, ...]:
    """The segment of each entry of the log whose text is `lines` (the whole file, line 1
    first; the body from `body_start`), with its print."""
    ordered = sorted(entries, key=lambda e: e.line)
    opening = _openings(ordered, lines, body_start)
    out: list[LogSegment] = []
    for i, entry in enumerate(ordered):
        end = ordered[i + 1].line - 1 if i + 1 < len(ordered) else len(lines)
        # Each line and a newline, hashed as one string (the same print as line by line).
        digest = hashlib.blake2b(("\n".join(lines[entry.line - 1:end]) + "\n").encode(),
                                 digest_size=16)
        # Beside its text, what the entry is apart from it: its key and place in the log and
        # the pages its links resolve to (in its signature), and the section it opens in.
        digest.update(repr((entry.signature, entry.seq, opening.get(entry.line))).encode())
        out.append(LogSegment(entry=entry.key, start=entry.line, end=end,
                              print=digest.hexdigest()))
    return tuple(out)


def _openings(ordered: Sequence[LogEntry], lines: Sequence[str],
              body_start: int) -> dict[int, str | None]:
    """The section each entry written as a bullet opens in (the last heading above it), by its
    line; an entry written as a heading opens none (most logs have no other kind: then the
    body is not read)."""
    bullets = [e.line for e in ordered if e.style != "heading"]
    if not bullets:
        return {}
    headings: list[int] = []
    sections: list[str] = []
    for number, text in body_lines(list(lines), body_start, mask=False):
        heading = HEADING.match(mask_code(text)) if text.startswith("#") else None
        if heading:
            headings.append(number)
            sections.append(heading.group(2).strip())
    out: dict[int, str | None] = {}
    for line in bullets:
        at = bisect_left(headings, line) - 1
        out[line] = sections[at] if at >= 0 else None
    return out


def context_print(page: Page, entries: EntryIndex) -> str:
    """What every segment's facts may depend on besides its own lines and the name index: the
    records' version, the log page's key and kind, the entries touching the log page (the
    provenance of its facts), and which entry holds each block id (contradictions citing
    one)."""
    data = (RECORDS_VERSION, LOG_FORMAT, page.key, page.kind.value,
            [(e.key, e.signature) for e in entries.by_page.get(page.key, [])],
            sorted((block, e.key) for block, e in entries.by_block.items()))
    return hashlib.blake2b(repr(data).encode(), digest_size=16).hexdigest()


@dataclass(frozen=True)
class LogState:
    """What the graph holds of the log: its context print and each entry's (line, print)."""

    context: str | None
    prints: Mapping[str, tuple[int | None, str | None]]


def reusable(segments: Sequence[LogSegment], context: str, state: LogState | None,
             lines: Sequence[str], changed_names: set[str]) -> tuple[LogSegment, ...]:
    """`segments`, each unchanged one given the line it started at before (`old_start`): same
    print and context as the graph's, and no name in it that appeared, vanished or changed
    its page since."""
    if state is None or state.context != context:
        return tuple(segments)
    scan = NameScan(changed_names, fold=fold_name) if changed_names else None
    out: list[LogSegment] = []
    taken: list[tuple[int, int]] = []
    for seg in segments:
        old_line, old_print = state.prints.get(seg.entry, (None, None))
        if old_line is None or old_print != seg.print or (
                scan is not None and scan.any_in("\n".join(lines[seg.start - 1:seg.end]))):
            out.append(seg)
            continue
        out.append(LogSegment(entry=seg.entry, start=seg.start, end=seg.end, print=seg.print,
                              old_start=old_line))  # (validating is quicker than a copy)
        taken.append((old_line, old_line + seg.end - seg.start))
    taken.sort()
    if any(a[1] >= b[0] for a, b in pairwise(taken)):
        return tuple(segments)  # old segments that overlap: not a log state to move from
    return tuple(out)
