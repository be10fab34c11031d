"""GraphQL output types. They wrap the pydantic records of `queries/`; every field that needs
more data goes through a per-request DataLoader, so a list of N objects costs one round trip
per relation asked for, not N."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
from collections.abc import Iterable
from enum import Enum
from typing import TypedDict, TypeVar, cast

import strawberry
from strawberry.types import Info

from api.context import ApiContext
from api.decorators import described, named, pure_field
from loaders.errors import BadUserInput
from loaders.records import LineageRelation, PageKind
from queries import contradictions as cq
from queries import lineage as lq
from queries import log as logq
from queries.common import PageRecord
from queries.pages import Relation

Ctx = Info[ApiContext, None]
T = TypeVar("T")

# The loaders' enums are the GraphQL enums (registered here, used as annotations everywhere).
strawberry.enum(PageKind, description="The typed label a page has besides Page.")
strawberry.enum(LineageRelation, description="Typed lineage edges, child -> parent.")


# -- global ids ------------------------------------------------------------------------------


def global_id(kind: str, key: str) -> strawberry.ID:
    """Opaque Relay id: base64url of `Kind:key` (all pages share the kind `Page`)."""
    return strawberry.ID(base64.urlsafe_b64encode(f"{kind}:{key}".encode()).decode())


def parse_global_id(value: str) -> tuple[str, str]:
    try:
        kind, _, key = base64.urlsafe_b64decode(value.encode()).decode().partition(":")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadUserInput(f"{value!r} is not an id this API returned") from None
    if not key:
        raise BadUserInput(f"{value!r} is not an id this API returned")
    return kind, key


@strawberry.interface(description="An object with a global id (Relay).")
class Node:
    id: strawberry.ID


# -- pages -------------------------------------------------------------------------------------


@strawberry.interface(name="Page", description="One markdown page (or the claim ledger).")
class Page(Node):
    key: str = strawberry.field(description="The file stem, Obsidian's name for the page.")
    title: str
    kind: PageKind
    path: str | None
    aliases: list[str]
    tags: list[str]
    status: str | None
    created: dt.date | None
    updated: dt.date | None
    link_count: int
    dangling_count: int = strawberry.field(description="Links that resolve to no page.")
    dangling: list[str] = strawberry.field(description="Names of the unresolved links.")

    @described("Markdown without frontmatter.")
    async def body(self, info: Ctx) -> str:
        return await info.context.loaders.bodies.load(self.key)

    @described("Pages this page links to (distinct, in link order).")
    async def links_to(self, info: Ctx) -> list[Page]:
        return await _related(info, Relation.LINKS_TO, self.key)

    @described("Pages that link to this page.")
    async def linked_from(self, info: Ctx) -> list[Page]:
        return await _related(info, Relation.LINKED_FROM, self.key)

    @described("Log entries that name this page, oldest first.")
    async def history(self, info: Ctx) -> list[PageHistoryEntry]:
        items = await info.context.loaders.history.load(self.key)
        info.context.spend(len(items))
        return [PageHistoryEntry(entry=log_entry(i.entry), role=i.role, line=i.line)
                for i in items]


@strawberry.interface(description="A source: a paper, slides, a book...")
class Work(Page):
    year: int | None
    url: str | None
    date_published: dt.date | None
    source_type: str | None

    @strawberry.field
    async def venue(self, info: Ctx) -> Venue | None:
        name = await info.context.loaders.venue_of.load(self.key)
        return Venue(id=global_id("Venue", name), name=name) if name else None

    @described("Authors with pages, in paper order.")
    async def authors(self, info: Ctx) -> list[Person]:
        return _only(await _related(info, Relation.AUTHORS, self.key), Person)

    @described("Concepts from the work's `related:`.")
    async def concepts(self, info: Ctx) -> list[Concept]:
        return _only(await _related(info, Relation.CONCEPTS, self.key), Concept)

    @described("Direct lineage edges to the works this one builds on.")
    async def builds_on(self, info: Ctx) -> list[LineageEdge]:
        edges = await info.context.loaders.parents.load(self.key)
        return lineage_edges(info, edges)

    @described("Direct lineage edges from the works that build on this one.")
    async def built_upon_by(self, info: Ctx) -> list[LineageEdge]:
        edges = await info.context.loaders.children.load(self.key)
        return lineage_edges(info, edges)


@strawberry.type
class Paper(Work):
    pass


@strawberry.type(description="A source that is not a paper (slides, books, talks...).")
class Source(Work):
    pass


@strawberry.type
class Person(Page):
    @described("Organizations from the person's `affiliation:`.")
    async def affiliations(self, info: Ctx) -> list[Organization]:
        return _only(await _related(info, Relation.AFFILIATIONS, self.key), Organization)

    @described("Works that list this person in `authors:`, by year.")
    async def works(self, info: Ctx) -> list[Work]:
        return _only(await _related(info, Relation.PAPERS_AUTHORED, self.key), Work)


@strawberry.type
class Organization(Page):
    @described("Organizations this one is `part_of`.")
    async def part_of(self, info: Ctx) -> list[Organization]:
        return _only(await _related(info, Relation.PART_OF, self.key), Organization)

    @described("Organizations that are `part_of` this one.")
    async def parts(self, info: Ctx) -> list[Organization]:
        return _only(await _related(info, Relation.PARTS, self.key), Organization)

    @described("People affiliated with this organization.")
    async def members(self, info: Ctx) -> list[Person]:
        return _only(await _related(info, Relation.MEMBERS, self.key), Person)

    @described("Products this organization develops.")
    async def products(self, info: Ctx) -> list[Product]:
        return _only(await _related(info, Relation.DEVELOPED, self.key), Product)


@strawberry.type
class Product(Page):
    @described("Organizations or people from the product's `developer:`.")
    async def developers(self, info: Ctx) -> list[Page]:
        return await _related(info, Relation.DEVELOPERS, self.key)


@strawberry.type
class Concept(Page):
    @described("Works on this concept (their `related:` or the concept's "
                                  "`sources:`), oldest first.")
    async def works(self, info: Ctx) -> list[Work]:
        return _only(await _related(info, Relation.WORKS, self.key), Work)


@strawberry.type(description="A fold page: an extractive summary of 2^k log entries.")
class Fold(Page):
    fold_id: str | None
    level: int | None
    entry_count: int | None
    range_from: dt.date | None
    range_to: dt.date | None
    child_keys: list[str]

    @described("The log entries this fold folds, in fold order.")
    async def entries(self, info: Ctx) -> list[LogEntry]:
        entries = await info.context.loaders.fold_entries.load(self.key)
        info.context.spend(len(entries))
        return [log_entry(e) for e in entries]


@strawberry.type(description="Any other page (meta pages such as the log, plain notes).")
class Note(Page):
    pass


WORK_KINDS = {PageKind.PAPER: Paper, PageKind.SOURCE: Source}
SIMPLE_KINDS: dict[PageKind, type[Person | Organization | Product | Concept | Note]] = {
    PageKind.PERSON: Person, PageKind.ORGANIZATION: Organization,
    PageKind.PRODUCT: Product, PageKind.CONCEPT: Concept,
}


class _PageFields(TypedDict):
    id: strawberry.ID
    key: str
    title: str
    kind: PageKind
    path: str | None
    aliases: list[str]
    tags: list[str]
    status: str | None
    created: dt.date | None
    updated: dt.date | None
    link_count: int
    dangling_count: int
    dangling: list[str]


def page(rec: PageRecord) -> Page:
    """The concrete GraphQL type for a page record, chosen by its kind."""
    try:
        kind = PageKind(rec.kind)
    except ValueError:
        kind = PageKind.NOTE
    common = _PageFields(
        id=global_id("Page", rec.key), key=rec.key, title=rec.title or rec.key, kind=kind,
        path=rec.path, aliases=rec.aliases, tags=rec.tags, status=rec.status,
        created=rec.created, updated=rec.updated, link_count=rec.link_count,
        dangling_count=rec.dangling_count, dangling=rec.dangling)
    if kind in WORK_KINDS:
        return WORK_KINDS[kind](**common, year=rec.year, url=rec.url or None,
                                date_published=rec.date_published,
                                source_type=rec.source_type)
    if kind is PageKind.FOLD:
        return Fold(**common, fold_id=rec.fold_id, level=rec.level,
                    entry_count=rec.entry_count, range_from=rec.range_from,
                    range_to=rec.range_to, child_keys=rec.child_keys)
    return SIMPLE_KINDS.get(kind, Note)(**common)


def _only(pages: Iterable[Page], cls: type[T]) -> list[T]:
    return [p for p in pages if isinstance(p, cls)]


async def _related(info: Ctx, relation: Relation, key: str) -> list[Page]:
    records = await info.context.loaders.related(relation).load(key)
    info.context.spend(len(records))
    return [page(r) for r in records]


async def page_by_key(info: Ctx, key: str | None) -> Page | None:
    if not key:
        return None
    rec = await info.context.loaders.pages.load(key)
    return page(rec) if rec else None


@strawberry.type(description="A publication venue (conference, journal, arXiv...).")
class Venue(Node):
    name: str

    @described("Works published there, by year.")
    async def works(self, info: Ctx) -> list[Work]:
        records = await info.context.loaders.venue_papers.load(self.name)
        info.context.spend(len(records))
        return _only((page(r) for r in records), Work)


# -- log ---------------------------------------------------------------------------------------


@strawberry.type
class LogBullet:
    label: str
    text: str
    line: int | None


@strawberry.type(description="A page (or unresolved name) a log entry names, and why.")
class LogTouch:
    role: str
    line: int | None
    name: str
    page_key: str | None

    @strawberry.field
    async def page(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.page_key)


@strawberry.type(description="One entry of the append-only log.")
class LogEntry(Node):
    key: str = strawberry.field(description="`log/YYYY-MM-DD/NN`, NN = ordinal on that day.")
    date: dt.date | None
    op: str | None
    title: str | None
    line: int | None = strawberry.field(description="Line of the entry in log.md.")
    seq: int | None = strawberry.field(description="Chronological position, 1 = oldest.")
    day_seq: int | None
    text: str | None
    bullets: list[LogBullet]
    block_ids: list[str]

    @described("Pages the entry names, with their roles.")
    async def touches(self, info: Ctx) -> list[LogTouch]:
        items = await info.context.loaders.touches.load(self.key)
        info.context.spend(len(items))
        return [LogTouch(role=t.role, line=t.line, name=t.name, page_key=t.page)
                for t in items]


def log_entry(rec: logq.LogEntryRecord) -> LogEntry:
    return LogEntry(
        id=global_id("LogEntry", rec.key), key=rec.key, date=rec.date, op=rec.op,
        title=rec.title, line=rec.line, seq=rec.seq, day_seq=rec.day_seq, text=rec.text,
        bullets=[LogBullet(label=b.label, text=b.text, line=b.line) for b in rec.bullets],
        block_ids=rec.block_ids)


async def entry_by_key(info: Ctx, key: str | None) -> LogEntry | None:
    if not key:
        return None
    rec = await info.context.loaders.log_entries.load(key)
    return log_entry(rec) if rec else None


@strawberry.type(description="A log entry that names a page, and the role it gives it.")
class PageHistoryEntry:
    entry: LogEntry
    role: str
    line: int | None


# -- lineage -----------------------------------------------------------------------------------


@strawberry.type(description="One assertion of a lineage edge: where and how it was said.")
class Provenance:
    page_key: str | None
    line: int | None
    mechanism: str | None = strawberry.field(
        description="frontmatter, inline-line, inline-bracket, arrow, prose or comparison.")
    text: str | None
    introduced_by_key: str | None

    @described("The page that asserts the edge.")
    async def page(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.page_key)

    @described("The log entry that introduced the assertion.")
    async def log_entry(self, info: Ctx) -> LogEntry | None:
        return await entry_by_key(info, self.introduced_by_key)


@strawberry.type(description="A typed lineage edge child -> parent with every assertion.")
class LineageEdge:
    relation: LineageRelation
    child_key: str
    parent_key: str
    provenance: list[Provenance]

    @described("The work that builds on `parent`.")
    async def child(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.child_key)

    @described("The earlier work.")
    async def parent(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.parent_key)


def lineage_edges(info: Ctx, edges: list[lq.LineageEdgeRecord]) -> list[LineageEdge]:
    info.context.spend(len(edges))
    return [LineageEdge(
        relation=LineageRelation(e.relation), child_key=e.child, parent_key=e.parent,
        provenance=[Provenance(page_key=p.page, line=p.line, mechanism=p.mechanism,
                               text=p.text, introduced_by_key=p.introduced_by)
                    for p in e.provenance]) for e in edges]


@strawberry.enum
class LineageSide(Enum):
    ROOT = "root"
    ANCESTOR = "ancestor"
    DESCENDANT = "descendant"


@strawberry.type
class LineageNode:
    page: Page
    depth: int = strawberry.field(description="Fewest edges from the root (0 = the root).")
    side: LineageSide


@strawberry.type(description="A work's lineage: nodes by year, typed edges with provenance.")
class Lineage:
    root: Page
    nodes: list[LineageNode]
    edges: list[LineageEdge]
    truncated: bool = strawberry.field(description="maxDepth cut off works further away.")


@strawberry.type
class LineagePath:
    nodes: list[Page] = strawberry.field(description="From `from` to `to`.")
    edges: list[LineageEdge] = strawberry.field(description="edges[i] joins nodes[i], [i+1].")

    @pure_field()
    def length(self) -> int:
        return len(self.edges)


@strawberry.type
class LineagePaths:
    source: Page = strawberry.field(name="from")
    target: Page = strawberry.field(name="to")
    from_is_ancestor: bool | None = strawberry.field(
        description="true: `from` is an ancestor of `to`; false: a descendant; null: no path.")
    paths: list[LineagePath] = strawberry.field(description="Shortest first.")
    truncated: bool


@strawberry.type(description="A work on a concept, for a timeline.")
class TimelineEntry:
    work: Page
    year: int | None
    via: list[str] = strawberry.field(
        description="`related` (the work's related:) and/or `sources` (the concept's sources:).")


# -- contradictions ----------------------------------------------------------------------------


@strawberry.type(description="A statement that can be true or false, and where it was made.")
class Claim(Node):
    claim_id: str
    text: str | None
    origin: str | None = strawberry.field(description="ledger or numeric (auto-extracted).")
    line: int | None
    metric: str | None
    value: float | None
    unit: str | None
    qualifiers: list[str] = strawberry.field(
        description="Model variants the statement names (GPT-175B, H100...).")
    assessment: str | None
    page_key: str | None
    subject_key: str | None
    introduced_by_key: str | None
    known: dt.date | None = strawberry.field(description=(
        "Since when the vault has it on record: its introducing log entry's date, else that "
        "of the log entry holding its line, else (numeric claims) its page's updated or "
        "created date."))

    @described("The page the claim is stated in.")
    async def page(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.page_key)

    @described("The page the claim is about.")
    async def subject(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.subject_key)

    @strawberry.field
    async def introduced_by(self, info: Ctx) -> LogEntry | None:
        return await entry_by_key(info, self.introduced_by_key)


def claim(rec: cq.ClaimRecord) -> Claim:
    return Claim(id=global_id("Claim", rec.id), claim_id=rec.id, text=rec.text,
                 origin=rec.origin, line=rec.line, metric=rec.metric, value=rec.value,
                 unit=rec.unit, qualifiers=rec.qualifiers, assessment=rec.assessment,
                 page_key=rec.page, subject_key=rec.subject,
                 introduced_by_key=rec.introduced_by, known=rec.known)


@strawberry.type(description="One evidence line: `source` is a page key or a vault path.")
class Evidence:
    """Served from the query's `EvidenceLine` records as they are, whose attributes these are
    (`page` is the field `source`): a hub subject's contradictions hold ~9,500 lines, and an
    API object built per line took ~6 ms of such a request (`evidence_of`)."""

    page: str | None = strawberry.field(name="source")
    line: int | None
    text: str

    @named("page")
    async def source_page(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.page)


def evidence_of(lines: list[cq.EvidenceLine]) -> list[Evidence]:
    """`lines` served as Evidence: the schema reads the same attributes from either."""
    return cast(list[Evidence], lines)


@strawberry.enum
class ContradictionStatus(Enum):
    OPEN = "open"
    RESOLVED = "resolved"


@strawberry.enum
class ContradictionKind(Enum):
    EXPLICIT = "explicit"
    DETECTED = "detected"


@strawberry.type(description="Claims that disagree, with evidence and how it was found.")
class Contradiction(Node):
    contradiction_id: str
    kind: ContradictionKind
    status: ContradictionStatus
    found_by: str = strawberry.field(
        description="callout, ledger, lint, fold, frontmatter or numeric (auto-detected).")
    summary: str | None
    line: int | None
    marked: bool | None = strawberry.field(
        description="Detected ones: an explicit contradiction shares the subject.")
    known: dt.date | None = strawberry.field(description=(
        "Detected ones: the day every disagreeing value was on record (each value from its "
        "earliest statement)."))
    evidence_count: int = strawberry.field(description=(
        "How many evidence lines there are (`evidence(first:)` may show fewer)."))
    page_count: int = strawberry.field(description=(
        "How many pages are involved (`pageKeys(first:)` and `pages(first:)` may show fewer)."))
    page_key: str | None
    subject_key: str | None
    introduced_by_key: str | None
    page_key_list: strawberry.Private[list[str]]
    evidence_lines: strawberry.Private[list[cq.EvidenceLine]]
    fetched_claims: strawberry.Private[list[cq.ClaimRecord] | None] = None

    @pure_field("The evidence lines, in order; the first `first` of them when given (a "
                "conflict about a popular concept has hundreds).")
    def evidence(self, first: int | None = None) -> list[Evidence]:
        return evidence_of(_first(self.evidence_lines, first, "evidence"))

    @pure_field("The keys of every page involved; the first `first` of them when given (a "
                "conflict about a popular concept involves hundreds).")
    def page_keys(self, first: int | None = None) -> list[str]:
        return _first(self.page_key_list, first, "pageKeys")

    @described("The claims that disagree, each with its value.")
    async def claims(self, info: Ctx) -> list[Claim]:
        records = self.fetched_claims
        if records is None:
            records = await info.context.loaders.contradiction_claims.load(
                self.contradiction_id)
        info.context.spend(len(records))
        return [claim(c) for c in records]

    @described("The page that states the contradiction.")
    async def page(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.page_key)

    @strawberry.field
    async def subject(self, info: Ctx) -> Page | None:
        return await page_by_key(info, self.subject_key)

    @described("Every page involved; the first `first` of them when given.")
    async def pages(self, info: Ctx, first: int | None = None) -> list[Page]:
        keys = _first(self.page_key_list, first, "pages")
        info.context.spend(len(keys))
        found = await info.context.loaders.pages.load_many(keys)
        return [page(r) for r in found if r is not None]

    @strawberry.field
    async def introduced_by(self, info: Ctx) -> LogEntry | None:
        return await entry_by_key(info, self.introduced_by_key)


def _first(items: list[T], first: int | None, field: str) -> list[T]:
    """The items a field's `first:` shows (None: all); a negative one is the client's error."""
    if first is None:
        return items
    if first < 0:
        raise BadUserInput(f"{field}(first:) cannot be negative")
    return items[:first]


def contradiction(rec: cq.ContradictionRecord) -> Contradiction:
    return Contradiction(
        id=global_id("Contradiction", rec.id), contradiction_id=rec.id,
        kind=ContradictionKind(rec.kind), status=ContradictionStatus(rec.status),
        found_by=rec.origin, summary=rec.summary, line=rec.line, marked=rec.marked,
        known=rec.known, fetched_claims=rec.claims,
        evidence_lines=rec.evidence,
        evidence_count=rec.evidence_count, page_count=rec.page_count,
        page_key=rec.page, subject_key=rec.subject, page_key_list=rec.pages,
        introduced_by_key=rec.introduced_by)


# -- search ------------------------------------------------------------------------------------


@strawberry.type
class SearchHit:
    page: Page
    score: float
    name_match: bool = strawberry.field(description="The text is the page's key, title or "
                                                    "an alias.")
    snippet: str | None


# Types only reachable through interfaces must be listed for the schema.
CONCRETE_TYPES: tuple[type, ...] = (Paper, Source, Person, Organization, Product, Concept,
                                    Fold, Note, Venue, LogEntry, Claim, Contradiction)

