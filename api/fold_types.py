"""GraphQL types of the fold resolver: a `FoldDigest` (the extractive digest of a log range,
with its rendered markdown) and a `FoldCheck`. Built from queries/fold_models.py; links to
pages, log entries and contradictions resolve through the request's loaders."""

from __future__ import annotations

import datetime as dt

import strawberry

from api.decorators import described
from api.types import Ctx, LogEntry, Page, entry_by_key, page_by_key
from queries import fold_models as m
from queries.fold_render import render


@strawberry.type(description="A page a fold's child entry links, as the log wrote it.")
class FoldPageRef:
    key: str = strawberry.field(description="Page key, or the unresolved name.")
    link: str = strawberry.field(description="The link target as written in the log.")
    state: str = strawberry.field(description="`present` or `missing` (as of the digest).")
    kind: str | None

    @described("The page (null for a missing page).")
    async def page(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.key) if self.state == "present" else None


@strawberry.type(description="One leaf log entry of a fold.")
class FoldChildEntry:
    child_key: str = strawberry.field(
        description="`log-YYYYMMDD-NNN`: position within the fold's date range, oldest first.")
    entry_key: str
    seq: int
    date: dt.date
    op: str
    title: str
    pages: list[FoldPageRef] = strawberry.field(description="The Page column.")
    summary: str = strawberry.field(description="Extractive summary taken from the entry.")
    summary_label: str
    linked_pages: list[FoldPageRef]
    about: list[str] = strawberry.field(description="Concepts its Summary pages are about.")

    @described("The log entry itself.")
    async def entry(self, info: Ctx) -> LogEntry | None:
        return await entry_by_key(info, self.entry_key)


@strawberry.type(description="An extractive sentence of one child entry.")
class FoldOutcome:
    text: str
    child_key: str
    entry_key: str
    numbers: list[str]


@strawberry.type(description="A concept the Summary pages of at least two child entries are "
                             "about.")
class FoldTheme:
    concept: str
    support: list[str] = strawberry.field(description="Child keys, oldest first.")


@strawberry.type(description="A contradiction or correction touching the fold's entries or "
                             "pages, and when the vault learned of it.")
class FoldContradiction:
    id: str
    kind: str
    status: str
    origin: str
    summary: str
    subject: str | None
    pages: list[str]
    introduced_by: str | None
    date: dt.date | None
    date_basis: str
    timing: str = strawberry.field(description="`earlier`, `in range`, `later` or `undated`.")
    affects: list[str] = strawberry.field(description="Child keys it bears on.")


@strawberry.type
class FoldRelated:
    target: str
    note: str


@strawberry.type(description="The extractive digest of the log entries of a range.")
class FoldDigest:
    fold_id: str
    title: str
    level: int
    entry_count: int
    range_from: dt.date
    range_to: dt.date
    as_of: dt.date | None
    knowledge_date: dt.date
    child_keys: list[str]
    children: list[FoldChildEntry] = strawberry.field(description="Oldest first.")
    outcomes: list[FoldOutcome]
    themes: list[FoldTheme]
    dominant_themes: list[str]
    contradictions: list[FoldContradiction]
    child_pages: list[FoldPageRef]
    related: list[FoldRelated]
    child_folds: list[str]
    markdown: str = strawberry.field(description="The fold page (fold template layout).")


@strawberry.type
class FoldCheckResult:
    name: str
    ok: bool
    problems: list[str]


@strawberry.type(description="The fold template's checks on one fold page.")
class FoldCheck:
    fold_id: str | None
    ok: bool
    checks: list[FoldCheckResult]
    warnings: list[str]


def _ref(r: m.PageRef) -> FoldPageRef:
    return FoldPageRef(key=r.key, link=r.link, state=r.state, kind=r.kind)


def fold_digest(d: m.FoldDigest) -> FoldDigest:
    """The GraphQL form of a digest (markdown rendered once, here)."""
    return FoldDigest(
        fold_id=d.fold_id, title=d.title, level=d.level, entry_count=d.entry_count,
        range_from=d.range_from, range_to=d.range_to, as_of=d.as_of,
        knowledge_date=d.knowledge_date, child_keys=d.child_keys,
        children=[FoldChildEntry(
            child_key=c.child_key, entry_key=c.entry_key, seq=c.seq, date=c.date, op=c.op,
            title=c.title, pages=[_ref(r) for r in c.pages], summary=c.summary,
            summary_label=c.summary_label, linked_pages=[_ref(r) for r in c.linked_pages],
            about=list(c.about)) for c in d.children],
        outcomes=[FoldOutcome(text=o.text, child_key=o.child_key, entry_key=o.entry_key,
                              numbers=list(o.numbers)) for o in d.outcomes],
        themes=[FoldTheme(concept=t.concept, support=list(t.support)) for t in d.themes],
        dominant_themes=list(d.dominant_themes),
        contradictions=[FoldContradiction(
            id=x.id, kind=x.kind, status=x.status, origin=x.origin, summary=x.summary,
            subject=x.subject, pages=list(x.pages), introduced_by=x.introduced_by, date=x.date,
            date_basis=x.date_basis, timing=x.timing, affects=list(x.affects))
            for x in d.contradictions],
        child_pages=[_ref(r) for r in d.child_pages],
        related=[FoldRelated(target=r.target, note=r.note) for r in d.related],
        child_folds=list(d.child_folds), markdown=render(d))


def fold_check(c: m.FoldCheck) -> FoldCheck:
    return FoldCheck(fold_id=c.fold_id, ok=c.ok, warnings=list(c.warnings), checks=[
        FoldCheckResult(name=r.name, ok=r.ok, problems=list(r.problems)) for r in c.checks])


def size(d: m.FoldDigest) -> int:
    """Objects a digest puts into a response (for the request budget)."""
    return (len(d.children) + sum(len(c.linked_pages) for c in d.children) + len(d.outcomes)
            + len(d.themes) + len(d.contradictions) + len(d.child_pages))
