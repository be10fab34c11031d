"""GraphQL inputs and enums for filtering and sorting, and their translation to the query
layer's models."""

from __future__ import annotations

import datetime as dt
from enum import Enum

import strawberry

from loaders.records import PageKind
from queries.pages import PageFilter as PageFilterModel
from queries.pages import SortField


@strawberry.input(description="Dataview-style filters; every condition given must hold.")
class PageFilter:
    kinds: list[PageKind] | None = None
    tag: str | None = strawberry.field(default=None, description=(
        "A tag, with or without `#`; nested tags match too (`ml` matches `ml/rl`)."))
    year_from: int | None = None
    year_to: int | None = None
    venue: str | None = strawberry.field(default=None, description="Case-insensitive name.")
    author: str | None = strawberry.field(default=None, description=(
        "An author's page key, title or alias."))
    concept: str | None = strawberry.field(default=None, description=(
        "A concept's key, title or alias: works whose `related:` names it or that the "
        "concept lists in `sources:`."))
    has_dangling: bool | None = strawberry.field(default=None, description=(
        "true: pages with unresolved links; false: pages without."))
    updated_since: dt.date | None = None
    status: str | None = None

    def to_model(self, kinds: list[PageKind] | None = None) -> PageFilterModel:
        return PageFilterModel(
            kinds=kinds if kinds is not None else self.kinds, tag=self.tag,
            year_from=self.year_from, year_to=self.year_to, venue=self.venue,
            author=self.author, concept=self.concept, has_dangling=self.has_dangling,
            updated_since=self.updated_since, status=self.status)


@strawberry.enum
class PageSortField(Enum):
    KEY = "key"
    TITLE = "title"
    YEAR = "year"
    CREATED = "created"
    UPDATED = "updated"


@strawberry.enum
class SortDirection(Enum):
    ASC = "asc"
    DESC = "desc"


@strawberry.input(description="Sort order; ties are broken by key. Missing values sort last.")
class PageSort:
    field: PageSortField = PageSortField.KEY
    direction: SortDirection = SortDirection.ASC

    def model(self) -> tuple[SortField, bool]:
        return SortField(self.field.value), self.direction is SortDirection.DESC


@strawberry.enum
class LineageDirection(Enum):
    ANCESTORS = "ancestors"
    DESCENDANTS = "descendants"
    BOTH = "both"
