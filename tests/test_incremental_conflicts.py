"""Numeric conflicts are re-derived only for the groups an edit touches, and the graph still
equals a clean ingest: the overview's unmarked "up to 2x" conflict disappears when the page is
corrected and comes back when the edit is undone; a dead run's leftovers are repaired."""

from __future__ import annotations

import shutil
from pathlib import Path

import neo4j
import pytest

from graph import writer as graph_writer
from graph import writes
from graph.ingest import ingest
from loaders.numeric import conflict_group, conflict_signatures
from loaders.records import ClaimRecord
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.test_conflict_scope import ClaimList
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration

DETECTED = ("MATCH (x:Contradiction {kind: 'detected'}) RETURN x.id AS id, "
            "x.subject AS subject, x.claims AS claims ORDER BY id")


def _detected(driver: neo4j.Driver, database: str) -> list[dict[str, object]]:
    records, _, _ = driver.execute_query(DETECTED, database_=database)
    return [r.data() for r in records]


def _same_as_clean(driver: neo4j.Driver, database: str, vault: Path) -> None:
    incremental = dump(driver, database)
    test_db.wipe(driver, database)
    ingest(driver, database, vault)
    assert diff(incremental, dump(driver, database)) == []


def test_correcting_and_restoring_a_conflicting_figure(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    ingest(clean_db, neo4j_database, vault)
    before = _detected(clean_db, neo4j_database)
    assert any(x["subject"] == "Mooncake" for x in before)

    overview = vault / "wiki" / "overview.md"
    text = overview.read_text(encoding="utf-8")
    assert "TTFT を最大 2 倍削減" in text
    overview.write_text(text.replace("TTFT を最大 2 倍削減", "TTFT を最大 1.75 倍削減"),
                        encoding="utf-8")
    # Force the incremental path (one transaction for the touched subjects only).
    monkeypatch.setattr(graph_writer, "INCREMENTAL_CLAIMS", 10**6)
    report = ingest(clean_db, neo4j_database, vault)
    assert report.parsed == 1
    after = _detected(clean_db, neo4j_database)
    assert not any(x["subject"] == "Mooncake" for x in after)
    assert [x for x in after if x["subject"] != "Mooncake"] == \
        [x for x in before if x["subject"] != "Mooncake"]
    _same_as_clean(clean_db, neo4j_database, vault)

    overview.write_text(text, encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    assert _detected(clean_db, neo4j_database) == before
    _same_as_clean(clean_db, neo4j_database, vault)


def test_a_conflict_left_behind_by_a_dead_run_is_repaired(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    ingest(clean_db, neo4j_database, vault)
    # A run that died right after removing the overview's claims (its hash already cleared),
    # then the overview was corrected: nothing the new run parses names Mooncake's figure any
    # more, yet the stale conflict must go.
    clean_db.execute_query(
        "MATCH (p:Page {key: 'overview'}) SET p.content_hash = null WITH p "
        "MATCH (c:Claim) WHERE c.asserted_by = p.key DETACH DELETE c", database_=neo4j_database)
    overview = vault / "wiki" / "overview.md"
    overview.write_text(overview.read_text(encoding="utf-8").replace(
        "TTFT を最大 2 倍削減", "TTFT を大きく削減"), encoding="utf-8")
    monkeypatch.setattr(graph_writer, "INCREMENTAL_CLAIMS", 10**6)
    ingest(clean_db, neo4j_database, vault)
    assert not any(x["subject"] == "Mooncake" for x in _detected(clean_db, neo4j_database))
    _same_as_clean(clean_db, neo4j_database, vault)


def test_first_ingest_derives_conflicts_as_the_graph_would(
        clean_db: neo4j.Driver, neo4j_database: str) -> None:
    """A first ingest derives numeric conflicts from the snapshot in memory; deriving them
    again from the claims stored in the graph (the path every later big write takes) must
    produce the same graph, node for node."""
    report = ingest(clean_db, neo4j_database, SHARED_EXAMPLE)
    assert report.parsed > 0
    from_memory = dump(clean_db, neo4j_database)
    assert _detected(clean_db, neo4j_database)
    claims = [ClaimRecord(origin="numeric", **r.data())
              for r in clean_db.execute_query(writes.NUMERIC_CLAIMS,
                                              database_=neo4j_database).records]
    # Deriving again over an unchanged graph writes nothing: every stored conflict is intact.
    unchanged = graph_writer.GraphWriter(clean_db, neo4j_database)
    unchanged._derive_all(claims)
    assert unchanged.stats.nodes_created == unchanged.stats.nodes_deleted == 0
    assert unchanged.stats.relationships_created == 0
    clean_db.execute_query("MATCH (x:Contradiction {kind: 'detected'}) DETACH DELETE x",
                           database_=neo4j_database)
    writer = graph_writer.GraphWriter(clean_db, neo4j_database)
    writer._derive_all(claims)
    assert writer.stats.nodes_created > 0  # it really wrote them again
    assert diff(from_memory, dump(clean_db, neo4j_database)) == []


def test_forced_reingest_keeps_the_same_conflicts(
        clean_db: neo4j.Driver, neo4j_database: str) -> None:
    """`--force` rewrites every page, so it also takes the in-memory path: same graph."""
    ingest(clean_db, neo4j_database, SHARED_EXAMPLE)
    before = dump(clean_db, neo4j_database)
    report = ingest(clean_db, neo4j_database, SHARED_EXAMPLE, force=True)
    assert report.parsed >= report.pages and report.relationships_created > 0
    assert diff(before, dump(clean_db, neo4j_database)) == []


def test_the_graph_answers_scope_questions_as_the_claims_do(
        clean_db: neo4j.Driver, neo4j_database: str) -> None:
    """`GraphClaims` (Cypher) and `ClaimList` (Python, the reference the scope is proven
    against) agree on the example vault's numeric claims, for every subject with a conflict."""
    ingest(clean_db, neo4j_database, SHARED_EXAMPLE)
    writer = graph_writer.GraphWriter(clean_db, neo4j_database)
    memory = ClaimList(ClaimRecord(origin="numeric", **r)
                       for r in writer.read(writes.NUMERIC_CLAIMS))
    graph = graph_writer.GraphClaims(writer)
    groups = {g for x in _detected(clean_db, neo4j_database)
              if (g := conflict_group(str(x["id"]))) is not None}
    assert groups
    co_stated = memory.co_stated(groups)
    assert graph.co_stated(groups) == co_stated and co_stated > groups
    assert graph.count_of(co_stated) == len(memory.claims_of(co_stated))
    by_id = {c.id: c for c in memory.claims_of(co_stated)}
    assert {c.id: c for c in graph.claims_of(co_stated)} == by_id
    signatures = conflict_signatures(by_id.values())
    assert signatures and graph.holders(signatures) == memory.holders(signatures)
    assert graph.holders([]) == set()
