"""Query fields for pages: global `node`, lookup by name, filtered lists, venues."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import strawberry

from api.connections import Connection, connection
from api.decorators import read_field
from api.inputs import PageFilter, PageSort
from api.types import (
    Concept,
    Ctx,
    Fold,
    Node,
    Page,
    Paper,
    Person,
    Venue,
    Work,
    claim,
    contradiction,
    entry_by_key,
    global_id,
    page,
    page_by_key,
    parse_global_id,
)
from loaders.errors import BadUserInput
from loaders.records import PageKind as Kind
from queries import pages as page_queries
from queries.paging import DEFAULT_FIRST

T = TypeVar("T")


async def page_list(info: Ctx, where: page_queries.PageFilter, sort: PageSort | None,
                    first: int, after: str | None, cls: type[T]) -> Connection[T]:
    """One keyset slice of pages as a connection of `cls`; totalCount only if asked."""
    field, descending = (sort or PageSort()).model()
    found = await info.context.run(page_queries.list_pages, where, field, descending, first,
                                   after)
    info.context.spend(len(found.items))
    info.context.loaders.pages.prime_many({r.key: r for r in found.items})
    pairs = [(p, c) for p, c in zip((page(r) for r in found.items), found.cursors, strict=True)
             if isinstance(p, cls)]

    def count() -> Awaitable[int]:
        return info.context.run(page_queries.count_pages, where)

    return connection([p for p, _ in pairs], [c for _, c in pairs], found.has_next, after,
                      count)


def _kinds(*kinds: Kind) -> Callable[[PageFilter | None], page_queries.PageFilter]:
    return lambda where: (where or PageFilter()).to_model(list(kinds))


@strawberry.type
class PageQueries:
    @read_field(description="Any object by its global id (Relay).")
    async def node(self, info: Ctx, id: strawberry.ID) -> Node | None:
        kind, key = parse_global_id(id)
        loaders = info.context.loaders
        if kind == "Page":
            return await page_by_key(info, key)
        if kind == "LogEntry":
            return await entry_by_key(info, key)
        if kind == "Claim":
            found_claim = await loaders.claims.load(key)
            return claim(found_claim) if found_claim else None
        if kind == "Contradiction":
            found = await loaders.contradictions.load(key)
            return contradiction(found) if found else None
        if kind == "Venue":
            venues = await info.context.run(page_queries.venues, [key])
            return Venue(id=global_id("Venue", key), name=key) if venues else None
        raise BadUserInput(f"{id!r} is not an id this API returned")

    @read_field(description="A page by file stem, title or alias (`[[...]]` accepted); null "
                            "if there is none.")
    async def page(self, info: Ctx, key: str) -> Page | None:
        found = await info.context.run(page_queries.find_page, key)
        return page(found) if found else None

    @read_field(description="Pages, filtered and sorted like a Dataview table.")
    async def pages(self, info: Ctx, filter: PageFilter | None = None,
                    sort: PageSort | None = None, first: int = DEFAULT_FIRST,
                    after: str | None = None) -> Connection[Page]:
        return await page_list(info, (filter or PageFilter()).to_model(), sort, first, after,
                               Page)

    @read_field(description="Papers (filter.kinds is ignored).")
    async def papers(self, info: Ctx, filter: PageFilter | None = None,
                     sort: PageSort | None = None, first: int = DEFAULT_FIRST,
                     after: str | None = None) -> Connection[Paper]:
        return await page_list(info, _kinds(Kind.PAPER)(filter), sort, first, after, Paper)

    @read_field(description="Papers and other sources (filter.kinds is ignored).")
    async def works(self, info: Ctx, filter: PageFilter | None = None,
                    sort: PageSort | None = None, first: int = DEFAULT_FIRST,
                    after: str | None = None) -> Connection[Work]:
        return await page_list(info, _kinds(Kind.PAPER, Kind.SOURCE)(filter), sort, first,
                               after, Work)

    @read_field(description="People (filter.kinds is ignored).")
    async def people(self, info: Ctx, filter: PageFilter | None = None,
                     sort: PageSort | None = None, first: int = DEFAULT_FIRST,
                     after: str | None = None) -> Connection[Person]:
        return await page_list(info, _kinds(Kind.PERSON)(filter), sort, first, after, Person)

    @read_field(description="Concepts (filter.kinds is ignored).")
    async def concepts(self, info: Ctx, filter: PageFilter | None = None,
                       sort: PageSort | None = None, first: int = DEFAULT_FIRST,
                       after: str | None = None) -> Connection[Concept]:
        return await page_list(info, _kinds(Kind.CONCEPT)(filter), sort, first, after,
                               Concept)

    @read_field(description="Fold pages (filter.kinds is ignored).")
    async def folds(self, info: Ctx, filter: PageFilter | None = None,
                    sort: PageSort | None = None, first: int = DEFAULT_FIRST,
                    after: str | None = None) -> Connection[Fold]:
        return await page_list(info, _kinds(Kind.FOLD)(filter), sort, first, after, Fold)

    @read_field(description="Publication venues with their works.")
    async def venues(self, info: Ctx) -> list[Venue]:
        found = await info.context.run(page_queries.venues, None)
        info.context.spend(len(found))
        return [Venue(id=global_id("Venue", v.name), name=v.name) for v in found]

