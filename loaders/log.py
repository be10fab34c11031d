"""The append-only log: `## [YYYY-MM-DD] op | Title` entries with `- Label: text` bullets, and
the bullet style `- 2026-07-11 — op — text` that some vaults use. Newest-first and oldest-first
logs are both read; entries get a chronological sequence."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

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
            current.bullets.append(LogBullet(label="text", text=rest, line=number))
            drafts.append(current)
            continue
        if current is None:
            continue
        bullet = BULLET.match(text.strip()) if text[:1] in "-*+" or (
            current.style == "bullet" and text[:1] in " \t") else None
        if bullet:
            current.bullets.append(LogBullet(label=bullet.group(1).strip(),
                                             text=bullet.group(2).strip(), line=number))
        elif text.strip() and current.bullets and text[:1] in " \t":
            last = current.bullets[-1]
            current.bullets[-1] = LogBullet(label=last.label, text=f"{last.text} {text.strip()}",
                                            line=last.line)
    return drafts, problems


def parse_log(lines: list[tuple[int, str]], path: str, index: NameIndex
              ) -> tuple[list[LogEntry], list[Problem]]:
    """Entries in chronological order (oldest first), each with a stable key
    `log/YYYY-MM-DD/NN` (NN: its place on that day, oldest first)."""
    drafts, problems = _scan(lines, path)
    if not drafts:
        return [], problems
    newest_first = drafts[0].date > drafts[-1].date or (
        drafts[0].date == drafts[-1].date and len(drafts) > 1 and _declares_newest_first(lines))
    ordered = list(reversed(drafts)) if newest_first else list(drafts)
    ordered.sort(key=lambda d: d.date)  # stable: keeps file order within a day
    entries: list[LogEntry] = []
    day_counts: dict[dt.date, int] = {}
    for seq, draft in enumerate(ordered, start=1):
        day_counts[draft.date] = day_counts.get(draft.date, 0) + 1
        day_seq = day_counts[draft.date]
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
                                        line=bullet.line))
            block = BLOCK_ID.search(bullet.text)
            if block:
                blocks.append(block.group(1))
        for raw in find_links(draft.title):
            resolved = index.resolve(raw.target, path)
            if not resolved.attachment:
                touches.append(LogTouch(page=resolved.target, name=resolved.name,
                                        role=TouchRole.MENTIONED, line=draft.line))
        text = " ".join(b.text for b in draft.bullets)
        entries.append(LogEntry(
            key=f"log/{draft.date.isoformat()}/{day_seq:02d}", date=draft.date, op=draft.op,
            title=draft.title, line=draft.line, seq=seq, day_seq=day_seq, style=draft.style,
            bullets=tuple(draft.bullets), touches=tuple(touches), block_ids=tuple(blocks),
            text=text))
    return entries, problems


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
