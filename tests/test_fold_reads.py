"""The fold's reads return their dates as ISO text, parsed in Python (the driver decodes each
date in Python, ~2,300 per fold of 256 entries). Every date they return must be the one stored:
checked against the same properties read as the driver's dates. Real Neo4j."""

from __future__ import annotations

from pathlib import Path

import neo4j
import pytest

from benchmarks.generate import generate
from graph.ingest import ingest
from queries.base import GraphContext
from queries.common import native
from queries.folds import contradictions_touching, entries_by_keys

pytestmark = pytest.mark.integration

STORED_ENTRIES = (
    "MATCH (e:LogEntry) RETURN e.key AS key, e.date AS date, "
    "[(e)-[t:TOUCHES]->(n) | [coalesce(n.key, n.name), n.created, "
    "  [(n)-[:ABOUT]->(c:Concept) | [c.key, c.created]]]] AS touches")
STORED_CONTRADICTIONS = (
    "MATCH (x:Contradiction) OPTIONAL MATCH (i:LogEntry {key: x.introduced_by}) "
    "OPTIONAL MATCH (xp:Page {key: x.page}) "
    "RETURN x.id AS id, i.date AS introduced, x.known AS known, xp.updated AS page_updated")


@pytest.fixture(scope="module")
def generated_graph(neo4j_driver: neo4j.Driver, neo4j_database: str,
                    tmp_path_factory: pytest.TempPathFactory) -> GraphContext:
    from tests import db as test_db

    vault = generate(300, tmp_path_factory.mktemp("gen") / "vault", seed=11)
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, Path(vault))
    return GraphContext(neo4j_driver, neo4j_database)


def test_entries_carry_their_stored_dates(generated_graph: GraphContext) -> None:
    ctx = generated_graph
    stored = {r["key"]: r for r in ctx.driver.execute_query(
        STORED_ENTRIES, database_=ctx.database).records}
    entries = entries_by_keys(ctx, sorted(stored))
    assert len(entries) == len(stored) >= 300
    created_seen = about_seen = 0
    for entry in entries:
        row = stored[entry.key]
        assert entry.date == native(row["date"])
        expected = sorted((name, native(created), sorted((k, native(c)) for k, c in about))
                          for name, created, about in row["touches"])
        got = sorted((t.name, t.created, sorted((c.key, c.created) for c in t.about))
                     for t in entry.touches)
        assert got == expected, entry.key
        created_seen += sum(t.created is not None for t in entry.touches)
        about_seen += sum(c.created is not None for t in entry.touches for c in t.about)
    assert created_seen > 100 and about_seen > 10  # the dates compared are not all None


def test_contradictions_carry_their_stored_dates(generated_graph: GraphContext) -> None:
    ctx = generated_graph
    stored = {r["id"]: r for r in ctx.driver.execute_query(
        STORED_CONTRADICTIONS, database_=ctx.database).records}
    keys = [r["key"] for r in ctx.driver.execute_query(
        "MATCH (e:LogEntry) RETURN e.key AS key", database_=ctx.database).records]
    pages = [r["key"] for r in ctx.driver.execute_query(
        "MATCH (p:Page) RETURN p.key AS key", database_=ctx.database).records]
    found = contradictions_touching(ctx, keys, pages)
    assert {c.id for c in found} == set(stored)
    for c in found:
        row = stored[c.id]
        assert (c.introduced, c.known, c.page_updated) == (
            native(row["introduced"]), native(row["known"]), native(row["page_updated"])), c.id
    assert sum(c.known is not None for c in found) > 10
    assert sum(c.introduced is not None for c in found) >= 5
    assert sum(c.page_updated is not None for c in found) >= 5
