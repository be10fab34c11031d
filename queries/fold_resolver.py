"""The fold resolver: graph reads (queries/folds.py) + the pure builder (fold_digest.py). What
the CLI and the GraphQL API call: a digest for a date range, for the 2^K entries ending at a
date, for an existing fold id, or for two adjacent folds; and the graph-backed check of a fold
page. Builder errors become BadUserInput / NotFound here."""

from __future__ import annotations

import datetime as dt
import re

from loaders.errors import BadUserInput, NotFound
from queries import folds as q
from queries.base import GraphContext
from queries.fold_check import FOLD_ID, CheckContext, check_fold, link_names, parse_fold
from queries.fold_digest import (
    FoldError,
    assemble,
    child_entry,
    contradiction_item,
    fold_of_folds,
)
from queries.fold_models import EntryFacts, FoldCheck, FoldDigest, FoldSummary, RelatedLink
from queries.fold_text import ceil_log2

MAX_LEVEL = 20
FOLD_KEY = re.compile(r"^log-\d{8}-(\d+)$")
# Pages that list everything (log, index, hub pages) or restate the log (folds) do not make a
# contradiction "touch" the range.
NOT_TOUCHING_KINDS = frozenset({"Meta", "Fold"})


def _related(ctx: GraphContext, log_page: str) -> list[RelatedLink]:
    wanted = [("DragonScale Memory", "fold-operator spec"), (log_page, "source entries"),
              ("index", "vault catalog")]
    names = q.resolve_names(ctx, [name for name, _ in wanted])
    return [RelatedLink(target=key, note=note) for name, note in wanted
            if (key := names.get(name)) is not None]


def digest_of_entries(ctx: GraphContext, entries: list[EntryFacts],
                      as_of: dt.date | None = None) -> FoldDigest:
    """The digest of these leaf entries, with the contradictions that touch them."""
    if not entries:
        raise NotFound("no log entries to fold" + (f" as of {as_of}" if as_of else ""))
    entries = sorted(entries, key=lambda e: e.seq)
    base = q.base_seq(ctx, entries[0].date)
    latest, log_page, _ = q.log_facts(ctx)
    children = [child_entry(e, base, as_of) for e in entries]
    pages = sorted({r.key for c in children for r in c.linked_pages
                    if r.state == "present" and r.kind not in NOT_TOUCHING_KINDS})
    facts = q.contradictions_touching(ctx, [e.key for e in entries], pages)
    try:
        return assemble(children, [contradiction_item(x) for x in facts], base_seq=base,
                        as_of=as_of, knowledge_date=as_of or latest or entries[-1].date,
                        log_page=log_page, related=_related(ctx, log_page))
    except FoldError as exc:
        raise BadUserInput(str(exc)) from None


def fold_range(ctx: GraphContext, date_from: dt.date, date_to: dt.date,
               as_of: dt.date | None = None) -> FoldDigest:
    """Digest of every log entry dated date_from..date_to (known as of `as_of`)."""
    if date_from > date_to:
        raise BadUserInput(f"--from {date_from} is after --to {date_to}")
    entries = q.entries_in_range(ctx, date_from, date_to, as_of)
    if not entries:
        raise NotFound(f"no log entries dated {date_from}..{date_to}"
                       + (f" as of {as_of}" if as_of else ""))
    return digest_of_entries(ctx, entries, as_of)


def fold_ending(ctx: GraphContext, level: int, ending: dt.date,
                as_of: dt.date | None = None) -> FoldDigest:
    """Digest of the 2^level log entries that end with the last one dated on or before
    `ending`. A partial batch is refused, as the fold template asks."""
    if not 0 <= level <= MAX_LEVEL:
        raise BadUserInput(f"level must be between 0 and {MAX_LEVEL}, not {level}")
    count = 2 ** level
    entries = q.entries_ending(ctx, count, ending, as_of)
    if len(entries) < count:
        raise BadUserInput(f"a level-{level} fold needs {count} log entries; only "
                           f"{len(entries)} are dated on or before {ending}")
    return digest_of_entries(ctx, entries, as_of)


def fold_by_id(ctx: GraphContext, fold_id: str, as_of: dt.date | None = None) -> FoldDigest:
    """The digest of an existing fold: the entries its Fold node FOLDS, else the entries its
    fold_id names (its date range, which must hold exactly n entries)."""
    keys = q.fold_entry_keys(ctx, fold_id)
    if not keys:
        match = FOLD_ID.match(fold_id)
        if match is None:
            raise BadUserInput(f"{fold_id!r} is not a fold id (fold-kK-from-D-to-D-nN)")
        level, start, end, count = (int(match.group(1)), dt.date.fromisoformat(match.group(2)),
                                    dt.date.fromisoformat(match.group(3)), int(match.group(4)))
        keys = q.range_keys(ctx, start, end)
        if len(keys) != count or ceil_log2(count) != level:
            raise NotFound(f"no Fold node {fold_id}, and its range holds {len(keys)} log "
                           f"entries, not {count}")
    return digest_of_entries(ctx, q.entries_by_keys(ctx, keys, as_of), as_of)


def fold_of_fold_ids(ctx: GraphContext, left: str, right: str,
                     as_of: dt.date | None = None) -> FoldDigest:
    """A level K+1 digest from two adjacent level-K folds, by fold id."""
    try:
        return fold_of_folds(fold_by_id(ctx, left, as_of), fold_by_id(ctx, right, as_of))
    except FoldError as exc:
        raise BadUserInput(str(exc)) from None


def folds(ctx: GraphContext, level: int | None = None) -> list[FoldSummary]:
    """The Fold nodes of the graph (of one level)."""
    return q.list_folds(ctx, level)


def check_context(ctx: GraphContext, text: str, path: str = "fold.md") -> CheckContext:
    """The graph's view of the entries a fold page declares, and of every name it links."""
    parsed = parse_fold(text, path)
    front = parsed.front
    declared = front.get("child_keys") if isinstance(front.get("child_keys"), list) else []
    as_of = _date(front.get("as_of"))
    start, end = _date(front.get("range_from")), _date(front.get("range_to"))
    children = {}
    if start and end and start <= end and declared:
        in_range = q.range_keys(ctx, start, end)
        wanted: list[str] = []
        for key in declared:
            match = FOLD_KEY.match(str(key))
            if match and 1 <= int(match.group(1)) <= len(in_range):
                wanted.append(in_range[int(match.group(1)) - 1])
        entries = q.entries_by_keys(ctx, sorted(set(wanted)), None)
        base = q.base_seq(ctx, start)
        for entry in entries:
            child = child_entry(entry, base, as_of)
            children[child.child_key] = child
    return CheckContext(children=children, names=q.resolve_names(ctx, link_names(text)))


def check_markdown(ctx: GraphContext, text: str, path: str | None = None) -> FoldCheck:
    """Every check of the fold template, against the graph's log."""
    return check_fold(text, path, check_context(ctx, text, path or "fold.md"))


def _date(value: object) -> dt.date | None:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip()) if value else None
    except ValueError:
        return None

