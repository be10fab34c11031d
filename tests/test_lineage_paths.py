"""`lineage.paths` answers in one round trip what it used to derive from the full ancestor
lineage of each end in turn: the same result (reference below), for every pair of works of the
example vault, several depths, limits and relation sets."""

from __future__ import annotations

from collections.abc import Iterable

import neo4j
import pytest

from queries import lineage as lq
from queries.base import GraphContext
from queries.pages import pages_by_keys

pytestmark = pytest.mark.integration


def reference(ctx: GraphContext, source: str, target: str, relations: Iterable[str] | None,
              max_depth: int, limit: int) -> lq.PathsResult | None:
    """The former implementation: each end's ancestor lineage, paths searched over its edges."""
    for child, parent, source_is_ancestor in ((target, source, True),
                                              (source, target, False)):
        result = lq.lineage(ctx, child, lq.Direction.ANCESTORS, relations, max_depth)
        if result is None:
            return None
        pages = {n.page.key: n.page for n in result.nodes}
        if parent in pages and parent != child:
            found, cut = lq._simple_paths(child, parent, result.edges, max_depth, limit)
            if source_is_ancestor:
                found = [lq.LineagePathRecord(nodes=p.nodes[::-1], edges=p.edges[::-1])
                         for p in found]
            return lq.PathsResult(source=pages[source], target=pages[target],
                                  source_is_ancestor=source_is_ancestor, paths=found,
                                  pages=pages, truncated=cut or result.truncated)
    both = pages_by_keys(ctx, [source, target])
    if source not in both or target not in both:
        return None
    return lq.PathsResult(source=both[source], target=both[target], source_is_ancestor=None,
                          paths=[], pages={}, truncated=False)


@pytest.fixture(scope="module")
def ctx(example_graph: object, neo4j_driver: neo4j.Driver, neo4j_database: str) -> GraphContext:
    return GraphContext(neo4j_driver, neo4j_database)


def works(ctx: GraphContext) -> list[str]:
    """Works with lineage edges (either way), plus one page that is not a work."""
    rows = ctx.read("MATCH (p:Page) WHERE EXISTS { (p)-[:BUILDS_ON|EXTENDS|SUPERSEDES|"
                    "IMPROVES_ON|BASED_ON|COMPARES_WITH]-() } RETURN p.key AS key ORDER BY key")
    return [r["key"] for r in rows]


@pytest.mark.parametrize(("relations", "max_depth", "limit"), [
    (None, 10, 10), (None, 2, 10), (None, 1, 1), (None, 10, 1), (["BUILDS_ON"], 3, 5),
    (["EXTENDS", "IMPROVES_ON"], 10, 10)])  # the example has BUILDS_ON only
def test_every_pair_as_before(ctx: GraphContext, relations: list[str] | None, max_depth: int,
                              limit: int) -> None:
    keys = works(ctx)
    assert len(keys) > 10
    directed = 0
    for source in keys:
        for target in keys:
            got = lq.paths(ctx, source, target, relations, max_depth, limit)
            assert got == reference(ctx, source, target, relations, max_depth, limit), (
                source, target)
            directed += got is not None and got.source_is_ancestor is not None
    assert (directed > 0) == (relations is None or "BUILDS_ON" in relations)


def test_missing_page_and_same_page(ctx: GraphContext) -> None:
    key = works(ctx)[0]
    assert lq.paths(ctx, key, "no such page") is None
    assert lq.paths(ctx, "no such page", key) is None
    same = lq.paths(ctx, key, key)
    assert same is not None and same.source_is_ancestor is None and same.paths == []
    assert same == reference(ctx, key, key, None, 10, 10)


def test_one_round_trip(ctx: GraphContext) -> None:
    keys = works(ctx)
    before = ctx.queries_run
    for target in keys[:5]:
        lq.paths(ctx, keys[-1], target)
    assert ctx.queries_run - before == 5
