"""Which log entry introduced a fact: the newest entry touching the asserting page that talks
about it, else the entry that created the page. Makes "as of" digests possible."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from loaders.records import (
    ClaimRecord,
    ContradictionRecord,
    LineageAssertion,
    LogEntry,
    TouchRole,
)
from loaders.resolver import NameIndex
from loaders.text import fold_name

CREATING = frozenset({TouchRole.CREATED, TouchRole.SUMMARY})
# Roles of a touch that says nothing of where the page's facts came from.
PASSING = frozenset({TouchRole.DEFERRED, TouchRole.CONSULTED})
# Claim ids are mostly ASCII tokens (`clm-00000-gagozi`): such an id occurs in a text only
# inside one run of these characters, so runs are looked up instead of every id searched for.
ID_CHARS = re.compile(r"[A-Za-z0-9_.:/#@+\-]+")
LINEAGE_WORDS = ("builds_on", "系譜", "lineage", "extends", "supersedes")


class EntryIndex:
    """Log entries by the pages they touch and by block id."""

    def __init__(self, entries: Iterable[LogEntry]) -> None:
        self.entries = list(entries)
        self.by_page: dict[str, list[LogEntry]] = defaultdict(list)
        self.by_block: dict[str, LogEntry] = {}
        for entry in self.entries:
            for touch in entry.touches:
                if touch.page and touch.role not in PASSING:
                    pages = self.by_page[touch.page]
                    if not pages or pages[-1].key != entry.key:
                        pages.append(entry)
            for block in entry.block_ids:
                self.by_block[block] = entry

    def creator(self, page: str) -> LogEntry | None:
        for entry in self.by_page.get(page, []):
            if any(t.page == page and t.role in CREATING for t in entry.touches):
                return entry
        touching = self.by_page.get(page)
        return touching[0] if touching else None

    def talking_about(self, page: str, words: Iterable[str]) -> LogEntry | None:
        folded = [fold_name(w) for w in words if w]
        for entry in reversed(self.by_page.get(page, [])):
            text = fold_name(f"{entry.title} {entry.text}")
            if any(w in text for w in folded):
                return entry
        return None


def changed_entries(before: Mapping[str, str | None],
                    entries: Iterable[LogEntry]) -> tuple[set[str], list[LogEntry]]:
    """Keys of entries gone or changed since `before` (signatures by key, as the graph holds
    them; None: written before signatures were), and the entries new or changed now."""
    now = {e.key: (e, e.signature) for e in entries}
    gone = {key for key, signature in before.items()
            if key not in now or signature != now[key][1]}
    return gone, [e for key, (e, signature) in now.items() if before.get(key) != signature]


def touched(entries: Iterable[LogEntry]) -> set[str]:
    """Pages whose facts' provenance these entries take part in."""
    return {t.page for e in entries for t in e.touches
            if t.page and t.role not in PASSING}


def newest_mentions(entries: list[LogEntry], ids: Iterable[str]) -> dict[str, int]:
    """For each id, the position in `entries` of the newest (last) entry whose text holds it as
    a substring. One pass over the entries' texts, not one per id: a 100k-entry log and a
    534-claim ledger took 100 s the naive way."""
    wanted = set(ids)
    tokens = {i for i in wanted if ID_CHARS.fullmatch(i)}
    others = wanted - tokens
    lengths = sorted({len(i) for i in tokens})
    found: dict[str, int] = {}
    for position in range(len(entries) - 1, -1, -1):
        if len(found) == len(wanted):
            break
        text = entries[position].text
        if tokens:
            for run in ID_CHARS.findall(text):
                for length in lengths:
                    if length > len(run):
                        break
                    for start in range(len(run) - length + 1):
                        part = run[start:start + length]
                        if part in tokens:
                            found.setdefault(part, position)
        for i in others:
            if i not in found and i in text:
                found[i] = position
    return found


def _names(index: NameIndex, key: str) -> list[str]:
    header = index.headers.get(key)
    if header is None:
        return [key]
    return [header.stem, header.title, *header.aliases]


def lineage_introduced(assertions: list[LineageAssertion], entries: EntryIndex,
                       index: NameIndex) -> list[LineageAssertion]:
    out: list[LineageAssertion] = []
    for a in assertions:
        entry = entries.talking_about(a.page, [*_names(index, a.parent), *LINEAGE_WORDS]) \
            or entries.creator(a.page)
        out.append(a.model_copy(update={"introduced_by": entry.key if entry else None}))
    return out


def contradiction_introduced(records: list[ContradictionRecord], entries: EntryIndex
                             ) -> list[ContradictionRecord]:
    out: list[ContradictionRecord] = []
    mentioned = newest_mentions(entries.entries, {c for r in records for c in r.claims})
    for record in records:
        if record.introduced_by and not record.introduced_by.startswith("^"):
            out.append(record)
            continue
        entry = None
        if record.introduced_by and record.introduced_by.startswith("^"):
            entry = entries.by_block.get(record.introduced_by[1:])
        if entry is None and record.page:
            entry = entries.talking_about(
                record.page, ["correction", "contradict", "訂正", "食い違", "contested"])
        if entry is None and record.claims:
            where = [mentioned[c] for c in record.claims if c in mentioned]
            entry = entries.entries[max(where)] if where else None
        if entry is None and record.page:
            entry = entries.creator(record.page)
        out.append(record.model_copy(update={"introduced_by": entry.key if entry else None}))
    return out


def claims_introduced(claims: list[ClaimRecord], entries: EntryIndex) -> list[ClaimRecord]:
    out: list[ClaimRecord] = []
    mentioned = newest_mentions(entries.entries, [c.id for c in claims])
    for claim in claims:
        entry = entries.entries[mentioned[claim.id]] if claim.id in mentioned else None
        if entry is None and claim.page:
            entry = entries.creator(claim.page)
        out.append(claim.model_copy(update={"introduced_by": entry.key if entry else None,
                                            "known": entry.date if entry else None}))
    return out
