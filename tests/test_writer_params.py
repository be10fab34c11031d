"""The writer's list parameters reach the driver as `Batch`es: the same values and bytes on the
wire, and a one-line `repr`, because the driver formats every statement's parameters for its
debug log even when that log is off."""

from __future__ import annotations

import io
import logging

import neo4j
import pytest
from neo4j._codec.packstream.v1 import Packer

from graph.writer import Batch, GraphWriter, _quiet

ROWS = [{"key": f"page {n}", "props": {"line": n, "raw": "[[x]]", "none": None,
                                       "pair": (1, 2)}} for n in range(5000)]


def _packed(value: object) -> bytes:
    out = io.BytesIO()
    Packer(out).pack(value)  # type: ignore[no-untyped-call]
    return out.getvalue()


def test_lists_and_tuples_become_batches_of_the_same_values() -> None:
    params = _quiet({"rows": ROWS, "keys": ("a", "b"), "page": "p", "n": 3, "none": None})
    assert isinstance(params["rows"], Batch) and isinstance(params["keys"], Batch)
    assert params["rows"] == ROWS and params["keys"] == ["a", "b"]
    assert {k: params[k] for k in ("page", "n", "none")} == {"page": "p", "n": 3, "none": None}
    assert repr(params["rows"]) == "<5,000 items>"
    assert _packed(params) == _packed({"rows": ROWS, "keys": ["a", "b"], "page": "p", "n": 3,
                                       "none": None})


def test_the_drivers_debug_line_of_a_batch_is_short(
        clean_db: neo4j.Driver, neo4j_database: str, caplog: pytest.LogCaptureFixture) -> None:
    """Through the real driver: its `C: RUN` line names the batch instead of spelling 5,000
    rows out, and every row is written."""
    writer = GraphWriter(clean_db, neo4j_database)
    with caplog.at_level(logging.DEBUG, logger="neo4j"):
        writer.batched("UNWIND $rows AS row CREATE (:BatchProbe {key: row.key})", ROWS)
    runs = [r.getMessage() for r in caplog.records if "C: RUN" in r.getMessage()]
    assert runs and all(len(line) < 1000 for line in runs), runs[:1]
    assert "<5,000 items>" in runs[0]
    records, _, _ = clean_db.execute_query("MATCH (n:BatchProbe) RETURN count(n) AS n",
                                           database_=neo4j_database)
    assert records[0]["n"] == len(ROWS)
    assert writer.stats.nodes_created == len(ROWS)


def test_statement_parameters_may_have_any_name(clean_db: neo4j.Driver,
                                                neo4j_database: str) -> None:
    """The writer hands its parameters over as one dict: names that are also keywords of
    `graph.connection.write` (`timeout`, `database`, `driver`) reach Neo4j too."""
    writer = GraphWriter(clean_db, neo4j_database)
    writer.run("CREATE (:BatchProbe {t: $timeout, d: $database, v: $driver})",
               timeout=3, database="db", driver="drv")
    records, _, _ = clean_db.execute_query(
        "MATCH (n:BatchProbe) RETURN n.t AS t, n.d AS d, n.v AS v", database_=neo4j_database)
    assert [r.data() for r in records] == [{"t": 3, "d": "db", "v": "drv"}]
    assert writer.stats.nodes_created == 1
