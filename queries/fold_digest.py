"""The fold builder: log entries in, `FoldDigest` out. Pure and deterministic (no graph, no
clock), so the same entries always give the same digest, and a fold of two folds is the same
function applied to the union of their child entries (every statement stays traceable to a
leaf entry).

Rules (extractive: nothing is written that a child entry does not say):
- Page column: the entry's `Summary:` links, else `Pages created:`, else `Pages updated:`,
  else every link of the entry. Summary column: its `Key insight:` (block id removed), else the
  first sentence of its first prose bullet.
- Key outcomes: per entry, the sentence of its summary that states the most measured results
  (numbers with %, ×, 倍...), then the most figures; the 7 best such sentences (ties: older
  first), topped up to 3 with figure-less sentences of the oldest entries; oldest first.
- Themes: concepts that the `Summary:` pages of >= 2 entries are ABOUT (or are); an entry
  without a `Summary:` bullet supports no theme. Dominant
  themes: up to 3, picked greedily to cover the most entries (ties: more support, then name).
- Contradictions: dated by their introducing log entry, else by when both conflicting values
  were on record, else by the update date of the page that states them.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from loaders.links import find_links, mask_code
from loaders.text import fold_name, nfc
from queries.fold_models import (
    ChildEntry,
    ContradictionFacts,
    ContradictionItem,
    EntryFacts,
    FoldDigest,
    Outcome,
    PageRef,
    RelatedLink,
    Theme,
    Timing,
    TouchFacts,
)
from queries.fold_text import (
    ceil_log2,
    figure_count,
    measured_count,
    numbers,
    sentences,
    strip_block_id,
)

SUMMARY_LABELS = frozenset({"key insight", "key insights", "insight", "要点"})
PAGE_LABEL_GROUPS = (frozenset({"summary", "summaries"}),
                     frozenset({"pages created", "created"}),
                     frozenset({"pages updated", "updated"}))
LINK_LIST_LABELS = frozenset({
    "source", "sources", "summary", "summaries", "pages created", "created", "pages updated",
    "updated", "affiliation added", "developer added", "deferred", "pages consulted",
    "consulted", "claims", "range", "read budget", "location", "not changed", "still open"})
MAX_OUTCOMES = 7
MIN_OUTCOMES = 3
MAX_DOMINANT = 3
WORD = re.compile(r"\w")
TIMING_ORDER: dict[Timing, int] = {"earlier": 0, "in range": 1, "later": 2, "undated": 3}


class FoldError(ValueError):
    """Entries or folds that cannot make a fold (none at all, not adjacent, wrong level)."""


def fold_id_for(level: int, range_from: dt.date, range_to: dt.date, count: int) -> str:
    return f"fold-k{level}-from-{range_from.isoformat()}-to-{range_to.isoformat()}-n{count}"


def child_key(date: dt.date, position: int) -> str:
    return f"log-{date.strftime('%Y%m%d')}-{position:03d}"


# ---- one entry ---------------------------------------------------------------------------------

def _match(target: str, touches: Iterable[TouchFacts]) -> TouchFacts | None:
    """The touch a link target names: key or dangling name, alias, last path segment, folded."""
    name = nfc(target).strip()
    pool = list(touches)
    for rule in (lambda t: t.name == name, lambda t: name in t.aliases,
                 lambda t: t.name == name.rsplit("/", 1)[-1],
                 lambda t: fold_name(t.name) == fold_name(name)
                 or fold_name(name) in {fold_name(a) for a in t.aliases}):
        for touch in pool:
            if rule(touch):
                return touch
    return None


def _ref(touch: TouchFacts | None, target: str, as_of: dt.date | None) -> PageRef:
    if touch is None or touch.key is None:
        return PageRef(key=touch.name if touch else nfc(target).strip(), link=target,
                       state="missing")
    known = as_of is None or touch.created is None or touch.created <= as_of
    return PageRef(key=touch.key, link=target, state="present" if known else "missing",
                   kind=touch.kind)


def _bullet_refs(entry: EntryFacts, as_of: dt.date | None
                 ) -> list[tuple[str, list[tuple[PageRef, TouchFacts | None]]]]:
    """(label, [(ref, touch)]) per bullet and for the title, links in the order written."""
    out: list[tuple[str, list[tuple[PageRef, TouchFacts | None]]]] = []
    for label, text, line in ((b.label, b.text, b.line) for b in entry.bullets):
        refs: list[tuple[PageRef, TouchFacts | None]] = []
        for raw in find_links(mask_code(text)):
            if raw.embed:
                continue
            on_line = [t for t in entry.touches if t.line == line]
            touch = _match(raw.target, on_line) or _match(raw.target, entry.touches)
            if touch is None and "." in raw.target.rsplit("/", 1)[-1]:
                continue  # an attachment: the log does not touch it
            refs.append((_ref(touch, raw.target, as_of), touch))
        out.append((label.lower(), refs))
    title_refs: list[tuple[PageRef, TouchFacts | None]] = []
    for raw in find_links(entry.title):
        touch = _match(raw.target, entry.touches)
        if touch is not None:
            title_refs.append((_ref(touch, raw.target, as_of), touch))
    out.append(("title", title_refs))
    return out


def _dedupe(refs: Iterable[PageRef]) -> tuple[PageRef, ...]:
    seen: dict[str, PageRef] = {}
    for ref in refs:
        seen.setdefault(ref.key, ref)
    return tuple(seen.values())


def _summary(entry: EntryFacts) -> tuple[str, str]:
    for bullet in entry.bullets:
        if bullet.label.lower() in SUMMARY_LABELS and bullet.text.strip():
            return strip_block_id(bullet.text), bullet.label
    for bullet in entry.bullets:
        prose = re.sub(r"\[\[[^\]]*\]\]", "", bullet.text)
        if bullet.label.lower() not in LINK_LIST_LABELS and WORD.search(prose):
            first = sentences(strip_block_id(bullet.text))
            return (first[0] if first else strip_block_id(bullet.text)), bullet.label
    return entry.title, "title"


def child_entry(entry: EntryFacts, base_seq: int, as_of: dt.date | None) -> ChildEntry:
    """One log entry as a fold child (pure)."""
    bullets = _bullet_refs(entry, as_of)
    pages: list[tuple[PageRef, TouchFacts | None]] = []
    for group in PAGE_LABEL_GROUPS:
        pages = [pair for label, refs in bullets if label in group for pair in refs]
        if pages:
            break
    if not pages:
        pages = [pair for _, refs in bullets for pair in refs]
    about: list[str] = []
    for ref, touch in (pair for label, refs in bullets if label in PAGE_LABEL_GROUPS[0]
                       for pair in refs):
        if touch is None or ref.state != "present":
            continue
        if touch.kind == "Concept":
            about.append(touch.key or touch.name)
        about += [c.key for c in touch.about
                  if as_of is None or c.created is None or c.created <= as_of]
    summary, label = _summary(entry)
    return ChildEntry(
        child_key=child_key(entry.date, entry.seq - base_seq + 1), entry_key=entry.key,
        seq=entry.seq, date=entry.date, op=entry.op, title=entry.title,
        pages=_dedupe(ref for ref, _ in pages), summary=summary, summary_label=label,
        linked_pages=_dedupe(ref for _, refs in bullets for ref, _ in refs),
        about=tuple(dict.fromkeys(about)), text=_entry_text(entry))


def _entry_text(entry: EntryFacts) -> str:
    return "\n".join([entry.title, *(f"{b.label}: {b.text}" for b in entry.bullets)])


# ---- contradictions ----------------------------------------------------------------------------

def contradiction_date(x: ContradictionFacts) -> tuple[dt.date | None, str]:
    """When the vault first knew of it: its introducing entry; else, for conflicting claims,
    the day both values were on record (each value: its earliest dated statement); else the
    date its page was last updated (the text we hold is the text as of that date)."""
    if x.introduced is not None:
        return x.introduced, "introduced_by"
    if x.known is not None:
        return x.known, "claims"
    if x.claims:
        groups: dict[float | None, list[dt.date]] = {}
        for claim in x.claims:
            when = claim.introduced or claim.log_date or claim.page_updated or claim.page_created
            groups.setdefault(claim.value, [])
            if when is not None:
                groups[claim.value].append(when)
        if all(groups.values()):
            return max(min(dates) for dates in groups.values()), "claims"
    if x.page_updated is not None:
        return x.page_updated, "page updated"
    return None, "unknown"


def contradiction_item(x: ContradictionFacts) -> ContradictionItem:
    date, basis = contradiction_date(x)
    return ContradictionItem(
        id=x.id, kind=x.kind, status=x.status, origin=x.origin, summary=x.summary,
        subject=x.subject, pages=x.pages, introduced_by=x.introduced_by, date=date,
        date_basis=basis)


def _timing(date: dt.date | None, start: dt.date, end: dt.date) -> Timing:
    if date is None:
        return "undated"
    if date < start:
        return "earlier"
    return "in range" if date <= end else "later"


class _PagesIndex:
    """Page key -> positions of the children whose Page column (or links) hold it, built once
    per digest, so finding what a contradiction affects does not rescan every child."""

    def __init__(self, children: Sequence[ChildEntry]) -> None:
        self.keys = [c.child_key for c in children]
        self.listed: dict[str, list[int]] = {}
        self.linked: dict[str, list[int]] = {}
        for at, child in enumerate(children):
            for key in {r.key for r in child.pages}:
                self.listed.setdefault(key, []).append(at)
            for key in {r.key for r in child.linked_pages}:
                self.linked.setdefault(key, []).append(at)

    def hits(self, wanted: set[str], linked: bool) -> list[str]:
        """Child keys (in child order) whose pages meet `wanted`."""
        where = self.linked if linked else self.listed
        found = sorted({at for key in wanted for at in where.get(key, ())})
        return [self.keys[at] for at in found]


def _affects(item: ContradictionItem, index: _PagesIndex) -> tuple[str, ...]:
    """Child keys it bears on: entries whose Page column holds its subject, else that link its
    subject, else whose Page column or links hold one of its pages."""
    pages = set(item.pages)
    subject = {item.subject} if item.subject else set()
    for wanted, linked in ((subject, False), (subject, True), (pages, False), (pages, True)):
        hits = index.hits(wanted, linked)
        if hits:
            return tuple(hits)
    return ()


# ---- the digest --------------------------------------------------------------------------------

def _outcomes(children: Sequence[ChildEntry]) -> tuple[Outcome, ...]:
    scored: list[tuple[tuple[int, int], int, Outcome]] = []
    for child in children:
        if child.summary_label == "title":
            continue
        parts = sentences(child.summary) or [child.summary]
        best = max(parts, key=_weight)  # max keeps the first of equals
        scored.append((_weight(best), child.seq, Outcome(
            text=best, child_key=child.child_key, entry_key=child.entry_key,
            numbers=tuple(numbers(best)))))
    with_figures = sorted((s for s in scored if s[0][1] > 0),
                          key=lambda s: (-s[0][0], -s[0][1], s[1]))
    picked = with_figures[:MAX_OUTCOMES]
    for extra in sorted((s for s in scored if s[0][1] == 0), key=lambda s: s[1]):
        if len(picked) >= MIN_OUTCOMES:
            break
        picked.append(extra)
    return tuple(o for _, _, o in sorted(picked, key=lambda s: s[1]))


def _weight(sentence: str) -> tuple[int, int]:
    """Measured results first, then any figure."""
    return measured_count(sentence), figure_count(sentence)


def _themes(children: Sequence[ChildEntry]) -> tuple[tuple[Theme, ...], tuple[str, ...]]:
    support: dict[str, list[str]] = {}
    for child in children:
        for concept in child.about:
            support.setdefault(concept, []).append(child.child_key)
    themes = tuple(Theme(concept=k, support=tuple(v)) for k, v in
                   sorted(support.items(), key=lambda kv: (-len(kv[1]), kv[0])) if len(v) >= 2)
    covered: set[str] = set()
    dominant: list[str] = []
    pool = list(themes)
    while pool and len(dominant) < MAX_DOMINANT:
        best = min(pool, key=lambda t: (-len(set(t.support) - covered), -len(t.support),
                                        t.concept))
        if not set(best.support) - covered:
            break
        dominant.append(best.concept)
        covered |= set(best.support)
        pool.remove(best)
    return themes, tuple(dominant)


def _child_pages(children: Sequence[ChildEntry]) -> tuple[PageRef, ...]:
    newest_first = list(reversed(children))
    return _dedupe([r for c in newest_first for r in c.pages]
                   + [r for c in newest_first for r in c.linked_pages])


def assemble(children: Sequence[ChildEntry], items: Iterable[ContradictionItem], *,
             base_seq: int, as_of: dt.date | None, knowledge_date: dt.date, log_page: str,
             related: Sequence[RelatedLink], child_folds: Sequence[str] = ()) -> FoldDigest:
    """The digest of child entries already in fold form (oldest first)."""
    if not children:
        raise FoldError("no log entries to fold")
    start, end, count = children[0].date, children[-1].date, len(children)
    level = ceil_log2(count)
    kept = [i for i in items if as_of is None or (i.date is not None and i.date <= as_of)]
    dated = sorted(
        {i.id: i for i in kept}.values(),
        key=lambda i: (i.date is None, i.date or dt.date.min, i.id))
    index = _PagesIndex(children)
    contradictions = tuple(
        i.model_copy(update={"timing": _timing(i.date, start, end),
                             "affects": _affects(i, index)}) for i in dated)
    themes, dominant = _themes(children)
    return FoldDigest(
        fold_id=fold_id_for(level, start, end, count),
        title=f"Fold k{level} from {start.isoformat()} to {end.isoformat()}, n={count}",
        level=level, entry_count=count, range_from=start, range_to=end, as_of=as_of,
        knowledge_date=knowledge_date, base_seq=base_seq, log_page=log_page,
        children=tuple(children), outcomes=_outcomes(children), themes=themes,
        dominant_themes=dominant, contradictions=contradictions,
        child_pages=_child_pages(children), related=tuple(related),
        child_folds=tuple(child_folds))


def build_digest(entries: Sequence[EntryFacts], *, base_seq: int,
                 contradictions: Sequence[ContradictionFacts] = (),
                 as_of: dt.date | None = None, knowledge_date: dt.date | None = None,
                 log_page: str = "log", related: Sequence[RelatedLink] = ()) -> FoldDigest:
    """The digest of leaf log entries. `base_seq` is the seq of the first log entry dated like
    the oldest entry (child keys count positions from it)."""
    ordered = sorted(entries, key=lambda e: e.seq)
    if not ordered:
        raise FoldError("no log entries to fold")
    children = [child_entry(e, base_seq, as_of) for e in ordered]
    return assemble(children, (contradiction_item(x) for x in contradictions),
                    base_seq=base_seq, as_of=as_of,
                    knowledge_date=knowledge_date or as_of or ordered[-1].date,
                    log_page=log_page, related=related)


def fold_of_folds(left: FoldDigest, right: FoldDigest) -> FoldDigest:
    """A level K+1 digest from two adjacent level-K digests of 2^K entries each."""
    if left.range_from > right.range_from:
        left, right = right, left
    for fold in (left, right):
        if fold.level != left.level or fold.entry_count != 2 ** fold.level:
            raise FoldError(f"{fold.fold_id} is not a full level-{left.level} fold "
                            f"(needs {2 ** left.level} entries)")
    if left.children[-1].seq + 1 != right.children[0].seq:
        raise FoldError(f"{left.fold_id} and {right.fold_id} are not adjacent: log entries "
                        f"{left.children[-1].entry_key} and {right.children[0].entry_key} "
                        "do not follow each other")
    if left.as_of != right.as_of:
        raise FoldError("both folds must be built as of the same date")
    base = left.base_seq
    children = [c.model_copy(update={"child_key": child_key(c.date, c.seq - base + 1)})
                for c in (*left.children, *right.children)]
    related = [r for r in left.related if r.target not in (left.fold_id, right.fold_id)]
    related += [RelatedLink(target=f.fold_id, note=f"child fold (level {f.level})")
                for f in (left, right)]
    return assemble(children, (*left.contradictions, *right.contradictions), base_seq=base,
                    as_of=left.as_of,
                    knowledge_date=max(left.knowledge_date, right.knowledge_date),
                    log_page=left.log_page, related=related,
                    child_folds=(left.fold_id, right.fold_id))
