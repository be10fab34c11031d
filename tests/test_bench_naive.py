"""The naive baseline writes the graph the batched ingest writes (the benchmark's ratio compares
like with like): the same nodes per label and relationships per type on the example vault."""

from __future__ import annotations

from collections import Counter

import neo4j
import pytest

from benchmarks.naive import naive_write
from graph.ingest import ingest
from graph.schema import ensure_schema
from loaders.vault import load_vault
from tests import db as test_db
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration

COUNTS = ("CALL () { MATCH (n) WHERE NOT n:IngestLock UNWIND labels(n) AS label "
          "  RETURN collect(label) AS labels } "
          "CALL () { MATCH ()-[r]->() RETURN collect(type(r)) AS types } "
          "RETURN labels, types")


def _counts(driver: neo4j.Driver, database: str) -> tuple[Counter[str], Counter[str]]:
    """(nodes per label, relationships per type): a failure names what differs."""
    records, _, _ = driver.execute_query(COUNTS, database_=database)
    return Counter(records[0]["labels"]), Counter(records[0]["types"])


def test_naive_baseline_writes_the_same_graph(clean_db: neo4j.Driver,
                                              neo4j_database: str) -> None:
    ingest(clean_db, neo4j_database, SHARED_EXAMPLE)
    batched = _counts(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ensure_schema(clean_db, neo4j_database)
    naive_write(clean_db, neo4j_database, load_vault(SHARED_EXAMPLE))
    naive = _counts(clean_db, neo4j_database)
    assert "FOLDS" in batched[1] and "INVOLVES" in batched[1]
    assert naive == batched
