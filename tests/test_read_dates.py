"""Reads that return their dates as ISO text, parsed in Python (the driver decodes each date
in Python, ~10 µs: ~2,300 per fold of 256 entries, 30 per search of 10 pages): the fold's reads,
every page projection, contradictions and claims, and log entries. Every date they return must
be the one stored: checked against the same properties read as the driver's dates. Real Neo4j."""

from __future__ import annotations

from pathlib import Path

import neo4j
import pytest

from benchmarks.generate import generate
from graph.ingest import ingest
from queries.base import GraphContext
from queries.common import native
from queries.contradictions import (
    claims_by_ids,
    claims_of_contradictions,
    contradictions,
    contradictions_by_ids,
)
from queries.folds import contradictions_touching, entries_by_keys
from queries.lineage import Direction, lineage
from queries.log import entries_by_keys as log_entries_by_keys
from queries.log import log_entries
from queries.pages import pages_by_keys

pytestmark = pytest.mark.integration

STORED_ENTRIES = (
    "MATCH (e:LogEntry) RETURN e.key AS key, e.date AS date, "
    "[(e)-[t:TOUCHES]->(n) | [coalesce(n.key, n.name), n.created, "
    "  [(n)-[:ABOUT]->(c:Concept) | [c.key, c.created]]]] AS touches")
STORED_CONTRADICTIONS = (
    "MATCH (x:Contradiction) OPTIONAL MATCH (i:LogEntry {key: x.introduced_by}) "
    "OPTIONAL MATCH (xp:Page {key: x.page}) "
    "RETURN x.id AS id, i.date AS introduced, x.known AS known, xp.updated AS page_updated")
PAGE_DATES = ("created", "updated", "date_published", "range_from", "range_to")
STORED_PAGES = (
    "MATCH (p:Page) RETURN p.key AS key, p.created AS created, p.updated AS updated, "
    "p.date_published AS date_published, p.range_from AS range_from, p.range_to AS range_to")


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


def test_pages_carry_their_stored_dates(generated_graph: GraphContext) -> None:
    ctx = generated_graph
    stored = {r["key"]: r for r in ctx.driver.execute_query(
        STORED_PAGES, database_=ctx.database).records}
    pages = pages_by_keys(ctx, sorted(stored))
    assert set(pages) == set(stored) and len(pages) >= 300
    for key, page in pages.items():
        assert [getattr(page, f) for f in PAGE_DATES] == [
            native(stored[key][f]) for f in PAGE_DATES], key
    for f in PAGE_DATES:  # the dates compared are not all None (one fold page has a range)
        assert sum(getattr(p, f) is not None for p in pages.values()) >= 1, f


def test_lineage_root_is_the_page_read_by_key(generated_graph: GraphContext) -> None:
    """The lineage reads its root with its reach (one round trip): the same record as a read
    of the page by key, dates included."""
    ctx = generated_graph
    keys = [r["key"] for r in ctx.driver.execute_query(
        "MATCH (w:Page)-[:BUILDS_ON]->() RETURN DISTINCT w.key AS key ORDER BY key LIMIT 20",
        database_=ctx.database).records]
    assert len(keys) == 20
    by_key = pages_by_keys(ctx, keys)
    for key in keys:
        for direction in Direction:
            found = lineage(ctx, key, direction)
            assert found is not None and found.root == by_key[key], (key, direction)
            assert found.nodes[[n.page.key for n in found.nodes].index(key)].side == "root"
    assert lineage(ctx, "no such page", Direction.BOTH) is None


def test_contradictions_claims_and_entries_carry_their_stored_dates(
        generated_graph: GraphContext) -> None:
    ctx = generated_graph

    def stored(query: str) -> dict[str, object]:
        return {r["id"]: native(r["day"]) for r in ctx.driver.execute_query(
            query, database_=ctx.database).records}

    known = stored("MATCH (x:Contradiction) RETURN x.id AS id, x.known AS day")
    claim_known = stored("MATCH (c:Claim) RETURN c.id AS id, c.known AS day")
    entry_dates = stored("MATCH (e:LogEntry) RETURN e.key AS id, e.date AS day")
    assert sum(d is not None for d in known.values()) > 10
    assert sum(d is not None for d in claim_known.values()) > 100

    by_id = contradictions_by_ids(ctx, sorted(known))
    assert {i: x.known for i, x in by_id.items()} == known
    listed = contradictions(ctx, first=100, with_claims=True).items
    assert listed and all(x.known == known[x.id] for x in listed)
    claims = [c for x in listed for c in x.claims or []]
    claims += [c for cs in claims_of_contradictions(ctx, sorted(known)).values() for c in cs]
    assert len(claims) > 20 and all(c.known == claim_known[c.id] for c in claims)
    assert {i: c.known for i, c in claims_by_ids(ctx, sorted(claim_known)).items()} \
        == claim_known

    entries = log_entries_by_keys(ctx, sorted(entry_dates))
    assert {k: e.date for k, e in entries.items()} == entry_dates
    page = log_entries(ctx, first=50).items
    assert len(page) == 50 and all(e.date == entry_dates[e.key] for e in page)
