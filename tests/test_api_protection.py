"""The API refuses what could hurt it (deep nesting, many aliases, huge documents, huge
`first`, fan-out), answers every error with `extensions.code` and no stack trace, keeps
answering afterwards, guards mutations with the API key and vault roots, and says
GRAPH_UNAVAILABLE when Neo4j is down. Over HTTP, against a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import neo4j
import pytest
from graphql import GraphQLError

from api.context import CountingGraphContext
from api.errors import code_and_message
from graph.errors import GraphError
from tests.api_server import API_KEY, Api, free_port, running, settings_for
from tests.db import TestDatabase
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration

ALIVE = '{ page(key: "テンソル並列") { key } }'


@pytest.fixture(scope="module")
def server(example_graph: object, test_database: TestDatabase) -> Iterator[str]:
    settings = settings_for(test_database, VAULTKG_API_KEY=API_KEY,
                            VAULTKG_VAULT_ROOTS=[SHARED_EXAMPLE.parent])
    with running(settings) as base:
        yield base


@pytest.fixture
def api(server: str) -> Api:
    return Api(server)


def still_answers(api: Api) -> None:
    assert api.data(ALIVE) == {"page": {"key": "テンソル並列"}}
    assert api.http.get("/healthz").status_code == 200


def nested(depth: int) -> str:
    """A valid query `depth` levels deep: page -> linksTo -> linksTo ..."""
    return ('{ page(key: "GPipe") { ' + "linksTo { " * (depth - 1) + "key"
            + " }" * (depth - 1) + " } }")


def refusal(api: Api, query: str) -> dict[str, object]:
    body = api.post(query)
    assert body["data"] is None
    (error,) = body["errors"]
    assert isinstance(error, dict)
    return error


def test_query_nested_20_levels_is_refused(api: Api) -> None:
    error = refusal(api, nested(20))
    assert error["extensions"] == {"code": "QUERY_TOO_COMPLEX"}
    assert "maximum operation depth of 12" in str(error["message"])
    still_answers(api)
    assert "errors" not in api.post(nested(5))  # a shallower one is fine


def test_query_with_1000_aliases_is_refused(api: Api) -> None:
    query = "{ " + " ".join(f"a{i}: __typename" for i in range(1000)) + " }"
    error = refusal(api, query)
    assert error["extensions"] == {"code": "QUERY_TOO_COMPLEX"}
    assert "1000 aliases found. Allowed: 100" in str(error["message"])
    still_answers(api)
    fine = "{ " + " ".join(f"a{i}: __typename" for i in range(50)) + " }"
    assert len(api.data(fine)) == 50


def test_huge_document_is_refused_by_token_limit(api: Api) -> None:
    error = refusal(api, "{ " + "__typename " * 6000 + "}")
    assert error["extensions"] == {"code": "QUERY_TOO_COMPLEX"}
    assert "more than 5000 tokens" in str(error["message"])
    still_answers(api)


@pytest.mark.parametrize("field", ["papers", "pages", "contradictions", "logEntries"])
def test_first_one_billion_is_refused(api: Api, field: str) -> None:
    body = api.post("{ " + field + "(first: 1000000000) { edges { cursor } } }")
    (error,) = body["errors"]
    assert error["extensions"] == {"code": "BAD_USER_INPUT"}
    assert error["message"] == "`first` must be between 1 and 100 (got 1000000000)"
    assert api.post('{ search(text: "x", first: 1000000000) { score } }')["errors"][0][
        "extensions"]["code"] == "BAD_USER_INPUT"
    still_answers(api)


def test_fan_out_is_cut_by_the_object_budget(api: Api) -> None:
    body = api.post('{ page(key: "log") { linksTo { linksTo { linksTo { linksTo { key } } } } '
                    "} }")
    assert body["errors"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"
    assert body["extensions"]["cost"]["neo4jQueries"] <= 4
    still_answers(api)


def test_errors_have_codes_and_no_stack_traces(api: Api) -> None:
    cases = {
        "{ nosuchfield }": "GRAPHQL_VALIDATION_FAILED",
        "{ ": "GRAPHQL_PARSE_FAILED",
        '{ lineage(from: "no such work") { truncated } }': "NOT_FOUND",
        '{ lineage(from: "GPipe", maxDepth: 50) { truncated } }': "BAD_USER_INPUT",
        '{ search(text: "") { score } }': "BAD_USER_INPUT",
        '{ logEntries(from: "2026-06-20", to: "2026-06-01") { nodes { key } } }':
            "BAD_USER_INPUT",
        '{ logEntries(from: "not a date") { nodes { key } } }': "GRAPHQL_VALIDATION_FAILED",
        '{ papers(first: 10000000000) { totalCount } }': "GRAPHQL_VALIDATION_FAILED",
    }
    for query, code in cases.items():
        body = api.post(query)
        assert [e["extensions"]["code"] for e in body["errors"]] == [code], (query, body)
        for error in body["errors"]:
            assert set(error) <= {"message", "locations", "path", "extensions"}
            assert "Traceback" not in error["message"] and "File \"" not in error["message"]
    still_answers(api)


def test_mutations_need_the_key(server: str) -> None:
    mutation = 'mutation($p: String!) { ingest(path: $p) { pages changed } }'
    for token in (None, "wrong-key"):
        body = Api(server, token).post(mutation, p=str(SHARED_EXAMPLE))
        assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert body["data"] is None
    raw = httpx.post(f"{server}/graphql", json={"query": mutation,
                                                 "variables": {"p": str(SHARED_EXAMPLE)}},
                     headers={"Authorization": f"Basic {API_KEY}"})
    assert raw.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_ingest_is_confined_to_the_vault_roots(server: str, tmp_path: Path) -> None:
    api = Api(server, API_KEY)
    mutation = 'mutation($p: String!) { ingest(path: $p) { pages changed } }'
    for outside in ("/etc", str(tmp_path), f"{SHARED_EXAMPLE}/../../../../etc"):
        body = api.post(mutation, p=outside)
        assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT", outside
        assert "outside the configured vault roots" in body["errors"][0]["message"]
    escape = tmp_path / "link"
    escape.symlink_to("/etc")
    assert api.post(mutation, p=str(escape))["errors"][0]["extensions"]["code"] == (
        "BAD_USER_INPUT")
    # Inside the roots: the example vault, already loaded, so nothing changes.
    done = api.data(mutation, p=str(SHARED_EXAMPLE))["ingest"]
    assert done == {"pages": 102, "changed": False}


def test_reads_can_require_the_key(example_graph: object,
                                   test_database: TestDatabase) -> None:
    settings = settings_for(test_database, VAULTKG_API_KEY=API_KEY,
                            VAULTKG_READ_REQUIRES_KEY=True)
    with running(settings) as base:
        body = Api(base).post(ALIVE)
        assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert Api(base, API_KEY).data(ALIVE) == {"page": {"key": "テンソル並列"}}


def test_mutations_are_off_without_a_configured_key(example_graph: object,
                                                    test_database: TestDatabase) -> None:
    settings = settings_for(test_database, VAULTKG_VAULT_ROOTS=[SHARED_EXAMPLE.parent])
    with running(settings) as base:
        body = Api(base, "anything").post('mutation { ingest(path: "x") { pages } }')
        assert body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert Api(base).data(ALIVE)  # reads stay open


def test_neo4j_down_is_graph_unavailable(test_database: TestDatabase) -> None:
    settings = settings_for(test_database, NEO4J_URI=f"bolt://127.0.0.1:{free_port()}")
    with running(settings) as base:
        api = Api(base)
        assert api.http.get("/healthz").status_code == 200
        ready = api.http.get("/readyz")
        assert ready.status_code == 503 and ready.json()["code"] == "GRAPH_UNAVAILABLE"
        body = api.post(ALIVE)
        assert [e["extensions"]["code"] for e in body["errors"]] == ["GRAPH_UNAVAILABLE"]
        assert "127.0.0.1" not in body["errors"][0]["message"]  # no internals leak


def test_a_query_over_the_transaction_timeout_is_timeout(neo4j_driver: neo4j.Driver,
                                                          neo4j_database: str) -> None:
    graph = CountingGraphContext(neo4j_driver, neo4j_database, timeout_s=0.05)
    with pytest.raises(GraphError) as raised:
        graph.read("UNWIND range(1, 50000000) AS x WITH x WHERE x % 7 = 0 RETURN count(x) AS n")
    code, message = code_and_message(GraphQLError("x", original_error=raised.value))
    assert code == "TIMEOUT" and "UNWIND" not in message
