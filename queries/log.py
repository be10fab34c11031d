"""Log reads: entries of the append-only log by date range and op, what each entry touched,
a page's history, and the entries a fold page folds."""

from __future__ import annotations

import datetime as dt
from typing import Any, LiteralString

from pydantic import Field

from loaders.errors import BadUserInput
from queries.base import GraphContext
from queries.common import NeoDate, Row, stored_bullets, touch_line
from queries.paging import Slice, check_first, decode_cursor, encode_cursor

# The date comes as ISO text (`NeoDate` parses it: the driver decodes a date in Python).
ENTRY_PROJECTION: LiteralString = (
    "e {.key, date: toString(e.date), .op, .title, .line, .seq, .day_seq, .style, .text, "
    ".bullets, .block_ids, .page}")


class LogBullet(Row):
    label: str
    text: str
    line: int | None = None


class LogEntryRecord(Row):
    key: str
    date: NeoDate
    op: str | None = None
    title: str | None = None
    line: int | None = None
    seq: int | None = None
    day_seq: int | None = None
    style: str | None = None
    text: str | None = None
    bullets: list[LogBullet] = Field(default_factory=list)
    block_ids: list[str] = Field(default_factory=list)
    page: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> LogEntryRecord:
        data = {k: v for k, v in row.items() if v is not None}
        data["bullets"] = stored_bullets(data.get("bullets", []), data.get("line"))
        return cls.model_validate(data)


# Kept alive here: see `queries.paging.Slice`.
LogEntrySlice = Slice[LogEntryRecord]


class TouchRecord(Row):
    """A page (or an unresolved name) an entry names, and in which role."""

    role: str
    line: int | None = None
    page: str | None = None  # page key; None when the name is dangling
    name: str


class PageHistoryItem(Row):
    entry: LogEntryRecord
    role: str
    line: int | None = None


LOG_ENTRIES: dict[bool, LiteralString] = {
    descending: (
        "MATCH (e:LogEntry) WHERE ($from IS NULL OR e.date >= $from) "
        "AND ($to IS NULL OR e.date <= $to) "
        "AND ($op IS NULL OR e.op = $op OR e.op STARTS WITH $op + '-') "
        "AND ($after IS NULL OR e.seq " + ("<" if descending else ">") + " $after) "
        "WITH e ORDER BY e.seq " + ("DESC" if descending else "ASC") + " LIMIT $limit "
        "RETURN collect(" + ENTRY_PROJECTION + ") AS rows")
    for descending in (False, True)
}
# Every read here sends its rows as one list (`GraphContext.read_rows`).
ENTRIES_BY_KEYS: LiteralString = (
    "UNWIND $keys AS k MATCH (e:LogEntry {key: k}) RETURN collect(" + ENTRY_PROJECTION
    + ") AS rows")
TOUCHES: LiteralString = (
    "UNWIND $keys AS k MATCH (e:LogEntry {key: k})-[r:TOUCHES]->(t) "
    "WITH k, r, t, " + touch_line("r") + " AS line ORDER BY line, coalesce(t.key, t.name) "
    "WITH k, collect({role: r.role, line: line, page: t.key, "
    "  name: coalesce(t.title, t.key, t.name)}) AS touches "
    "RETURN collect({key: k, touches: touches}) AS rows")
PAGE_HISTORY: LiteralString = (
    "UNWIND $keys AS k MATCH (:Page {key: k})<-[r:TOUCHES]-(e:LogEntry) "
    "WITH k, r, e, " + touch_line("r") + " AS line ORDER BY e.seq, line "
    "WITH k, collect({entry: " + ENTRY_PROJECTION + ", role: r.role, line: line}) AS items "
    "RETURN collect({key: k, items: items}) AS rows")
FOLD_ENTRIES: LiteralString = (
    "UNWIND $keys AS k MATCH (:Page {key: k})-[r:FOLDS]->(e:LogEntry) "
    "WITH k, r, e ORDER BY r.position "
    "WITH k, collect(" + ENTRY_PROJECTION + ") AS entries "
    "RETURN collect({key: k, entries: entries}) AS rows")


def log_entries(ctx: GraphContext, date_from: dt.date | None = None,
                date_to: dt.date | None = None, op: str | None = None, first: int = 20,
                after: str | None = None,
                descending: bool = False) -> Slice[LogEntryRecord]:
    """Entries in [date_from, date_to] (inclusive) whose op is `op` (or `op-*`), in log order
    (oldest first unless `descending`)."""
    check_first(first)
    if date_from and date_to and date_from > date_to:
        raise BadUserInput(f"`from` {date_from} is after `to` {date_to}")
    sort = "log:desc" if descending else "log:asc"
    after_seq = None
    if after:
        value = decode_cursor(after, sort)[0]
        if not isinstance(value, int):
            raise BadUserInput("`after` is not a cursor this API returned")
        after_seq = value
    rows = ctx.read_rows(LOG_ENTRIES[descending], **{"from": date_from, "to": date_to},
                         op=op or None, after=after_seq, limit=first + 1)
    items = [LogEntryRecord.from_row(r) for r in rows[:first]]
    return LogEntrySlice(
        items=items, cursors=[encode_cursor(sort, e.seq, e.key) for e in items],
        has_next=len(rows) > first)


def entries_by_keys(ctx: GraphContext, keys: list[str]) -> dict[str, LogEntryRecord]:
    rows = ctx.read_rows(ENTRIES_BY_KEYS, keys=keys)
    return {r["key"]: LogEntryRecord.from_row(r) for r in rows}


def touches(ctx: GraphContext, keys: list[str]) -> dict[str, list[TouchRecord]]:
    """What many entries name, in one round trip."""
    return {r["key"]: [TouchRecord.model_validate(t) for t in r["touches"]]
            for r in ctx.read_rows(TOUCHES, keys=keys)}


def page_history(ctx: GraphContext, keys: list[str]) -> dict[str, list[PageHistoryItem]]:
    """The entries that name each page, oldest first, in one round trip."""
    return {r["key"]: [PageHistoryItem(entry=LogEntryRecord.from_row(i["entry"]),
                                       role=i["role"], line=i["line"]) for i in r["items"]]
            for r in ctx.read_rows(PAGE_HISTORY, keys=keys)}


def fold_entries(ctx: GraphContext, keys: list[str]) -> dict[str, list[LogEntryRecord]]:
    """The entries each fold page folds, in fold order, in one round trip."""
    return {r["key"]: [LogEntryRecord.from_row(e) for e in r["entries"]]
            for r in ctx.read_rows(FOLD_ENTRIES, keys=keys)}
