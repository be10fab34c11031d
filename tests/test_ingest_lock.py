"""Concurrent ingests into one database take turns (a lease in the graph), and the result is
the graph one clean run gives."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import neo4j
import pytest

from graph.errors import GraphError
from graph.ingest import IngestReport, ingest
from graph.lock import ingest_lock
from graph.schema import ensure_schema
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration


def test_lock_makes_the_second_holder_wait(clean_db: neo4j.Driver, neo4j_database: str) -> None:
    ensure_schema(clean_db, neo4j_database)
    spans: dict[str, tuple[float, float]] = {}

    def hold(name: str, seconds: float) -> None:
        with ingest_lock(clean_db, neo4j_database, wait_s=30):
            start = time.monotonic()
            time.sleep(seconds)
            spans[name] = (start, time.monotonic())

    first = threading.Thread(target=hold, args=("a", 1.5))
    first.start()
    time.sleep(0.3)
    second = threading.Thread(target=hold, args=("b", 0.1))
    second.start()
    first.join()
    second.join()
    assert spans["b"][0] >= spans["a"][1]  # b only started once a was done
    leftover, _, _ = clean_db.execute_query("MATCH (l:IngestLock) WHERE l.owner IS NOT NULL "
                                            "RETURN count(l) AS n",
                                            database_=neo4j_database)
    assert leftover[0]["n"] == 0


def test_lock_gives_up_with_a_clear_error(clean_db: neo4j.Driver, neo4j_database: str) -> None:
    with (ingest_lock(clean_db, neo4j_database),
          pytest.raises(GraphError, match="another ingest"),
          ingest_lock(clean_db, neo4j_database, wait_s=1)):
        pass


def test_two_concurrent_ingests_converge(clean_db: neo4j.Driver, neo4j_database: str,
                                         tmp_path: Path) -> None:
    reports: list[IngestReport] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            reports.append(ingest(clean_db, neo4j_database, SHARED_EXAMPLE))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(r.parsed for r in reports) == [0, 103]  # the second found nothing to do
    together = dump(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ingest(clean_db, neo4j_database, SHARED_EXAMPLE)
    assert diff(together, dump(clean_db, neo4j_database)) == []
