"""`POST /cypher` runs only what Neo4j itself plans as a read: writes, writing procedures, schema
and admin commands and LOAD CSV are refused however they are written (comments, strings,
casing), while reads that merely mention those words run. Needs the API key; has a timeout.
Through FastAPI's TestClient against a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import neo4j
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.cypher_router import router
from graph.settings import Settings
from tests import db as test_db

pytestmark = pytest.mark.integration
KEY = "test-cypher-key"
AUTH = {"Authorization": f"Bearer {KEY}"}
SEED = ("CREATE (:Page:Concept {key: 'テンソル並列', title: 'テンソル並列', kind: 'Concept'}) "
        "CREATE (:Page {key: 'b', title: 'CREATE me', kind: 'Note'})")
FINGERPRINT = ("MATCH (n) OPTIONAL MATCH (n)-[r]->() "
               "RETURN count(DISTINCT n) AS nodes, count(r) AS rels, "
               "collect(DISTINCT labels(n)) AS labels, "
               "collect(DISTINCT [k IN keys(n) | k]) AS keys")


def make_app(driver: neo4j.Driver, database: str, **env: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(router)
    app.state.driver = driver
    app.state.settings = Settings(NEO4J_DATABASE=database, **env)
    return app


@pytest.fixture(scope="module")
def seeded(neo4j_driver: neo4j.Driver, neo4j_database: str) -> Iterator[neo4j.Driver]:
    test_db.wipe(neo4j_driver, neo4j_database)
    neo4j_driver.execute_query(SEED, database_=neo4j_database)
    yield neo4j_driver


@pytest.fixture(scope="module")
def client(seeded: neo4j.Driver, neo4j_database: str) -> TestClient:
    return TestClient(make_app(seeded, neo4j_database, VAULTKG_API_KEY=KEY,
                               VAULTKG_QUERY_TIMEOUT=1.0))


def state(driver: neo4j.Driver, database: str) -> dict[str, Any]:
    records, _, _ = driver.execute_query(FINGERPRINT, database_=database)
    return records[0].data()


REFUSED = [
    "CREATE (n:Hacked)",
    "MERGE (n:Hacked {x: 1}) RETURN n",
    "MATCH (n) DETACH DELETE n",
    "MATCH (n) SET n.hacked = true RETURN n",
    "MATCH (n) REMOVE n.key",
    "CALL db.createLabel('Hacked')",
    "CALL db.createProperty('hacked')",
    "CALL db.createRelationshipType('HACKED')",
    "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
    "load csv with headers from 'https://example.org/x.csv' as row return row",
    # hidden in comments
    "/* read only, promise */ CREATE (n:Hacked)",
    "MATCH (n) // just reading\nWITH n LIMIT 1 CREATE (m:Hacked)",
    "MATCH (n) /* RETURN n */ DETACH DELETE n",
    # hidden by strings that fool a text scanner (escaped quotes, comment markers)
    "WITH 'it\\'s only a string' AS s CREATE (n:Hacked {s: s})",
    "WITH \"/*\" AS a CREATE (n:Hacked) WITH n, \"*/\" AS b RETURN b",
    "WITH '// RETURN' AS s MERGE (n:Hacked {s: s})",
    # unusual casing and spacing
    "cReAtE (n:Hacked)",
    "match (n) sEt n.hacked\n=\n1",
    "cAlL   db.createLabel (\n 'Hacked' )",
    # writes inside subqueries and FOREACH
    "WITH 1 AS x CALL (x) { CREATE (n:Hacked) } RETURN x",
    "MATCH (n) FOREACH (_ IN [1] | SET n.hacked = 1)",
    # schema, admin and state-changing procedures Neo4j calls reads
    "CREATE INDEX hacked FOR (n:Page) ON (n.hacked)",
    "CALL db.clearQueryCaches()",
    "CALL db.stats.collect('QUERIES')",
    "TERMINATE TRANSACTIONS 'neo4j-transaction-1'",
    "SHOW TRANSACTIONS",
]


@pytest.mark.parametrize("query", REFUSED)
def test_writes_and_outside_reads_are_refused(query: str, client: TestClient,
                                              seeded: neo4j.Driver,
                                              neo4j_database: str) -> None:
    before = state(seeded, neo4j_database)
    response = client.post("/cypher", json={"query": query}, headers=AUTH)
    assert response.status_code == 403, response.text
    assert response.json()["detail"]["code"] == "NOT_READ_ONLY"
    assert state(seeded, neo4j_database) == before


@pytest.mark.parametrize("query", ["PROFILE CREATE (n:Hacked)", "CREATE (n:Hacked",
                                   "MATCH (n) RETURN n; CREATE (m:Hacked)",
                                   "CALL Db.CreateLabel('Hacked')"])  # names are case-exact
def test_queries_neo4j_cannot_plan_are_refused_before_running(
        query: str, client: TestClient, seeded: neo4j.Driver, neo4j_database: str) -> None:
    before = state(seeded, neo4j_database)
    response = client.post("/cypher", json={"query": query}, headers=AUTH)
    assert response.status_code == 400, response.text
    assert response.json()["detail"]["code"] == "BAD_USER_INPUT"
    assert state(seeded, neo4j_database) == before


def test_reads_that_only_mention_writes_run(client: TestClient) -> None:
    response = client.post("/cypher", headers=AUTH, json={
        "query": "// CREATE, MERGE, DELETE, SET, LOAD CSV\n"
                 "MATCH (p:Page) WHERE p.title <> 'DELETE' "
                 "RETURN p.key AS key, 'MERGE (x)' AS text /* SET x = 1 */ ORDER BY key"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["query_type"] == "r"
    assert body["columns"] == ["key", "text"]
    assert body["rows"] == [["b", "MERGE (x)"], ["テンソル並列", "MERGE (x)"]]


def test_parameters_nodes_procedures_and_show(client: TestClient) -> None:
    response = client.post("/cypher", headers=AUTH, json={
        "query": "MATCH (p:Page {key: $key}) RETURN p", "params": {"key": "テンソル並列"}})
    assert response.status_code == 200, response.text
    node = response.json()["rows"][0][0]
    assert node["labels"] == ["Concept", "Page"] and node["properties"]["title"] == "テンソル並列"
    labels = client.post("/cypher", headers=AUTH,
                         json={"query": "CALL db.labels() YIELD label RETURN label"})
    assert labels.status_code == 200 and ["Page"] in labels.json()["rows"]
    shown = client.post("/cypher", headers=AUTH, json={"query": "SHOW INDEXES YIELD name"})
    assert shown.status_code == 200, shown.text


def test_rows_are_capped(client: TestClient) -> None:
    response = client.post("/cypher", headers=AUTH, json={
        "query": "UNWIND range(1, 50) AS x RETURN x", "max_rows": 10})
    body = response.json()
    assert len(body["rows"]) == 10 and body["truncated"] is True


def test_long_queries_time_out(client: TestClient) -> None:
    response = client.post("/cypher", headers=AUTH, json={
        "query": "UNWIND range(1, 2000000000) AS x WITH x WHERE x = -1 RETURN count(x)"})
    assert response.status_code == 504, response.text
    assert response.json()["detail"]["code"] == "TIMEOUT"


def test_the_key_is_required(client: TestClient) -> None:
    query = {"query": "RETURN 1 AS one"}
    assert client.post("/cypher", json=query).status_code == 401
    wrong = client.post("/cypher", json=query, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
    basic = client.post("/cypher", json=query, headers={"Authorization": f"Basic {KEY}"})
    assert basic.status_code == 401
    ok = client.post("/cypher", json=query, headers=AUTH)
    assert ok.status_code == 200 and ok.json()["rows"] == [[1]]


def test_without_a_configured_key_the_endpoint_is_off(seeded: neo4j.Driver,
                                                      neo4j_database: str) -> None:
    off = TestClient(make_app(seeded, neo4j_database, VAULTKG_API_KEY=None))
    response = off.post("/cypher", json={"query": "RETURN 1"}, headers=AUTH)
    assert response.status_code == 403
    assert response.json()["detail"]["code"] == "DISABLED"
