"""A conflict of claims is dated at ingest (`known`, loaders/numeric.py `conflict_known`), so a
fold need not read its claims. The stored date must be the one the fold computes from the claims
themselves (their introducing entries, log lines and pages' dates), stay right when a page's date
changes, and equal what a clean ingest stores. Real Neo4j."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import neo4j
import pytest

from benchmarks.generate import generate
from graph.ingest import ingest
from loaders.numeric import conflict_known
from loaders.records import ClaimRecord
from loaders.vault import LoadOptions, load_vault
from queries.base import GraphContext
from queries.fold_resolver import fold_range
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration

D1, D2, D3 = dt.date(2025, 1, 1), dt.date(2025, 2, 1), dt.date(2025, 3, 1)


def _claim(value: float, known: dt.date | None) -> ClaimRecord:
    return ClaimRecord(id=f"c{value}{known}", text="", origin="numeric", page="p", line=1,
                       value=value, known=known)


def test_conflict_known_is_the_latest_of_each_values_earliest() -> None:
    assert conflict_known([_claim(1, D3), _claim(1, D1), _claim(2, D2)]) == D2
    assert conflict_known([_claim(1, D1), _claim(2, D3), _claim(2, None)]) == D3
    assert conflict_known([_claim(1, D1), _claim(2, None)]) is None  # one value never dated
    assert conflict_known([]) is None


def test_each_claim_of_the_log_is_known_since_the_entry_holding_its_line() -> None:
    snapshot = load_vault(SHARED_EXAMPLE, LoadOptions(workers=1))
    log = next(f for f in snapshot.facts if f.is_log)
    starts = sorted((e.line, e.date) for e in log.log_entries)
    assert len(log.claims) > 10
    for claim in log.claims:
        assert claim.line is not None
        holding = [date for line, date in starts if line <= claim.line]
        assert claim.known == (holding[-1] if holding else log.page.updated), claim.id
    pages = [f for f in snapshot.facts if not f.is_log and f.claims]
    assert pages and all(c.known == (f.page.updated or f.page.created)
                         for f in pages for c in f.claims if c.origin == "numeric")


def _dates(driver: neo4j.Driver, database: str) -> dict[str, tuple[dt.date | None, str]]:
    """Every contradiction of a fold over the whole log: id -> (date, basis)."""
    ctx = GraphContext(driver, database)
    records, _, _ = driver.execute_query(
        "MATCH (e:LogEntry) RETURN min(e.date) AS a, max(e.date) AS b", database_=database)
    first, last = records[0]["a"].to_native(), records[0]["b"].to_native()
    digest = fold_range(ctx, first, last)
    return {x.id: (x.date, x.date_basis) for x in digest.contradictions}


def _forget_stored_dates(driver: neo4j.Driver, database: str) -> set[str]:
    records, _, _ = driver.execute_query(
        "MATCH (x:Contradiction) WHERE x.known IS NOT NULL REMOVE x.known RETURN x.id AS id",
        database_=database)
    return {r["id"] for r in records}


@pytest.mark.parametrize("source", ["shared", "generated"])
def test_stored_dates_are_the_dates_the_claims_give(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path, source: str) -> None:
    vault = SHARED_EXAMPLE if source == "shared" else generate(400, tmp_path / "gen", seed=5)
    ingest(clean_db, neo4j_database, vault)
    stored = _dates(clean_db, neo4j_database)
    forgotten = _forget_stored_dates(clean_db, neo4j_database)
    from_claims = _dates(clean_db, neo4j_database)
    assert stored == from_claims
    # Every dated conflict of claims had its date stored (the fold read none of its claims).
    detected = {i for i, (d, basis) in from_claims.items()
                if basis == "claims" and i.startswith("detected:")}
    assert detected and detected <= forgotten


def test_a_pages_new_date_redates_its_conflicts_as_a_clean_ingest_does(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path) -> None:
    vault = generate(400, tmp_path / "gen", seed=5)
    ingest(clean_db, neo4j_database, vault)
    rows, _, _ = clean_db.execute_query(
        "MATCH (x:Contradiction {kind: 'detected'})-[:INVOLVES]->(c:Claim) "
        "WITH x, collect(DISTINCT c.page) AS pages WHERE NOT 'log' IN pages "
        "MATCH (p:Page) WHERE p.key IN pages "
        "RETURN x.id AS id, x.known AS known, collect(p.path) AS paths ORDER BY id LIMIT 1",
        database_=neo4j_database)
    assert rows, "the generated vault has a conflict stated outside the log"
    later = dt.date(2031, 1, 1)
    assert rows[0]["known"].to_native() < later
    for rel in rows[0]["paths"]:
        page = vault / "wiki" / rel
        text = page.read_text(encoding="utf-8")
        text, n = re.subn(r"(?m)^updated:.*$", f"updated: {later}", text, count=1)
        if not n:
            text = text.replace("---\n", f"---\nupdated: {later}\n", 1)
        page.write_text(text, encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    after, _, _ = clean_db.execute_query(
        "MATCH (x:Contradiction {id: $id}) RETURN x.known AS known", id=rows[0]["id"],
        database_=neo4j_database)
    assert after[0]["known"].to_native() == later
    incremental = dump(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ingest(clean_db, neo4j_database, vault)
    assert diff(incremental, dump(clean_db, neo4j_database)) == []

