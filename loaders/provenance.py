"""Which log entry introduced a fact: the newest entry touching the asserting page that talks
about it, else the entry that created the page. Makes "as of" digests possible."""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property

import ahocorasick

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
# Between the entries' texts when they are searched as one (see `EntryTexts`): no id holds it.
TEXT_BREAK = "\x00"
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

    @cached_property
    def texts(self) -> EntryTexts:
        """The entries' texts, searchable at once (kept with the index: a long-lived process
        re-uses both while the log is unchanged)."""
        return EntryTexts(self.entries)

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


class EntryTexts:
    """Entries' texts joined into one string, to search them all in one pass."""

    def __init__(self, entries: Sequence[LogEntry]) -> None:
        self.starts: list[int] = []
        at = 0
        for entry in entries:
            self.starts.append(at)
            at += len(entry.text) + len(TEXT_BREAK)
        self.joined = TEXT_BREAK.join(e.text for e in entries)

    def entry_at(self, offset: int) -> int:
        """The position of the entry whose text holds `offset` of `joined`."""
        return bisect_right(self.starts, offset) - 1


def newest_mentions(texts: EntryTexts, ids: Iterable[str]) -> dict[str, int]:
    """For each id, the position of the newest (last) entry whose text holds it as a
    substring. One Aho-Corasick pass over all the texts, not one search per id: a 100k-entry
    log and a 534-claim ledger took 100 s the naive way, 3 s one entry at a time."""
    wanted = {i for i in ids if i and TEXT_BREAK not in i}  # `TEXT_BREAK`: no text holds it
    found: dict[str, int] = {}
    if not wanted or not texts.joined:
        return found
    automaton = ahocorasick.Automaton()
    for i in wanted:
        automaton.add_word(i, i)
    automaton.make_automaton()
    for end, i in automaton.iter(texts.joined):  # in the text's order: the newest comes last
        found[i] = texts.entry_at(end)
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
    mentioned = newest_mentions(entries.texts, {c for r in records for c in r.claims})
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
    mentioned = newest_mentions(entries.texts, [c.id for c in claims])
    for claim in claims:
        entry = entries.entries[mentioned[claim.id]] if claim.id in mentioned else None
        if entry is None and claim.page:
            entry = entries.creator(claim.page)
        out.append(claim.model_copy(update={"introduced_by": entry.key if entry else None,
                                            "known": entry.date if entry else None}))
    return out
