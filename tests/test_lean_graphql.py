"""The lean path for plain JSON POSTs to /graphql (api/lean_graphql.py) answers exactly as
strawberry's router does: the same status, content type and body (data, coded errors, the cost
report) for queries, mutations, resolver and variable errors; and what it does not take (bad
JSON, batches, other content types, invalid documents, unknown operations, `extensions`, query
strings, streams) reaches the router untouched. Two real servers on the example graph, one
without the lean path; the lean path's own count shows it answered what it should."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import api.lean_graphql as lean
from api.lean_graphql import LeanRequest, _plain_json_post, lean_request, prepared_documents
from benchmarks.query_bench import CONTRADICTIONS_5, FOLD, LINEAGE, PAGES, PATH, SEARCH
from tests.api_server import API_KEY, running, settings_for
from tests.db import TestDatabase

pytestmark = pytest.mark.integration

WORK = "@2020__SC__ZeRO Memory Optimizations Toward Training Trillion Parameter Models"
PARENT = ("@2019__arXiv__Megatron-LM Training Multi-Billion Parameter Language Models Using "
          "Model Parallelism")
TWO_OPERATIONS = "query A { __typename } query B { page(key: \"テンソル並列\") { key } }"
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def servers(example_graph: object, test_database: TestDatabase) -> Iterator[tuple[str, str]]:
    """(lean, router only): the same settings, one with the lean path and one without."""
    settings = settings_for(test_database, VAULTKG_API_KEY=API_KEY)
    with running(settings) as with_lean, running(settings, lean_graphql=False) as without:
        yield with_lean, without


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The query texts the lean path answered itself (servers run in this process)."""
    answered: list[str] = []
    execute = lean.execute_lean

    async def counted(request: LeanRequest, context: Any) -> Any:
        result = await execute(request, context)
        if result is not None:
            answered.append(request.query)
        return result

    monkeypatch.setattr(lean, "execute_lean", counted)
    return answered


def both(servers: tuple[str, str], body: bytes | None = None, *, json: Any = None,
         headers: dict[str, str] | None = None, params: dict[str, str] | None = None
         ) -> httpx.Response:
    """The same request to both servers; asserts the answers are the same, returns one."""
    answers = []
    for base in servers:
        with httpx.Client(base_url=base, timeout=60) as http:
            answers.append(http.post("/graphql", content=body, json=json, headers=headers,
                                     params=params))
    lean_answer, router_answer = answers
    assert lean_answer.status_code == router_answer.status_code, lean_answer.text
    assert lean_answer.headers["content-type"] == router_answer.headers["content-type"]
    if router_answer.headers["content-type"] == "application/json":
        assert lean_answer.json() == router_answer.json()
    else:
        assert lean_answer.text == router_answer.text
    return lean_answer


ANSWERED_LEAN: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    (LINEAGE, {"k": WORK, "d": 3}, {}),
    (LINEAGE, {"k": "ZeRO", "d": 10}, {}),  # by title
    (PATH, {"a": WORK, "b": PARENT}, {}),
    (CONTRADICTIONS_5, {"s": "テンソル並列"}, {}),
    (CONTRADICTIONS_5, {"s": None}, {}),
    (SEARCH, {"t": "pipeline"}, {}),
    (PAGES, {"f": {"concept": "テンソル並列"}}, {}),
    (FOLD, {"l": 4, "d": "2026-06-22"}, {}),
    ("{ __typename }", {}, {}),
    ("{ __schema { queryType { name } types { name kind } } }", {}, {}),
    ('{ page(key: "no such page") { key } }', {}, {}),
    ('{ lineage(from: "no such work") { truncated } }', {}, {}),  # NOT_FOUND
    ('{ search(text: "' + "あ" * 5000 + '") { score } }', {}, {}),  # BAD_USER_INPUT
    ("query($d: Int!) { lineage(from: \"ZeRO\", maxDepth: $d) { truncated } }",
     {"d": "three"}, {}),  # a variable of the wrong type: an error of the result
    ("query($d: Int!) { lineage(from: \"ZeRO\", maxDepth: $d) { truncated } }", {}, {}),
    ('mutation { ingest(path: "/nowhere") { pages } }', {}, {}),  # UNAUTHENTICATED
    ('mutation { ingest(path: "/nowhere") { pages } }', {},
     {"Authorization": f"Bearer {API_KEY}"}),  # authenticated, refused path
]


def test_the_lean_path_answers_as_the_router(servers: tuple[str, str], taken: list[str]
                                            ) -> None:
    for query, variables, headers in ANSWERED_LEAN:
        answer = both(servers, json={"query": query, "variables": variables},
                      headers=headers)
        assert answer.status_code == 200
        assert "extensions" in answer.json() or query.startswith("mutation")
    assert taken == [query for query, _, _ in ANSWERED_LEAN]
    codes = {e["extensions"]["code"] for query, variables, headers in ANSWERED_LEAN[10:]
             for e in httpx.post(f"{servers[0]}/graphql", headers=headers, timeout=60,
                                 json={"query": query, "variables": variables}
                                 ).json().get("errors") or []}
    assert {"NOT_FOUND", "BAD_USER_INPUT", "UNAUTHENTICATED"} <= codes


def test_an_operation_is_chosen_by_name(servers: tuple[str, str], taken: list[str]) -> None:
    answer = both(servers, json={"query": TWO_OPERATIONS, "operationName": "B"})
    assert answer.json()["data"] == {"page": {"key": "テンソル並列"}}
    assert taken == [TWO_OPERATIONS]
    # No name (strawberry runs the first) and an unknown one (a 400): the router's answers.
    assert both(servers, json={"query": TWO_OPERATIONS}).json()["data"] == {
        "__typename": "Query"}
    assert both(servers, json={"query": TWO_OPERATIONS, "operationName": "C"}
                ).status_code == 400
    assert taken == [TWO_OPERATIONS]


def test_what_the_lean_path_does_not_take_reaches_the_router(servers: tuple[str, str],
                                                             taken: list[str]) -> None:
    simple = {"query": "{ __typename }"}
    refused = [
        both(servers, b"{not json", headers=JSON),
        both(servers, b"[" * 10_000, headers=JSON),
        both(servers, json=[simple, simple]),  # a batch
        both(servers, b'{"query": "{ __typename }"}', headers={"content-type": "text/plain"}),
        both(servers, json={"query": 42}),
        both(servers, json={"query": "{ __typename }", "variables": [1]}),
        both(servers, json={}),
    ]
    assert [r.status_code for r in refused] == [400] * len(refused)
    answered = [
        both(servers, json={"query": "{ nosuchfield }"}),  # invalid: the router's errors
        both(servers, json={"query": "{ page(key: "}),  # does not parse
        both(servers, json={"query": "{ __typename }", "extensions": {"x": 1}}),
        both(servers, json=simple, params={"api_key": "x"}),
        both(servers, json={"query": "{ " + "a: __typename " * 200 + "}"}),  # too many aliases
    ]
    assert [r.status_code for r in answered] == [200] * len(answered)
    assert answered[0].json()["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert answered[1].json()["errors"][0]["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
    assert taken == []


def test_lean_requests_are_only_plain_ones() -> None:
    assert lean_request(b'{"query": "{ a }", "variables": {"x": 1}, "operationName": "Q"}'
                        ) == LeanRequest("{ a }", {"x": 1}, "Q")
    assert lean_request(b'{"query": "{ a }", "variables": null}') == LeanRequest("{ a }", None,
                                                                                None)
    for body in (b"", b"[]", b'"x"', b'{"query": ""}', b'{"query": 1}',
                 b'{"query": "{ a }", "variables": []}', b'{"query": "{ a }", "operationName": 1}',
                 b'{"query": "{ a }", "extensions": {}}',
                 b'{"query": "' + b"a" * (lean.MAX_CACHED_QUERY + 1) + b'"}'):
        assert lean_request(body) is None, body


def test_only_plain_json_posts_to_graphql_are_taken() -> None:
    def scope(method: str = "POST", path: str = "/graphql", query: bytes = b"",
              **headers: str) -> dict[str, Any]:
        return {"type": "http", "method": method, "path": path, "query_string": query,
                "headers": [(k.replace("_", "-").encode(), v.encode())
                            for k, v in headers.items()]}

    assert _plain_json_post(scope(content_type="application/json"))
    assert _plain_json_post(scope(content_type="Application/JSON; charset=utf-8",
                                  accept="application/json"))
    for other in (scope("GET", content_type="application/json"),
                  scope(path="/cypher", content_type="application/json"),
                  scope(query=b"x=1", content_type="application/json"),
                  scope(content_type="application/graphql"),
                  scope(content_type="multipart/form-data; boundary=x"),
                  scope(content_type="application/json", accept="text/event-stream"),
                  scope(content_type="application/json", accept="multipart/mixed"),
                  scope()):
        assert not _plain_json_post(other), other


def test_prepared_documents_keep_the_recent_and_refuse_the_invalid() -> None:
    documents = prepared_documents(size=2)
    first = documents("{ __typename }")
    assert first is not None and documents("{ __typename }") is first
    assert documents("{ nosuchfield }") is None  # invalid: the router answers
    assert documents("{ page(key: ") is None  # does not parse
    assert documents("{ __typename }") is not first  # dropped for the two after it
