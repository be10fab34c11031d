"""The log page cut into its entries' segments, each with a print of what it asserts.

`log.md` is one page, so any edit to it changes the page; and an entry added at the top (as
LLM-maintained vaults do, newest first) moves every line below it. A segment is an entry's
lines, from its heading to the line before the next entry. Its print hashes those lines and
every fact they yield, with lines counted from the segment's start: an edit that leaves a
segment's print unchanged leaves its facts unchanged but for their line numbers, so the writer
can move them instead of deleting and writing them again (`graph.log_update`). The lines
before the first entry (the preamble) have no segment: their few facts are always rewritten.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, get_args, get_origin

from loaders.records import LogEntry, LogSegment, PageFacts, Record

# Fields derived from a fact's other fields, its line and the segment's text (ids and evidence
# spell out absolute lines); the writer computes them again for the moved lines.
DERIVED = frozenset({"id", "evidence"})


@dataclass(frozen=True)
class _Shape:
    """Which fields of a record type a print reads, where its line is, which hold records."""

    names: tuple[str, ...]
    line: int | None
    nested: tuple[int, ...]


_SHAPES: dict[type[Record], _Shape] = {}


def _shape(cls: type[Record]) -> _Shape:
    shape = _SHAPES.get(cls)
    if shape is None:
        names = tuple(n for n in cls.model_fields if n not in DERIVED)
        nested = tuple(i for i, n in enumerate(names)
                       if get_origin(ann := cls.model_fields[n].annotation) is tuple
                       and isinstance(arg := get_args(ann)[0], type) and issubclass(arg, Record))
        shape = _SHAPES[cls] = _Shape(names, names.index("line") if "line" in names else None,
                                      nested)
    return shape


def _relative(record: Record, start: int) -> tuple[Any, ...]:
    """The record's fields with every line (its own and its parts') counted from `start`, less
    the derived ones."""
    shape = _shape(type(record))
    fields = record.__dict__
    values = [fields[n] for n in shape.names]
    if shape.line is not None and values[shape.line] is not None:
        values[shape.line] -= start
    for i in shape.nested:
        values[i] = tuple(_relative(part, start) for part in values[i])
    return (type(record).__name__, *values)


def line_facts(facts: PageFacts) -> Iterable[Record]:
    """Every fact of a page that stands on a line of it (all the log's facts but its entries)."""
    yield from facts.links
    yield from facts.lineage
    yield from facts.mentions
    yield from facts.claims
    yield from facts.contradictions
    yield from facts.authorships
    yield from facts.relations


class SegmentIndex:
    """Which segment a line belongs to, by the segments' first lines."""

    def __init__(self, segments: Sequence[LogSegment]) -> None:
        self.segments = sorted(segments, key=lambda s: s.start)
        self.starts = [s.start for s in self.segments]

    def of(self, line: int | None) -> LogSegment | None:
        """The segment holding `line`; None for the preamble and for facts without a line."""
        if line is None:
            return None
        at = bisect_right(self.starts, line) - 1
        if at < 0 or line > self.segments[at].end:
            return None
        return self.segments[at]


def log_segments(facts: PageFacts, entries: Sequence[LogEntry],
                 lines: Sequence[str]) -> tuple[LogSegment, ...]:
    """The segment of each entry of the log page `facts`, whose text is `lines` (the whole
    file, line 1 first), with its print."""
    ordered = sorted(entries, key=lambda e: e.line)
    bounds = [(e, e.line, (ordered[i + 1].line - 1) if i + 1 < len(ordered) else len(lines))
              for i, e in enumerate(ordered)]
    shells = SegmentIndex([LogSegment(entry=e.key, start=s, end=end, print="")
                           for e, s, end in bounds])
    held: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for fact in line_facts(facts):
        segment = shells.of(getattr(fact, "line", None))
        if segment is not None:
            held[segment.entry].append(_relative(fact, segment.start))
    out: list[LogSegment] = []
    for entry, start, end in bounds:
        digest = hashlib.blake2b(digest_size=16)
        for text in lines[start - 1:end]:
            digest.update(text.encode())
            digest.update(b"\n")
        digest.update(repr((_relative(entry, start), held[entry.key])).encode())
        out.append(LogSegment(entry=entry.key, start=start, end=end,
                              print=digest.hexdigest()))
    return tuple(out)
