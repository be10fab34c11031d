"""A changed log written by moving the facts of its unchanged entries, not rewriting them all.

An LLM-maintained vault records every edit in `log.md`, newest first, so nearly every ingest
changes the log and moves every line of it. Rewritten whole, the log's facts cost more than the
rest of an edit (682k elements at 100k pages). The loader does not parse the entries whose
segment is unchanged (`loaders.log_segments`) and says where each one started before; here
their facts keep their nodes and relationships, and only their lines (and the ids and evidence
that spell a line out) move. The facts of changed, new and removed entries and of the
preamble are deleted and written again, as any changed page's are. The result is the graph a
clean ingest gives.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, LiteralString

from graph import writes as w
from graph.errors import GraphError
from graph.list_heads import list_heads
from loaders.fact_ids import callout_id, claim_prefix, evidence_prefix, lint_id
from loaders.log_segments import SegmentIndex
from loaders.numeric import Group
from loaders.records import LogEntry, LogSegment, LogTouch, PageFacts

if TYPE_CHECKING:
    from graph.writer import GraphWriter

# Past this many runs of moved lines, each fact's run is looked up by line (see `_moves`).
MAX_RUNS = 32
# Marks an id while its fact moves (see `_rename`); no fact id starts with it.
MOVING = "\x00moving:"


@dataclass
class LogUpdate:
    """The log page whose unchanged entries' facts move, and what moving them changed."""

    page: str
    groups: set[Group] = field(default_factory=set)  # of the numeric claims deleted
    moved: int = 0  # lines of the log whose facts moved

    def apply(self, writer: GraphWriter, facts: PageFacts,
              alongside: Callable[[], None] = lambda: None) -> PageFacts:
        """Move what stays of the log's facts and delete the rest; `facts` (those of the
        changed and new entries and of the preamble) are left to the writer's usual path.
        `alongside` (the write of the page itself) runs while the facts move."""
        kept = [s for s in facts.log_segments if s.old_start is not None]
        if not facts.is_log or not kept:  # the whole log was parsed: rewrite it whole
            alongside()
            self.groups |= writer.numeric_groups([self.page])
            writer.remove_facts([self.page])
            return facts
        page, moves = self.page, _moves(kept)
        self.groups |= {(r["subject"], r["metric"], r["unit"])
                        for r in writer.read(w.UNKEPT_GROUPS, page=page, **moves)}
        writer.run(w.DELETE_UNKEPT_RELATIONSHIPS, page=page, **moves)
        writer.run(w.DELETE_UNKEPT_NODES, page=page, **moves)
        writer.run(w.DELETE_STALE_LOG_ENTRIES, page=page,
                   keys=[e.key for e in facts.log_entries])
        misnamed = writer.read(w.MISNAMED_CLAIMS, page=page, prefix=claim_prefix(page), **moves)
        if misnamed:
            raise _unexpected(misnamed[0])
        # What moves now are records of different kinds, none locking another's: relationships,
        # claims and contradictions, entries, and the page itself. Neo4j moves them on as many
        # cores at once (at 100k pages the three moves took 5.6 s one after another).
        writer.concurrently(
            lambda: writer.run(w.SHIFT_KEPT_RELATIONSHIPS, page=page, **moves),
            lambda: self._move_statements(writer, kept, moves),
            lambda: writer.run(w.SHIFT_LOG_ENTRIES, page=page, **moves),
            alongside)
        index = SegmentIndex(kept)
        writer.write_log_entries(page, [e for e in facts.log_entries if index.of(e.line) is None],
                                 facts.log_segments)
        self.moved = sum(s.end - s.start + 1 for s in kept if s.start != s.old_start)
        return facts.model_copy(update={"log_entries": (), "is_log": False})

    def _move_statements(self, writer: GraphWriter, kept: list[LogSegment],
                         moves: dict[str, Any]) -> None:
        """The moved entries' claims, then their contradictions (lint corrections, callouts),
        whose ids and evidence spell their line."""
        self._move_claims(writer, kept, moves)
        _rename(writer, w.RENAME_CONTRADICTIONS, [
            _contradiction_move(self.page, r)
            for r in writer.read(w.MOVED_CONTRADICTIONS, page=self.page, **moves)])

    def _move_claims(self, writer: GraphWriter, kept: list[LogSegment],
                     moves: dict[str, Any]) -> None:
        """Numeric claims spell their line in their id, and detected conflicts list their ids
        and `page:line` evidence in statement order: all moved, in Cypher (no claim is read
        back). Entries that change order would reorder a conflict's list: then the conflicts
        of the moved claims are derived again instead."""
        page, prefix = self.page, claim_prefix(self.page)
        starts = [s.start for s in sorted(kept, key=lambda s: s.old_start or 0)]
        if starts == sorted(starts):
            writer.run(w.RELIST_DETECTED, page=page, prefix=prefix,
                       evidence=evidence_prefix(page), **moves)
        else:
            self.groups |= {(r["subject"], r["metric"], r["unit"])
                            for r in writer.read(w.GROUPS_MOVING, page=page, **moves)}
        deltas = {s.start - (s.old_start or 0) for s in kept} - {0}
        if one_way(deltas):
            writer.run(w.MOVE_CLAIMS_IN_ORDER[min(deltas) > 0], page=page, prefix=prefix,
                       **moves)
        elif deltas:
            writer.run(w.MOVE_CLAIMS, page=page, prefix=prefix, moving=MOVING, **moves)
            writer.run(w.MOVED_CLAIMS_NAMED, page=page, moving=MOVING)

    def recount(self, writer: GraphWriter) -> None:
        """The log page's link counts, from its links in the graph (the load lacks the moved
        ones)."""
        row = writer.read(w.LINK_COUNTS, page=self.page)[0]
        writer.run(w.SET_LINK_COUNTS, page=self.page, links=row["links"],
                   count=len(row["dangling"]), dangling=sorted(set(row["dangling"])))


def one_way(deltas: set[int]) -> bool:
    """Whether the moved lines all move the same way (then claims are renamed in one step,
    `writes.MOVE_CLAIMS_IN_ORDER`; else in two, through `MOVING` ids)."""
    return len({d > 0 for d in deltas}) == 1


def _moves(kept: list[LogSegment]) -> dict[str, Any]:
    """The moves as the statements take them (see `writes._delta`): runs of old lines that
    move by one delta, or, past `MAX_RUNS` runs, the delta of each old line."""
    runs: list[list[int]] = []
    for seg in sorted(kept, key=lambda s: s.old_start or 0):
        old = seg.old_start or 0
        delta, last = seg.start - old, old + seg.end - seg.start
        if runs and runs[-1][1] == old - 1 and runs[-1][2] == delta:
            runs[-1][1] = last
        else:
            runs.append([old, last, delta])
    if len(runs) <= MAX_RUNS:
        return {"runs": runs, "shift": None}
    shift: list[int | None] = [None] * (runs[-1][1] + 1)
    for first, last, delta in runs:
        shift[first:last + 1] = [delta] * (last + 1 - first)
    return {"runs": None, "shift": shift}


def bullet_rows(entry: LogEntry) -> list[str]:
    """A log entry's bullets as the graph stores them: one JSON string each, its line as an
    offset from the entry's (so that a moved entry's bullets need no rewrite)."""
    return [json.dumps({"label": b.label, "text": b.text, "offset": b.offset},
                       ensure_ascii=False) for b in entry.bullets]


def search_text(entry: LogEntry) -> str:
    """What a search finds a log entry by, and shows of it: its heading and its bullets with
    their labels (`[2026-06-17] ingest-paper | Title`, `- Key insight: ...`). The log page's
    own body is not in the full-text index; its entries are, one document each."""
    bullets = [f"- {b.label}: {b.text}" for b in entry.bullets
               if entry.style == "heading" or b.offset]  # a bullet entry's own line: its title
    return "\n".join([f"[{entry.date.isoformat()}] {entry.op} | {entry.title}", *bullets])


def touch_props(touch: LogTouch, page: str) -> dict[str, Any]:
    """A touch's properties as the graph stores them: its line as an offset from its entry's,
    as bullets' are (a moved entry's touches need no rewrite)."""
    return {"role": touch.role.value, "offset": touch.offset, "asserted_by": page}


def _unexpected(row: dict[str, Any]) -> GraphError:
    return GraphError(f"the graph's fact {row['id']!r} of the log does not name its line as "
                      "vaultkg writes it; run `vaultkg ingest --force` once")


def _contradiction_move(page: str, row: dict[str, Any]) -> dict[str, Any]:
    """The rename of a moved lint correction or callout: id, line and `page:line:` evidence."""
    line, delta, entry = row["line"], row["d"], row["introduced_by"]
    if row["origin"] == "lint" and entry and row["id"] == lint_id(entry, line):
        new_id = lint_id(entry, line + delta)
    elif row["origin"] == "callout" and row["id"] == callout_id(page, line):
        new_id = callout_id(page, line + delta)
    else:
        raise _unexpected(row)
    prefix, evidence = evidence_prefix(page), []
    for text in row["evidence"] or []:
        at, sep, rest = text.removeprefix(prefix).partition(": ")
        if not sep or not at.isdigit() or not text.startswith(prefix):
            raise _unexpected(row)
        evidence.append(f"{prefix}{int(at) + delta}: {rest}")
    return {"old": row["id"], "id": new_id, "line": line + delta, "evidence": evidence,
            "heads": list_heads({"evidence": evidence})}


def _rename(writer: GraphWriter, query: LiteralString, rows: list[dict[str, Any]]) -> None:
    """Rename in one step where no new id is an old one of these rows; else in two, through
    `MOVING` ids (a moved fact may take the id another one holds until it moves too)."""
    if not {row["id"] for row in rows} & {row["old"] for row in rows}:
        writer.batched(query, rows)
        return
    writer.batched(query, [{**row, "id": MOVING + row["id"]} for row in rows])
    writer.batched(query, [{**row, "old": MOVING + row["id"]} for row in rows])
