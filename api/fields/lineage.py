"""Query fields for lineage: a work's ancestors/descendants, paths between two works, and the
works on a concept in time order. `from:` takes a key, title or alias."""

from __future__ import annotations

from typing import Annotated

import strawberry

from api.decorators import read_field
from api.inputs import LineageDirection
from api.types import (
    Ctx,
    Lineage,
    LineageNode,
    LineagePath,
    LineagePaths,
    LineageSide,
    TimelineEntry,
    lineage_edges,
    page,
)
from loaders.records import LineageRelation
from queries import lineage as lineage_queries
from queries.common import PageRecord
from queries.pages import get_page

FromArg = Annotated[str, strawberry.argument(
    name="from", description="A work's file stem, title or alias (e.g. `@2025__arXiv__X`).")]
ToArg = Annotated[str, strawberry.argument(name="to")]
RelationsArg = Annotated[list[LineageRelation] | None, strawberry.argument(
    description="Edge types to follow (default: all lineage types).")]
DepthArg = Annotated[int, strawberry.argument(
    description=f"At most {lineage_queries.MAX_DEPTH} edges away.")]


def _relations(relations: list[LineageRelation] | None) -> list[str] | None:
    return [r.value for r in relations] if relations else None


def _prime(info: Ctx, pages: list[PageRecord]) -> None:
    """Edges resolve their pages through the loader; these pages are already in hand."""
    info.context.loaders.pages.prime_many({p.key: p for p in pages})


@strawberry.type
class LineageQueries:
    @read_field(description="The works a work builds on (ANCESTORS, following child -> "
                            "parent edges), the works that build on it (DESCENDANTS), or "
                            "both; nodes by year, every edge with its provenance. Cycles "
                            "never loop.")
    async def lineage(self, info: Ctx, from_: FromArg,
                      direction: LineageDirection = LineageDirection.ANCESTORS,
                      relations: RelationsArg = None,
                      max_depth: DepthArg = lineage_queries.DEFAULT_DEPTH) -> Lineage:
        found = await info.context.run(
            lineage_queries.lineage_of_work, from_, lineage_queries.Direction(direction.value),
            _relations(relations), max_depth)
        info.context.spend(len(found.nodes))
        _prime(info, [n.page for n in found.nodes])
        return Lineage(
            root=page(found.root),
            nodes=[LineageNode(page=page(n.page), depth=n.depth, side=LineageSide(n.side))
                   for n in found.nodes],
            edges=lineage_edges(info, found.edges), truncated=found.truncated)

    @read_field(description="Simple lineage paths between two works, shortest first; "
                            "either may be the ancestor.")
    async def lineage_path(self, info: Ctx, from_: FromArg, to: ToArg,
                           relations: RelationsArg = None,
                           max_depth: DepthArg = lineage_queries.DEFAULT_DEPTH,
                           first: int = 10) -> LineagePaths:
        found = await info.context.run(lineage_queries.paths_of_works, from_, to,
                                       _relations(relations), max_depth, first)
        _prime(info, list(found.pages.values()))
        info.context.spend(sum(len(p.nodes) for p in found.paths))
        return LineagePaths(
            source=page(found.source), target=page(found.target),
            from_is_ancestor=found.source_is_ancestor, truncated=found.truncated,
            paths=[LineagePath(nodes=[page(found.pages[k]) for k in p.nodes],
                               edges=lineage_edges(info, p.edges)) for p in found.paths])

    @read_field(description="The works on a concept, oldest first.")
    async def timeline(self, info: Ctx, concept: str) -> list[TimelineEntry]:
        found = await info.context.run(get_page, concept)
        entries = await info.context.run(lineage_queries.timeline, found.key)
        info.context.spend(len(entries))
        return [TimelineEntry(work=page(e.page), year=e.page.year, via=e.via) for e in entries]
