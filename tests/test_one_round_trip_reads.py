"""The hot reads in one round trip: `lineage_of_work` and `paths_of_works` find the work a name
means (key, title or alias) and read its lineage in one query, and `contradictions(subject:)`
resolves the subject in the same query. Each must answer exactly what the former steps did
(the work resolved by `get_work`, the subject's pages looked up first), for keys, titles,
aliases, a name that is both a product's and a paper's, pages that are not works, and names
of nothing."""

from __future__ import annotations

from typing import Any, LiteralString

import neo4j
import pytest

from loaders.errors import BadUserInput, NotFound
from queries import contradictions as cq
from queries import lineage as lq
from queries.base import GraphContext
from queries.common import folded, name_term, pages_named
from queries.pages import find_page, get_work

pytestmark = pytest.mark.integration

# The former subject lookup, then the contradictions of those pages, as `contradictions` read
# them before (ids only: the projection is the same query text).
SUBJECT_KEYS: LiteralString = pages_named("$subject", "s") + "RETURN s.key AS key"
OF_KEYS: LiteralString = (
    "UNWIND $keys AS key MATCH (x:Contradiction {subject: key}) "
    "WHERE ($status IS NULL OR x.status = $status) AND ($kind IS NULL OR x.kind = $kind) "
    "RETURN x.id AS id ORDER BY id LIMIT $limit")


@pytest.fixture(scope="module")
def ctx(example_graph: object, neo4j_driver: neo4j.Driver, neo4j_database: str) -> GraphContext:
    return GraphContext(neo4j_driver, neo4j_database)


def names(ctx: GraphContext) -> list[str]:
    """Every page's key, every work's title and aliases, an ambiguous short name, a link as
    typed, and names of nothing."""
    rows = ctx.read("MATCH (p:Page) RETURN p.key AS key, p.kind AS kind, p.title AS title, "
                    "p.aliases AS aliases ORDER BY key")
    out = [r["key"] for r in rows]
    for r in rows:
        if r["kind"] in ("Paper", "Source"):
            out += [r["title"], *(r["aliases"] or [])]
    return [*dict.fromkeys(n for n in out if n), "FFTrainer", "[[FFTrainer|shown]]",
            "no such page", "ＦＦＴｒａｉｎｅｒ"]


def former_lineage(ctx: GraphContext, name: str, direction: lq.Direction,
                   depth: int) -> lq.LineageResult | type[NotFound]:
    try:
        key = get_work(ctx, name).key
    except NotFound:
        return NotFound
    found = lq.lineage(ctx, key, direction, None, depth)
    assert found is not None
    return found


def lineage_now(ctx: GraphContext, name: str, direction: lq.Direction,
                depth: int) -> lq.LineageResult | type[NotFound]:
    try:
        return lq.lineage_of_work(ctx, name, direction, None, depth)
    except NotFound:
        return NotFound


def test_lineage_of_work_answers_as_get_work_then_lineage(ctx: GraphContext) -> None:
    asked = names(ctx)
    assert len(asked) > 50
    found = 0
    for name in asked:
        for direction, depth in ((lq.Direction.ANCESTORS, 10), (lq.Direction.BOTH, 2),
                                 (lq.Direction.DESCENDANTS, 1)):
            now = lineage_now(ctx, name, direction, depth)
            assert now == former_lineage(ctx, name, direction, depth), (name, direction)
            found += isinstance(now, lq.LineageResult) and len(now.nodes) > 1
    assert found > 20  # lineages with more than their root were compared, not only misses


def test_a_name_that_means_a_work_takes_one_round_trip(ctx: GraphContext) -> None:
    """A work's key, title or alias; a name whose page is not a work is resolved first."""
    named_works = []
    for name in names(ctx):
        page = find_page(ctx, name)
        if page is not None and page.kind in ("Paper", "Source"):
            named_works.append(name)
    assert len(named_works) > 30
    before = ctx.queries_run
    for name in named_works:
        lq.lineage_of_work(ctx, name)
    assert ctx.queries_run - before == len(named_works)
    before = ctx.queries_run
    lq.lineage_of_work(ctx, "FFTrainer")  # the product page's key: resolved as before
    assert ctx.queries_run - before == 4  # the named try, find_page, the work's, the lineage
    before = ctx.queries_run
    lq.paths_of_works(ctx, named_works[0], named_works[-1])
    assert ctx.queries_run - before == 1


def test_empty_names_are_refused(ctx: GraphContext) -> None:
    for call in (lambda: lq.lineage_of_work(ctx, " "),
                 lambda: lq.paths_of_works(ctx, "[[]]", "FFTrainer"),
                 lambda: lq.paths_of_works(ctx, "FFTrainer", "")):
        with pytest.raises(BadUserInput):
            call()


def test_paths_of_works_answer_as_get_work_then_paths(ctx: GraphContext) -> None:
    rows = ctx.read("MATCH (c:Page)-[:BUILDS_ON]->(p:Page) RETURN c.key AS child, "
                    "c.title AS title, p.key AS parent ORDER BY child, parent LIMIT 6")
    assert rows
    asked = [n for r in rows for n in (r["child"], r["title"], r["parent"])]
    asked += ["FFTrainer", "no such page", names(ctx)[0]]
    directed = 0
    for source in asked:
        for target in asked:
            try:
                former: Any = lq.paths(ctx, get_work(ctx, source).key,
                                       get_work(ctx, target).key, None, 3, 5)
            except NotFound:
                former = NotFound
            try:
                now: Any = lq.paths_of_works(ctx, source, target, None, 3, 5)
            except NotFound:
                now = NotFound
            assert now == former, (source, target)
            directed += now is not NotFound and now.source_is_ancestor is not None
    assert directed > 0


def subjects(ctx: GraphContext) -> list[str]:
    """Every subject of a contradiction, by key, title and each alias, and names of nothing."""
    rows = ctx.read("MATCH (x:Contradiction) WHERE x.subject IS NOT NULL "
                    "MATCH (s:Page {key: x.subject}) RETURN DISTINCT s.key AS key, "
                    "s.title AS title, s.aliases AS aliases ORDER BY key")
    out = [n for r in rows for n in (r["key"], r["title"], *(r["aliases"] or [])) if n]
    return [*dict.fromkeys(out), "no such subject", "x:y AND z"]


def test_contradictions_by_subject_as_before_in_one_round_trip(ctx: GraphContext) -> None:
    asked = subjects(ctx)
    assert len(asked) > 3
    hits = 0
    for subject in asked:
        for status, kind, first in ((None, None, 50), ("open", None, 50), (None, "detected", 1)):
            keys = [r["key"] for r in ctx.read(SUBJECT_KEYS, subject=name_term(folded(subject)))]
            former = [r["id"] for r in ctx.read(OF_KEYS, keys=keys, status=status, kind=kind,
                                                  limit=first)]
            before = ctx.queries_run
            now = cq.contradictions(ctx, subject, status, kind, first, with_claims=False)
            assert ctx.queries_run - before == 1
            assert [x.id for x in now.items] == former, (subject, status, kind)
            hits += len(former)
    assert hits > 0
