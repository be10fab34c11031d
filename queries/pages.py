"""Page reads: lookup by key/title/alias, Dataview-style filtered and sorted lists with keyset
cursors, and batch loaders (one round trip for many pages) for the API's DataLoaders."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any, LiteralString

from pydantic import BaseModel, model_validator

from loaders.errors import BadUserInput, NotFound
from loaders.records import PageKind
from queries.base import GraphContext
from queries.common import (
    PAGE_BODY,
    PAGE_PROJECTION,
    PageRecord,
    Row,
    clean_name,
    folded,
    name_term,
    native,
    pages_named,
)
from queries.paging import Slice, check_first, decode_cursor, encode_cursor

# Kept alive here: see `queries.paging.Slice`.
PageSlice = Slice[PageRecord]


# -- lookup ------------------------------------------------------------------------------------

def named_page(key: LiteralString, name: LiteralString, var: LiteralString) -> LiteralString:
    """Cypher binding `var` to the page a name means, as Obsidian resolves it (no row when
    none): the page whose key is `key` (an index seek; the usual case, and then nothing else is
    read), otherwise one whose folded names hold `name` (a `name_term`), an exact title before
    an alias, ties by key. `key` and `name` are parameters (`$key`)."""
    return (
        "CALL () { OPTIONAL MATCH (exact:Page {key: " + key + "}) "
        "  CALL (exact) { "
        "    WITH exact WHERE exact IS NOT NULL RETURN exact AS p, 0 AS rank "
        "    UNION "
        "    WITH exact WHERE exact IS NULL " + pages_named(name, "p") +
        "    RETURN p, CASE WHEN p.title = " + key + " THEN 1 ELSE 2 END AS rank } "
        "  WITH p, rank ORDER BY rank, p.key LIMIT 1 RETURN p AS " + var + " } ")


def name_params(name: str) -> dict[str, str]:
    """The parameters of `named_page("$key", "$name", ...)` for what a user typed."""
    key = page_key(name)
    return {"key": key, "name": name_term(folded(key))}


FIND_PAGE: LiteralString = (
    named_page("$key", "$name", "p") + "RETURN " + PAGE_PROJECTION + " AS page")

# Reads of many keys send their rows as one list (`GraphContext.read_rows`).
PAGES_BY_KEYS: LiteralString = (
    "UNWIND $keys AS k MATCH (p:Page {key: k}) RETURN collect(" + PAGE_PROJECTION + ") AS rows")

BODIES: LiteralString = (
    "UNWIND $keys AS k MATCH (p:Page {key: k}) "
    "RETURN collect({key: p.key, body: " + PAGE_BODY + "}) AS rows")


def page_key(name: str) -> str:
    """What a user typed as a page name, as the key it would be (`[[Page|shown]]` -> `Page`);
    refuses an empty name."""
    key = clean_name(name)
    if not key:
        raise BadUserInput("a page name must not be empty")
    return key


def find_page(ctx: GraphContext, name: str) -> PageRecord | None:
    """The page called `name` (file stem, title or alias, as Obsidian resolves it), or None."""
    rows = ctx.read(FIND_PAGE, **name_params(name))
    return PageRecord.from_row(rows[0]["page"]) if rows else None


def get_page(ctx: GraphContext, name: str) -> PageRecord:
    """Like `find_page`, but a missing page is a NotFound naming what was asked for."""
    page = find_page(ctx, name)
    if page is None:
        raise NotFound(f"no page is called {name!r} (tried file stem, title and aliases)")
    return page


# A work whose short alias is `@YEAR__VENUE__<name>` or whose title starts with `<name>:`.
FIND_WORK: LiteralString = (
    "MATCH (p:Source) WHERE any(a IN p.aliases WHERE toLower(a) ENDS WITH $suffix) "
    "  OR toLower(p.title) = $lower OR toLower(p.title) STARTS WITH $lower + ':' "
    "  OR toLower(p.title) STARTS WITH $lower + ' - ' "
    "WITH p ORDER BY p.year, p.key LIMIT 1 RETURN " + PAGE_PROJECTION + " AS page")


# The kinds of page lineage is about (works); `get_work` prefers them.
WORK_KINDS = (PageKind.PAPER.value, PageKind.SOURCE.value)


def get_work(ctx: GraphContext, name: str) -> PageRecord:
    """The work (source page) a lineage question means by `name`. `FFTrainer` names both a
    product page and, by its short alias `@2025__arXiv__FFTrainer`, the paper: lineage is about
    works, so a non-work match gives way to a work with that short name when there is one.
    When the page `find_page` finds is a work, that work is the answer (the lineage reads
    resolve names that way in their own query, `named_page`)."""
    page = find_page(ctx, name)
    if page is not None and page.kind in WORK_KINDS:
        return page
    lower = clean_name(name).lower()
    rows = ctx.read(FIND_WORK, suffix="__" + lower, lower=lower)
    if rows:
        return PageRecord.from_row(rows[0]["page"])
    if page is None:
        raise NotFound(f"no page is called {name!r} (tried file stem, title and aliases)")
    return page


def pages_by_keys(ctx: GraphContext, keys: list[str]) -> dict[str, PageRecord]:
    """Pages by exact key; missing keys are absent from the result."""
    return {p["key"]: PageRecord.from_row(p) for p in ctx.read_rows(PAGES_BY_KEYS, keys=keys)}


def bodies(ctx: GraphContext, keys: list[str]) -> dict[str, str]:
    """Markdown bodies by key: fetched separately so lists do not carry them."""
    return {r["key"]: r["body"] or "" for r in ctx.read_rows(BODIES, keys=keys)}


# -- filtered, sorted, paginated lists ------------------------------------------------------------

class SortField(StrEnum):
    KEY = "key"
    TITLE = "title"
    YEAR = "year"
    CREATED = "created"
    UPDATED = "updated"


class PageFilter(BaseModel):
    """What Dataview users filter by (`FROM #tag WHERE year >= 2020 ...`). Names (author,
    concept) may be key, title or alias; all given conditions must hold."""

    kinds: list[PageKind] | None = None
    tag: str | None = None
    year_from: int | None = None
    year_to: int | None = None
    venue: str | None = None
    author: str | None = None
    concept: str | None = None
    has_dangling: bool | None = None
    updated_since: dt.date | None = None
    status: str | None = None

    @model_validator(mode="after")
    def _years_in_order(self) -> PageFilter:
        if (self.year_from is not None and self.year_to is not None
                and self.year_from > self.year_to):
            raise BadUserInput(f"yearFrom {self.year_from} is after yearTo {self.year_to}")
        return self

    def params(self) -> dict[str, Any]:
        tag = self.tag.strip().lstrip("#") if self.tag else None
        return {
            "kinds": [k.value for k in self.kinds] if self.kinds else None,
            "tag": tag or None, "year_from": self.year_from, "year_to": self.year_to,
            "venue": self.venue.strip().lower() if self.venue else None,
            "author": name_term(folded(self.author)) if self.author else None,
            "concept": name_term(folded(self.concept)) if self.concept else None,
            "has_dangling": self.has_dangling, "updated_since": self.updated_since,
            "status": self.status,
        }


# The works on a concept `c`: pages that name it in `related:` (ABOUT), or that the concept page
# lists in its own `sources:` (the timeline, `queries.lineage.TIMELINE`, reads the same two
# relationships). The `concept` filter tests a page with them (`WORKS_ON_CONCEPT`; `concepts`
# holds the pages named $concept, NAMED_FILTER_PAGES) and enumerates them (`CANDIDATE_PAGES`).
_ABOUT_CONCEPT: LiteralString = "(p:Page)-[:ABOUT]->(c:Page)"
_LISTED_BY_CONCEPT: LiteralString = "(c:Concept)-[:LINKS_TO {field: 'sources'}]->(p:Page)"
WORKS_ON_CONCEPT: LiteralString = (
    "EXISTS { MATCH " + _ABOUT_CONCEPT + " WHERE c IN concepts } "
    "OR EXISTS { MATCH " + _LISTED_BY_CONCEPT + " WHERE c IN concepts }")


def _named(param: LiteralString, var: LiteralString) -> LiteralString:
    """`var`: the pages named by the `name_term` in `$param`, or [] when it is null."""
    return ("CALL () { UNWIND CASE WHEN $" + param + " IS NULL THEN [] ELSE [$" + param
            + "] END AS term " + pages_named("term", "n") + "RETURN collect(n) AS " + var
            + " } ")


# The author and concept pages, looked up by name once (index seeks), before the page scan.
NAMED_FILTER_PAGES: LiteralString = _named("author", "authors") + _named("concept", "concepts")

# The pages a filter can match: with an author, only their works; else with a concept, only the
# works on it; else every page. Reached from the named pages, a filter by author or concept
# reads their neighbourhood instead of every page (`PAGE_FILTER` then checks the rest). One
# branch runs, chosen by the parameters; each returns every page at most once.
CANDIDATE_PAGES: LiteralString = (
    "CALL (authors, concepts) { "
    "  WITH authors WHERE $author IS NOT NULL "
    "  UNWIND authors AS a MATCH (p:Page)-[:AUTHORED_BY]->(a) RETURN DISTINCT p "
    "  UNION ALL "
    "  WITH concepts WHERE $author IS NULL AND $concept IS NOT NULL "
    "  UNWIND concepts AS c CALL (c) { "
    "    MATCH " + _ABOUT_CONCEPT + " RETURN p UNION MATCH " + _LISTED_BY_CONCEPT + " RETURN p } "
    "  WITH DISTINCT p RETURN p "
    "  UNION ALL "
    "  WITH 1 AS unfiltered WHERE $author IS NULL AND $concept IS NULL "
    "  MATCH (p:Page) RETURN p } ")

# What the candidates (`CANDIDATE_PAGES`) do not already satisfy: with an author they are the
# author's works, so only a concept asked as well is checked; without one, with a concept, they
# are the works on it (re-checking each of a popular concept's 20k works took a third of the
# query at 100k pages).
PAGE_FILTER: LiteralString = (
    "($kinds IS NULL OR p.kind IN $kinds) "
    "AND ($tag IS NULL OR any(t IN coalesce(p.tags, []) "
    "  WHERE t = $tag OR t STARTS WITH $tag + '/')) "
    "AND ($year_from IS NULL OR p.year >= $year_from) "
    "AND ($year_to IS NULL OR p.year <= $year_to) "
    "AND ($venue IS NULL OR EXISTS { MATCH (p)-[:PUBLISHED_IN]->(v:Venue) "
    "  WHERE toLower(v.name) = $venue }) "
    "AND ($concept IS NULL OR $author IS NULL OR " + WORKS_ON_CONCEPT + ") "
    "AND ($has_dangling IS NULL OR (coalesce(p.dangling_count, 0) > 0) = $has_dangling) "
    "AND ($updated_since IS NULL OR p.updated >= $updated_since) "
    "AND ($status IS NULL OR p.status = $status) ")

COUNT_PAGES: LiteralString = (
    NAMED_FILTER_PAGES + CANDIDATE_PAGES + "WITH p, concepts WHERE " + PAGE_FILTER
    + "RETURN count(p) AS n")

# Sort expressions: nulls take a sentinel ($nulls) so they sort last in either direction and
# the keyset comparison never meets a null.
SORT_EXPRESSIONS: dict[SortField, LiteralString] = {
    SortField.KEY: "p.key",
    SortField.TITLE: "toLower(coalesce(p.title, p.key))",
    SortField.YEAR: "coalesce(p.year, $nulls)",
    SortField.CREATED: "coalesce(p.created, $nulls)",
    SortField.UPDATED: "coalesce(p.updated, $nulls)",
}
NULLS: dict[SortField, tuple[Any, Any]] = {  # (ascending, descending)
    SortField.YEAR: (10**6, -(10**6)),
    SortField.CREATED: (dt.date.max, dt.date.min),
    SortField.UPDATED: (dt.date.max, dt.date.min),
}
DATE_FIELDS = {SortField.CREATED, SortField.UPDATED}


def _list_query(expr: LiteralString, descending: bool) -> LiteralString:
    after: LiteralString = (
        "sv < $after_value OR (sv = $after_value AND p.key < $after_key)" if descending
        else "sv > $after_value OR (sv = $after_value AND p.key > $after_key)")
    order: LiteralString = "DESC" if descending else "ASC"
    return (NAMED_FILTER_PAGES + CANDIDATE_PAGES + "WITH p, concepts WHERE "
            + PAGE_FILTER + "WITH p, " + expr + " AS sv "
            "WHERE $after_key IS NULL OR " + after + " "
            "WITH p, sv ORDER BY sv " + order + ", p.key " + order + " LIMIT $limit "
            "RETURN collect({page: " + PAGE_PROJECTION + ", sv: sv}) AS rows")


LIST_PAGES: dict[tuple[SortField, bool], LiteralString] = {
    (f, d): _list_query(expr, d) for f, expr in SORT_EXPRESSIONS.items() for d in (False, True)}


def list_pages(ctx: GraphContext, where: PageFilter, sort: SortField = SortField.KEY,
               descending: bool = False, first: int = 20,
               after: str | None = None) -> Slice[PageRecord]:
    """Pages matching `where`, sorted (ties by key), `first` of them after cursor `after`."""
    check_first(first)
    sort_name = f"pages:{sort.value}:{'desc' if descending else 'asc'}"
    after_value: Any = None
    after_key: str | None = None
    if after:
        after_value, after_key = decode_cursor(after, sort_name)
        if sort in DATE_FIELDS:
            try:
                after_value = dt.date.fromisoformat(str(after_value))
            except ValueError:
                raise BadUserInput("`after` is not a cursor this API returned") from None
    nulls = NULLS.get(sort, (None, None))[1 if descending else 0]
    rows = ctx.read_rows(LIST_PAGES[(sort, descending)], **where.params(), nulls=nulls,
                         after_value=after_value, after_key=after_key, limit=first + 1)
    items = [PageRecord.from_row(r["page"]) for r in rows[:first]]
    cursors = [encode_cursor(sort_name, native(r["sv"]), r["page"]["key"])
               for r in rows[:first]]
    return PageSlice(items=items, cursors=cursors, has_next=len(rows) > first)


def count_pages(ctx: GraphContext, where: PageFilter) -> int:
    """How many pages match `where` (for `totalCount`, asked only when selected)."""
    return int(ctx.read(COUNT_PAGES, **where.params())[0]["n"])


# -- batch loaders: one round trip for many pages -----------------------------------------------

class Relation(StrEnum):
    """Page-to-page neighbourhoods the API exposes; each maps to one allow-listed pattern."""

    AUTHORS = "authors"
    PAPERS_AUTHORED = "papers_authored"
    AFFILIATIONS = "affiliations"
    MEMBERS = "members"
    PART_OF = "part_of"
    PARTS = "parts"
    DEVELOPERS = "developers"
    DEVELOPED = "developed"
    CONCEPTS = "concepts"
    WORKS = "works"
    LINKS_TO = "links_to"
    LINKED_FROM = "linked_from"


# `s` is the page asked about, `p` the neighbour; `ord` orders neighbours (then key).
RELATION_PATTERNS: dict[Relation, tuple[LiteralString, LiteralString]] = {
    Relation.AUTHORS: ("MATCH (s)-[r:AUTHORED_BY]->(p:Page)", "min(r.position)"),
    Relation.PAPERS_AUTHORED: ("MATCH (s)<-[:AUTHORED_BY]-(p:Page)", "coalesce(p.year, 0)"),
    Relation.AFFILIATIONS: ("MATCH (s)-[:AFFILIATED_WITH]->(p:Page)", "0"),
    Relation.MEMBERS: ("MATCH (s)<-[:AFFILIATED_WITH]-(p:Page)", "0"),
    Relation.PART_OF: ("MATCH (s)-[:PART_OF]->(p:Page)", "0"),
    Relation.PARTS: ("MATCH (s)<-[:PART_OF]-(p:Page)", "0"),
    Relation.DEVELOPERS: ("MATCH (s)-[:DEVELOPED_BY]->(p:Page)", "0"),
    Relation.DEVELOPED: ("MATCH (s)<-[:DEVELOPED_BY]-(p:Page)", "0"),
    Relation.CONCEPTS: ("MATCH (s)-[:ABOUT]->(p:Page)", "0"),
    Relation.WORKS: ("CALL (s) { MATCH (s)<-[:ABOUT]-(p:Page) RETURN p UNION "
                     "MATCH (s)-[:LINKS_TO {field: 'sources'}]->(p:Source) RETURN p }",
                     "coalesce(p.year, 0)"),
    Relation.LINKS_TO: ("MATCH (s)-[r:LINKS_TO]->(p:Page) WHERE p <> s", "min(r.line)"),
    Relation.LINKED_FROM: ("MATCH (s)<-[:LINKS_TO]-(p:Page) WHERE p <> s", "0"),
}


def _related_query(pattern: LiteralString, order: LiteralString) -> LiteralString:
    return ("UNWIND $keys AS k MATCH (s:Page {key: k}) " + pattern + " "
            "WITH k, p, " + order + " AS ord ORDER BY ord, p.key "
            "WITH k, collect(" + PAGE_PROJECTION + ") AS pages "
            "RETURN collect({key: k, pages: pages}) AS rows")


RELATED: dict[Relation, LiteralString] = {
    rel: _related_query(*parts) for rel, parts in RELATION_PATTERNS.items()}


def related(ctx: GraphContext, relation: Relation,
            keys: list[str]) -> dict[str, list[PageRecord]]:
    """Neighbours of many pages over one relation, in one round trip; pages without
    neighbours are absent."""
    rows = ctx.read_rows(RELATED[relation], keys=keys)
    return {r["key"]: [PageRecord.from_row(p) for p in r["pages"]] for r in rows}


# -- venues ------------------------------------------------------------------------------------

class VenueRecord(Row):
    name: str
    paper_count: int = 0


VENUES_OF: LiteralString = (
    "UNWIND $keys AS k MATCH (:Page {key: k})-[:PUBLISHED_IN]->(v:Venue) "
    "RETURN collect({key: k, name: v.name}) AS rows")
VENUES: LiteralString = (
    "MATCH (v:Venue) WHERE $names IS NULL OR v.name IN $names WITH v ORDER BY v.name "
    "RETURN collect({name: v.name, paper_count: COUNT { (v)<-[:PUBLISHED_IN]-() }}) AS rows")
VENUE_PAPERS: LiteralString = (
    "UNWIND $names AS n MATCH (:Venue {name: n})<-[:PUBLISHED_IN]-(p:Page) "
    "WITH n, p ORDER BY p.year, p.key WITH n, collect(" + PAGE_PROJECTION + ") AS pages "
    "RETURN collect({name: n, pages: pages}) AS rows")


def venues_of(ctx: GraphContext, keys: list[str]) -> dict[str, str]:
    """Venue name of many pages (key -> name), in one round trip."""
    return {r["key"]: r["name"] for r in ctx.read_rows(VENUES_OF, keys=keys)}


def venues(ctx: GraphContext, names: list[str] | None = None) -> list[VenueRecord]:
    """Venues (all, or those named) with how many works were published there."""
    return [VenueRecord.model_validate(r) for r in ctx.read_rows(VENUES, names=names)]


def venue_papers(ctx: GraphContext, names: list[str]) -> dict[str, list[PageRecord]]:
    """Works published at many venues, by year, in one round trip."""
    return {r["name"]: [PageRecord.from_row(p) for p in r["pages"]]
            for r in ctx.read_rows(VENUE_PAPERS, names=names)}
