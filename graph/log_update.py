"""A changed log written by moving the facts of its unchanged entries, not rewriting them all.

An LLM-maintained vault records every edit in `log.md`, newest first, so nearly every ingest
changes the log and moves every line of it. Rewritten whole, the log's facts cost more than the
rest of an edit (682k elements at 100k pages). Each `LogEntry` node keeps the print of its
segment (`loaders.log_segments`); when the log changes, an entry whose print is unchanged keeps
its facts, and only their lines (and the ids and evidence that spell a line out) move. The
facts of changed, new and removed entries and of the preamble are deleted and written again,
as any changed page's are.

The result is the graph a clean ingest gives; when anything does not fit (no prints yet, a
log whose last write did not finish, a fact whose id does not name its line as expected) the
log is rewritten whole, as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graph import writes as w
from graph.schema import ASSERTED_TYPES
from loaders.fact_ids import callout_id, claim_id, lint_id
from loaders.log_segments import SegmentIndex, line_facts
from loaders.numeric import Group, conflict_listing
from loaders.records import ClaimRecord, ContradictionRecord, LogSegment, PageFacts

if TYPE_CHECKING:
    from graph.writer import GraphWriter

# Marks an id while its fact moves (see `RENAME_CLAIMS`); no fact id starts with it.
MOVING = "\x00moving:"


@dataclass
class _Moves:
    """What moving a log's facts takes, worked out before anything is written."""

    shift: list[int | None]  # by old line: how far its facts move; None: deleted
    kept: SegmentIndex  # the unchanged entries' segments, as they are now
    claims: list[dict[str, Any]]
    contradictions: list[dict[str, Any]]
    entries: list[dict[str, Any]]


@dataclass
class LogUpdate:
    """The log page the graph holds, and what moving its facts changed."""

    page: str
    old: dict[str, tuple[int, str]]  # entry key -> (line, segment print), as the graph has them
    groups: set[Group] = field(default_factory=set)  # of the numeric claims deleted
    moved: int = 0  # facts moved (their lines changed)

    @classmethod
    def prepare(cls, writer: GraphWriter, page: str) -> LogUpdate | None:
        """The log's state in the graph, if its last write finished and printed every entry."""
        rows = writer.read(w.OLD_LOG, page=page)
        if not rows or not rows[0]["hash"] or not rows[0]["entries"]:
            return None
        old = {key: (line, seg) for key, line, seg in rows[0]["entries"]}
        if any(line is None or seg is None for line, seg in old.values()):
            return None
        return cls(page, old)

    def apply(self, writer: GraphWriter, facts: PageFacts) -> PageFacts:
        """Move what stays of the log's facts, delete what does not; the facts left to write
        (those of changed and new entries, and of the preamble), for the writer's usual path.
        Falls back to removing every fact of the log (the caller then writes them all)."""
        moves = self._moves(facts)
        if moves is None:
            self.groups |= writer.numeric_groups([self.page])
            writer.remove_facts([self.page])
            return facts
        page, shift = self.page, moves.shift
        self.groups |= {(r["subject"], r["metric"], r["unit"])
                        for r in writer.read(w.UNKEPT_GROUPS, page=page, shift=shift)}
        for rel_type in ASSERTED_TYPES:
            writer.run(w.delete_unkept(rel_type), page=page, shift=shift)
        writer.run(w.DELETE_UNKEPT_TOUCHES, page=page, shift=shift)
        writer.run(w.DELETE_UNKEPT_NODES, page=page, shift=shift)
        new_keys = [e.key for e in facts.log_entries]
        writer.run(w.DELETE_STALE_LOG_ENTRIES, page=page, keys=new_keys)
        for rel_type in ASSERTED_TYPES:
            writer.run(w.shift_kept(rel_type), page=page, shift=shift)
        writer.run(w.SHIFT_TOUCHES, page=page, shift=shift)
        _rename(writer, w.RENAME_CLAIMS, moves.claims)
        _rename(writer, w.RENAME_CONTRADICTIONS, moves.contradictions)
        writer.batched(w.SHIFT_LOG_ENTRIES, moves.entries)
        self._relist_detected(writer, [row["id"] for row in moves.claims])
        self.moved = sum(1 for s in shift if s)  # lines moved, facts on them or not
        fresh = [e for e in facts.log_entries if moves.kept.of(e.line) is None]
        writer.write_log_entries(page, fresh, facts.log_segments)

        def left(records: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(r for r in records if moves.kept.of(r.line) is None)

        return facts.model_copy(update={
            "links": left(facts.links), "lineage": left(facts.lineage),
            "mentions": left(facts.mentions), "claims": left(facts.claims),
            "contradictions": left(facts.contradictions),
            "authorships": left(facts.authorships), "relations": left(facts.relations),
            "log_entries": (), "is_log": False})

    def _moves(self, facts: PageFacts) -> _Moves | None:
        if not facts.is_log or not facts.log_segments:
            return None
        now = {s.entry: s for s in facts.log_segments}
        kept: list[tuple[int, LogSegment]] = sorted(
            (self.old[key][0], seg) for key, seg in now.items()
            if key in self.old and self.old[key][1] == seg.print)
        if not kept:
            return None
        shift: list[int | None] = [None] * (max(old + s.end - s.start for old, s in kept) + 1)
        for old, seg in kept:
            if any(x is not None for x in shift[old:old + seg.end - seg.start + 1]):
                return None  # overlapping segments: not a log this knows how to move
            shift[old:old + seg.end - seg.start + 1] = [seg.start - old] * (
                seg.end - seg.start + 1)
        index = SegmentIndex([seg for _, seg in kept])
        claims: list[dict[str, Any]] = []
        contradictions: list[dict[str, Any]] = []
        for fact in line_facts(facts):
            segment = index.of(getattr(fact, "line", None))
            if segment is None:
                continue
            delta = seg_delta(segment, self.old)
            if isinstance(fact, ClaimRecord):
                row = _claim_move(self.page, fact, delta)
                if row is None:
                    return None
                if delta:
                    claims.append(row)
            elif isinstance(fact, ContradictionRecord):
                row = _contradiction_move(self.page, fact, delta)
                if row is None:
                    return None
                if delta:
                    contradictions.append(row)
        entries = [{"key": e.key, "line": e.line, "bullets": bullet_rows(e.bullets)}
                   for e in facts.log_entries
                   if (segment := index.of(e.line)) is not None and seg_delta(segment, self.old)]
        return _Moves(shift, index, claims, contradictions, entries)

    def _relist_detected(self, writer: GraphWriter, moved: list[str]) -> None:
        """Detected conflicts list their claims' ids and `page:line` evidence in statement
        order: spelled again for those that involve a moved claim."""
        rows = []
        for start in range(0, len(moved), writer.batch_size):
            for r in writer.read(w.DETECTED_INVOLVING, ids=moved[start:start + writer.batch_size]):
                members = [ClaimRecord(id=cid, page=page, line=line, value=value, text=text,
                                       origin="numeric")
                           for cid, page, line, value, text in r["members"]]
                claims, evidence = conflict_listing(members)
                if list(claims) != r["claims"] or list(evidence) != r["evidence"]:
                    rows.append({"id": r["id"], "claims": list(claims),
                                 "evidence": list(evidence)})
        writer.batched(w.SET_DETECTED_LISTING, rows)


def seg_delta(segment: LogSegment, old: dict[str, tuple[int, str]]) -> int:
    """How far an unchanged entry's lines moved."""
    return segment.start - old[segment.entry][0]


def bullet_rows(bullets: Any) -> list[str]:
    """A log entry's bullets as the graph stores them (one JSON string each)."""
    return [json.dumps({"label": b.label, "text": b.text, "line": b.line}, ensure_ascii=False)
            for b in bullets]


def _claim_move(page: str, c: ClaimRecord, delta: int) -> dict[str, Any] | None:
    """The rename of a moved numeric claim; None if its id is not the one its line gives."""
    if c.origin != "numeric" or c.line is None or c.subject is None or c.metric is None \
            or c.value is None or c.page != page \
            or c.id != claim_id(page, c.line, c.subject, c.metric, c.value):
        return None
    return {"old": claim_id(page, c.line - delta, c.subject, c.metric, c.value), "id": c.id,
            "line": c.line}


def _contradiction_move(page: str, c: ContradictionRecord,
                        delta: int) -> dict[str, Any] | None:
    """The rename of a moved lint correction or callout; None for any other kind (or an id
    not the one its line gives)."""
    if c.line is None:
        return None
    if c.origin == "lint" and c.introduced_by and c.id == lint_id(c.introduced_by, c.line):
        old = lint_id(c.introduced_by, c.line - delta)
    elif c.origin == "callout" and c.id == callout_id(page, c.line):
        old = callout_id(page, c.line - delta)
    else:
        return None
    return {"old": old, "id": c.id, "line": c.line, "evidence": list(c.evidence)}


def _rename(writer: GraphWriter, query: Any, rows: list[dict[str, Any]]) -> None:
    """Rename in two steps, through `MOVING` ids (see `RENAME_CLAIMS`)."""
    if not rows:
        return
    writer.batched(query, [{**row, "id": MOVING + row["id"]} for row in rows])
    writer.batched(query, [{**row, "old": MOVING + row["id"]} for row in rows])
