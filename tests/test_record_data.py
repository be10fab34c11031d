"""`graph.records.data_rows` gives what `Record.data()` gives, for every kind of value Neo4j
returns (it skips the driver's slow checks for the plain ones), and `read` uses it;
`value_rows` (for `read_values`, queries returning plain values only) gives the same on those."""

from __future__ import annotations

from typing import Any

import neo4j
import pytest

from graph.connection import read, read_values
from graph.records import data_rows, value_rows

NODE = "(n:RecordProbe {name: 'a', tags: ['x'], born: date('2020-01-01')})"
REL = "(a:RecordProbe {name: 'a'})-[r:PROBES {w: 1}]->(b:RecordProbe {name: 'b'})"
PATH = "p = (:RecordProbe {name: 'a'})-[:PROBES]->(:RecordProbe {name: 'b'})"
# Each query returns one kind of value, plain or not, alone and nested in lists and maps (a
# graph value that comes only nested, after plain values, must still be exported as data() does).
PLAIN = {"scalars", "text", "temporal", "nested"}
VALUES = {
    "scalars": "RETURN 'text' AS s, 42 AS i, 2^62 AS big, 1.5 AS f, true AS b, null AS n",
    "text": "RETURN ['', 'é', '日本語', 'a\\nb'] AS strings",
    "temporal": "RETURN date('2024-05-01') AS d, datetime('2024-05-01T10:00:00Z') AS dt, "
                "localdatetime('2024-05-01T10:00') AS ldt, time('10:00+01:00') AS t, "
                "localtime('10:00') AS lt, duration('P1Y2DT3H') AS dur",
    "nested": "RETURN {a: [1, {b: [date('2024-01-02'), null, {c: 'x'}]}], e: []} AS m, "
              "[[1, 2], [], [[3]]] AS lists, {} AS empty",
    "points": "RETURN point({x: 1, y: 2}) AS p, [point({latitude: 1, longitude: 2})] AS ps",
    "bytes": "RETURN $blob AS blob",
    "node": f"CREATE {NODE} RETURN n",
    "node in a list": f"CREATE {NODE} RETURN 'plain' AS first, [1, n] AS ns",
    "node in a map": f"CREATE {NODE} RETURN {{at: [{{n: n}}]}} AS nm",
    "relationship": f"CREATE {REL} RETURN r",
    "relationship nested": f"CREATE {REL} RETURN a.name AS plain, {{r: [r]}} AS nested",
    "path": f"CREATE {PATH} RETURN p",
    "path in a list": f"CREATE {PATH} RETURN 1 AS one, [p] AS ps",
}


def _result(driver: neo4j.Driver, database: str, query: str
            ) -> tuple[tuple[str, ...], list[neo4j.Record]]:
    with driver.session(database=database) as session:
        result = session.run(query, blob=b"\x00\x01bytes")
        return result.keys(), list(result)


@pytest.mark.parametrize("kind", sorted(VALUES))
def test_data_rows_are_record_dot_data(clean_db: neo4j.Driver, neo4j_database: str,
                                       kind: str) -> None:
    keys, records = _result(clean_db, neo4j_database, VALUES[kind])
    assert records
    fast, slow = data_rows(keys, records), [record.data() for record in records]
    assert fast == slow
    assert _types(fast) == _types(slow)
    if kind in PLAIN:
        assert value_rows(keys, records) == slow
        assert _types(value_rows(keys, records)) == _types(slow)


def _types(value: Any) -> Any:
    """The value's shape by type, so that equal-comparing values of other types (1 and 1.0,
    True and 1, a tuple and a list) count as different."""
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return (type(value), [_types(v) for v in value])
    return type(value)


def test_read_and_read_values_through_a_transaction(clean_db: neo4j.Driver,
                                                           neo4j_database: str) -> None:
    clean_db.execute_query("CREATE (:RecordProbe {name: 'a', at: date('2024-01-01')})",
                           database_=neo4j_database)
    rows = read(clean_db, neo4j_database,
                "MATCH (n:RecordProbe) RETURN n, n.name AS name, [n.at] AS at")
    assert rows == [{"n": {"name": "a", "at": neo4j.time.Date(2024, 1, 1)}, "name": "a",
                     "at": [neo4j.time.Date(2024, 1, 1)]}]
    assert read_values(clean_db, neo4j_database,
                       "MATCH (n:RecordProbe) RETURN n.name AS name, {at: [n.at]} AS m") == [
        {"name": "a", "m": {"at": [neo4j.time.Date(2024, 1, 1)]}}]
