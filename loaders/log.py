"""The append-only log: `## [YYYY-MM-DD] op | Title` entries with `- Label: text` bullets, and
the bullet style `- 2026-07-11 — op — text` that some vaults use. Newest-first and oldest-first
logs are both read; entries get a chronological sequence. A log parsed again from its last
parse reads only the lines above those both versions end with (`LogParse`)."""

from __future__ import annotations

import datetime as dt
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import takewhile
from typing import Any

from loaders.links import find_links, mask_code
from loaders.records import LogBullet, LogEntry, LogTouch, Problem, TouchRole
from loaders.resolver import NameIndex

HEADING_ENTRY = re.compile(r"^##\s+\[?(\S+?)\]?\s+([^|]+?)\s*\|\s*(.*?)\s*$")
DATE_LIKE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$")
DASH = r"\s*(?:—|–|--|-|\|)\s*"
BULLET_ENTRY = re.compile(rf"^[-*]\s+(\d{{4}}-\d{{1,2}}-\d{{1,2}}){DASH}([\w.\-/]+){DASH}(.*?)\s*$")
BULLET = re.compile(r"^[-*+]\s+(?:\*\*)?([^:：*]{1,40}?)(?:\*\*)?\s*[:：]\s*(.*)$")
BLOCK_ID = re.compile(r"\s\^([A-Za-z0-9\-_]+)\s*$")
ROLE_BY_LABEL: dict[str, TouchRole] = {
    "source": TouchRole.SOURCE, "sources": TouchRole.SOURCE,
    "summary": TouchRole.SUMMARY, "summaries": TouchRole.SUMMARY,
    "pages created": TouchRole.CREATED, "created": TouchRole.CREATED,
    "pages updated": TouchRole.UPDATED, "updated": TouchRole.UPDATED,
    "affiliation added": TouchRole.UPDATED, "developer added": TouchRole.UPDATED,
    "deferred": TouchRole.DEFERRED,
    "pages consulted": TouchRole.CONSULTED, "consulted": TouchRole.CONSULTED,
}


@dataclass
class _Draft:
    date: dt.date
    op: str
    title: str
    line: int
    style: str
    bullets: list[LogBullet] = field(default_factory=list)
    made: LogEntry | None = None  # the entry made of it, for a later parse to move (`LogParse`)

    def moved(self, delta: int) -> _Draft:
        return _Draft(self.date, self.op, self.title, self.line + delta, self.style,
                      self.bullets, self.made)


def _date(text: str) -> dt.date | None:
    try:
        year, month, day = (int(part) for part in text.split("-"))
        return dt.date(year, month, day)
    except ValueError:
        return None


def _scan(lines: list[tuple[int, str]], path: str) -> tuple[list[_Draft], list[Problem]]:
    drafts: list[_Draft] = []
    problems: list[Problem] = []
    current: _Draft | None = None
    for number, text in lines:
        heading = HEADING_ENTRY.match(text)
        if heading and DATE_LIKE.match(heading.group(1)):
            day = _date(heading.group(1))
            if day is None:
                problems.append(Problem(path=path, line=number, skipped=True,
                                        message=f"log entry with a bad date "
                                                f"'{heading.group(1)}' skipped"))
                current = None
                continue
            current = _Draft(day, heading.group(2).strip(), heading.group(3).strip(), number,
                             "heading")
            drafts.append(current)
            continue
        if text.startswith("#"):
            current = None
            continue
        bullet_entry = BULLET_ENTRY.match(text)
        if bullet_entry:
            day = _date(bullet_entry.group(1))
            if day is None:
                problems.append(Problem(path=path, line=number, skipped=True,
                                        message=f"log entry with a bad date "
                                                f"'{bullet_entry.group(1)}' skipped"))
                current = None
                continue
            rest = bullet_entry.group(3)
            current = _Draft(day, bullet_entry.group(2), rest, number, "bullet")
            current.bullets.append(LogBullet(label="text", text=rest, offset=0))
            drafts.append(current)
            continue
        if current is None:
            continue
        bullet = BULLET.match(text.strip()) if text[:1] in "-*+" or (
            current.style == "bullet" and text[:1] in " \t") else None
        if bullet:
            current.bullets.append(LogBullet(label=bullet.group(1).strip(),
                                             text=bullet.group(2).strip(),
                                             offset=number - current.line))
        elif text.strip() and current.bullets and text[:1] in " \t":
            last = current.bullets[-1]
            current.bullets[-1] = LogBullet(label=last.label, text=f"{last.text} {text.strip()}",
                                            offset=last.offset)
    return drafts, problems


@dataclass(frozen=True)
class LogParse:
    """A parse of the log: its entries (oldest first) and problems, and what the next parse of
    an edited log reuses. A newest-first log grows at the top, so an edit there leaves every
    entry below it as it was, only further down: those are not scanned or resolved again,
    only moved (`parse_log` with `previous`)."""

    entries: list[LogEntry]
    problems: list[Problem]
    path: str
    index: NameIndex
    lines: list[tuple[int, str]]
    drafts: list[_Draft]  # in file order, each with the entry made of it


def parse_log(lines: list[tuple[int, str]], path: str, index: NameIndex,
              previous: LogParse | None = None) -> LogParse:
    """Entries in chronological order (oldest first), each with a stable key
    `log/YYYY-MM-DD/NN` (NN: its place on that day, oldest first). With the `previous` parse
    of the same log, the entries in the lines both end with are taken from it, moved."""
    tail = _unchanged_tail(previous, lines, path)
    if tail is None:
        drafts, problems = _scan(lines, path)
    else:
        assert previous is not None
        first, delta = tail
        split = previous.drafts[first].line + delta
        drafts, problems = _scan(list(takewhile(lambda ln: ln[0] < split, lines)), path)
        drafts += [d.moved(delta) for d in previous.drafts[first:]]
        problems += [p.model_copy(update={"line": p.line + delta}) for p in previous.problems
                     if p.line is not None and p.line >= split - delta]
    reuse = previous is not None and previous.index is index and tail is not None
    return LogParse(_entries(drafts, lines, path, index, reuse), problems, path, index, lines,
                    drafts)


def _unchanged_tail(previous: LogParse | None, lines: list[tuple[int, str]],
                    path: str) -> tuple[int, int] | None:
    """Where the previous parse's drafts can be taken over: the first draft (by position) that
    starts within the lines both logs end with, and how far those lines moved. The scan of a
    draft depends only on its own lines (each entry's heading starts afresh), so such a draft
    scans as it did."""
    if previous is None or previous.path != path or not previous.lines or not lines \
            or not previous.drafts:
        return None
    old = previous.lines
    delta = lines[-1][0] - old[-1][0]
    i, j = len(old) - 1, len(lines) - 1
    while i >= 0 and j >= 0 and old[i][1] == lines[j][1] and lines[j][0] - old[i][0] == delta:
        i -= 1
        j -= 1
    if i + 1 >= len(old):
        return None
    first = bisect_left([d.line for d in previous.drafts], old[i + 1][0])
    return (first, delta) if first < len(previous.drafts) else None


def _entries(drafts: list[_Draft], lines: list[tuple[int, str]], path: str, index: NameIndex,
             reuse: bool) -> list[LogEntry]:
    """The drafts as entries, oldest first, keyed by their day and place on it. With `reuse`
    (the previous parse had the same name index) a draft taken over keeps the entry made of
    it, given its new line and place."""
    if not drafts:
        return []
    newest_first = drafts[0].date > drafts[-1].date or (
        drafts[0].date == drafts[-1].date and len(drafts) > 1 and _declares_newest_first(lines))
    ordered = list(reversed(drafts)) if newest_first else list(drafts)
    ordered.sort(key=lambda d: d.date)  # stable: keeps file order within a day
    entries: list[LogEntry] = []
    day_counts: dict[dt.date, int] = {}
    for seq, draft in enumerate(ordered, start=1):
        day_counts[draft.date] = day_counts.get(draft.date, 0) + 1
        day_seq = day_counts[draft.date]
        key = f"log/{draft.date.isoformat()}/{day_seq:02d}"
        made = draft.made if reuse else None
        if made is None:
            made = _entry(draft, key, seq, day_seq, path, index)
        elif (made.key, made.seq, made.line) != (key, seq, draft.line):
            made = _moved(made, key=key, seq=seq, day_seq=day_seq, line=draft.line)
        draft.made = made
        entries.append(made)
    return entries


def _moved(entry: LogEntry, **changes: Any) -> LogEntry:
    """`entry` with `changes` (its place), keeping its signature where its key is the same
    (it depends on nothing else that moves: see `LogEntry.signature`)."""
    moved = entry.model_copy(update=changes)
    if moved.key != entry.key:
        moved.__dict__.pop("signature", None)  # the cached_property's slot
    return moved


def _entry(draft: _Draft, key: str, seq: int, day_seq: int, path: str,
           index: NameIndex) -> LogEntry:
    touches: list[LogTouch] = []
    blocks: list[str] = []
    for bullet in draft.bullets:
        role = ROLE_BY_LABEL.get(bullet.label.lower(), TouchRole.MENTIONED)
        for raw in find_links(mask_code(bullet.text)):
            if raw.embed:
                continue
            resolved = index.resolve(raw.target, path)
            if resolved.attachment:
                continue
            touches.append(LogTouch(page=resolved.target, name=resolved.name, role=role,
                                    offset=bullet.offset))
        block = BLOCK_ID.search(bullet.text)
        if block:
            blocks.append(block.group(1))
    for raw in find_links(draft.title):
        resolved = index.resolve(raw.target, path)
        if not resolved.attachment:
            touches.append(LogTouch(page=resolved.target, name=resolved.name,
                                    role=TouchRole.MENTIONED, offset=0))
    return LogEntry(
        key=key, date=draft.date, op=draft.op, title=draft.title, line=draft.line, seq=seq,
        day_seq=day_seq, style=draft.style, bullets=tuple(draft.bullets),
        touches=tuple(touches), block_ids=tuple(blocks),
        text=" ".join(b.text for b in draft.bullets))


def entry_day(key: str) -> dt.date | None:
    """The day of an entry, from its key (`log/YYYY-MM-DD/NN`)."""
    parts = key.split("/")
    try:
        return dt.date.fromisoformat(parts[1]) if len(parts) == 3 else None
    except ValueError:
        return None


def _declares_newest_first(lines: list[tuple[int, str]]) -> bool:
    head = " ".join(text for _, text in lines[:40]).lower()
    return "at the top" in head or "newest first" in head or "新しい順" in head
