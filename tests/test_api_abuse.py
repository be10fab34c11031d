"""API abuse over HTTP, against a real uvicorn server and a real Neo4j: wide queries, fragment
and alias amplification, transport tricks (batches, mutations over GET, huge headers and
values), API-key look-alikes, a query stuck past the transaction timeout, and a bounded load
test during which /healthz must keep answering fast. Deep queries, 1000 aliases, huge `first`,
missing keys and vault-root confinement one by one: tests/test_api_protection.py."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import neo4j
import pytest

from tests.api_server import API_KEY, Api, running, settings_for
from tests.db import TestDatabase
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration

ALIVE = '{ page(key: "テンソル並列") { key } }'
INGEST = 'mutation($p: String!) { ingest(path: $p) { pages changed } }'
SLOW_CYPHER = "UNWIND range(1, 2000000000) AS x WITH x WHERE x = -1 RETURN count(x) AS n"
LOAD_SECONDS = 5.0
LOAD_THREADS = 8
LOAD_MAX_REQUESTS = 600  # the load is bounded in time and in count
HEALTH_EVERY_S = 0.1
# /healthz under load: 9 in 10 answers within a second and none later than 3 s. (Before
# GraphQL execution moved off the event loop, eight fan-out queries stalled it for 18 s.)
HEALTH_BOUND_S = 1.0
HEALTH_WORST_S = 3.0


@pytest.fixture(scope="module")
def server(example_graph: object, test_database: TestDatabase) -> Iterator[str]:
    """The API with a key, the example vault's parent as the only vault root, and a 5 s
    transaction timeout: slow Cypher ends quickly under load, while the wide query (0.3-0.5 s
    on a quiet machine) still fits on a loaded one (2 s did not, at load 5 on 2 cores)."""
    settings = settings_for(test_database, VAULTKG_API_KEY=API_KEY,
                            VAULTKG_VAULT_ROOTS=[SHARED_EXAMPLE.parent],
                            VAULTKG_QUERY_TIMEOUT=5.0)
    with running(settings) as base:
        yield base


@pytest.fixture
def api(server: str) -> Api:
    return Api(server)


def still_answers(api: Api) -> None:
    assert api.data(ALIVE) == {"page": {"key": "テンソル並列"}}
    assert api.http.get("/healthz").status_code == 200


def codes(body: dict[str, Any]) -> list[str]:
    return [e["extensions"]["code"] for e in body.get("errors") or []]


# ---- wide queries -----------------------------------------------------------------------------


def leaf_fields(api: Api, type_name: str) -> list[str]:
    """Fields of a type whose value is a scalar or enum (lists too) and need no argument."""
    data = api.data("query($t: String!) { __type(name: $t) { fields { name "
                    "args { type { kind } } type { kind ofType { kind ofType { kind ofType "
                    "{ kind } } } } } } }", t=type_name)

    def leaf(t: dict[str, Any] | None) -> bool:
        while t is not None and t["kind"] in ("NON_NULL", "LIST"):
            t = t["ofType"]
        return t is not None and t["kind"] in ("SCALAR", "ENUM")

    return [f["name"] for f in data["__type"]["fields"]
            if leaf(f["type"]) and all(a["type"]["kind"] != "NON_NULL" for a in f["args"])]


def wide_query(api: Api) -> str:
    """100 pages, each with every leaf field of every concrete page type, plus its links."""
    kinds = api.data('{ __type(name: "Page") { possibleTypes { name } } }')
    parts = [f"... on {t['name']} {{ {' '.join(leaf_fields(api, t['name']))} }}"
             for t in kinds["__type"]["possibleTypes"]]
    return ("{ pages(first: 100) { totalCount edges { cursor node { "
            + " ".join(parts) + " linksTo { key } linkedFrom { key } "
            "history { role entry { key } } } } } }")


def test_a_wide_query_is_answered_with_few_round_trips(api: Api) -> None:
    query = wide_query(api)
    assert query.count(" on ") >= 5 and len(query.split()) > 150  # really wide
    started = time.monotonic()
    body = api.post(query)
    elapsed = time.monotonic() - started
    assert codes(body) == []
    edges = body["data"]["pages"]["edges"]
    assert len(edges) == 100 and all(e["node"]["body"] is not None for e in edges)
    # DataLoaders batch the per-page lookups: round trips do not grow with the 100 pages
    assert body["extensions"]["cost"]["neo4jQueries"] <= 10
    assert elapsed < 30, elapsed
    still_answers(api)


def test_repeated_fields_are_merged_or_refused(api: Api) -> None:
    """Repeating a field is free (merged into one); repeating it thousands of times would make
    validation compare every pair, so graphql-core stops at its budget."""
    body = api.post('{ page(key: "log") { ' + "key " * 150 + "} }")
    assert body["data"] == {"page": {"key": "log"}}
    assert body["extensions"]["cost"]["neo4jQueries"] == 1
    started = time.monotonic()
    body = api.post('{ page(key: "log") { ' + "key " * 2000 + "} }")
    assert time.monotonic() - started < 10
    assert body["data"] is None and codes(body) == ["QUERY_TOO_COMPLEX"]
    assert body["extensions"]["cost"]["neo4jQueries"] == 0
    still_answers(api)


# ---- amplification through fragments ----------------------------------------------------------


def test_exponential_fragments_are_refused_before_any_query(api: Api) -> None:
    """Each fragment spreads the previous one twice under two aliases: 22 aliases written,
    2046 after expansion; the alias limit counts the expanded document."""
    fragments = ["fragment f0 on Page { key }"] + [
        f"fragment f{i} on Page {{ a: linksTo {{ ...f{i - 1} }} b: linksTo {{ ...f{i - 1} }} }}"
        for i in range(1, 11)]
    body = api.post('{ page(key: "log") { ...f10 } } ' + " ".join(fragments))
    assert body["data"] is None
    assert codes(body) == ["QUERY_TOO_COMPLEX"]
    assert body["extensions"]["cost"]["neo4jQueries"] == 0
    still_answers(api)


def test_aliases_multiplied_through_a_fragment_are_refused(api: Api) -> None:
    fragment = "fragment F on Page { " + " ".join(f"x{i}: linksTo {{ key }}"
                                                   for i in range(50)) + " }"
    query = "{ " + " ".join(f'p{i}: page(key: "log") {{ ...F }}' for i in range(49)) + " } "
    body = api.post(query + fragment)  # 99 aliases written, 2499 executed
    assert codes(body) == ["QUERY_TOO_COMPLEX"]
    assert "aliases found" in body["errors"][0]["message"]
    assert body["extensions"]["cost"]["neo4jQueries"] == 0


def test_cyclic_fragments_are_refused(api: Api) -> None:
    body = api.post('{ page(key: "log") { ...A } } fragment A on Page { linksTo { ...B } } '
                    "fragment B on Page { linksTo { ...A } }")
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "within itself" in body["errors"][0]["message"]


# ---- transport tricks -------------------------------------------------------------------------


def test_batches_cross_site_forms_and_mutations_over_get_are_refused(server: str) -> None:
    http = httpx.Client(base_url=server, timeout=30)
    batch = http.post("/graphql", json=[{"query": "{ __typename }"}] * 100)
    assert batch.status_code == 400 and "Batching is not enabled" in batch.text
    over_get = http.get("/graphql", params={"query": 'mutation { ingest(path: "/etc") { pages } }'},
                        headers={"Authorization": f"Bearer {API_KEY}"})
    assert over_get.status_code == 400
    assert "mutations are not allowed when using GET" in over_get.text
    for simple in ("text/plain", "application/x-www-form-urlencoded",
                   "multipart/form-data; boundary=x"):  # what a cross-site form can send
        response = http.post("/graphql", content='{"query": "{ __typename }"}',
                             headers={"content-type": simple, "origin": "https://evil.test"})
        assert response.status_code == 400 and "Unsupported content type" in response.text
        assert "access-control-allow-origin" not in response.headers
    nested_json = http.post("/graphql", content=b"[" * 100_000,
                            headers={"content-type": "application/json"})
    assert nested_json.status_code == 400  # not a RecursionError (500)
    assert "Unable to parse request body as JSON" in nested_json.text
    deep = "{ page(key: \"x\") { " + "linksTo { " * 3000 + "key" + " }" * 3001 + " }"
    body = http.post("/graphql", json={"query": deep}).json()
    assert codes(body) == ["GRAPHQL_PARSE_FAILED"]
    still_answers(Api(server))


def test_huge_header_and_huge_values_are_handled(server: str) -> None:
    http = httpx.Client(base_url=server, timeout=30)
    try:  # refused by the HTTP layer (a 16 KiB head, api/http_protocol.py): a 400, or closed
        huge = http.post("/graphql", json={"query": INGEST, "variables": {"p": "/x"}},
                         headers={"Authorization": "Bearer " + "k" * 200_000})
        assert huge.status_code == 400
    except (httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError):
        pass
    long_key = http.post("/graphql", json={"query": '{ page(key: "' + "a" * 1_000_000
                                                    + '") { key } }'})
    assert long_key.json()["data"] == {"page": None}  # a parameter like any other
    long_text = http.post("/graphql", json={"query": '{ search(text: "' + "あ" * 1_000_000
                                                     + '") { score } }'})
    assert codes(long_text.json()) == ["BAD_USER_INPUT"]
    still_answers(Api(server))


# ---- API-key look-alikes ------------------------------------------------------------------------


@pytest.mark.parametrize("headers, params", [
    ({"Authorization": f"Bearer {API_KEY[:-1]}"}, {}),  # a prefix
    ({"Authorization": f"Bearer {API_KEY}x"}, {}),  # a longer key
    ({"Authorization": f"Bearer {API_KEY.upper()}"}, {}),
    ({"Authorization": f"Token {API_KEY}"}, {}),
    ({"Authorization": API_KEY}, {}),  # no scheme
    ({"X-API-Key": API_KEY}, {}),  # another header
    ({"Cookie": f"api_key={API_KEY}"}, {}),
    ({}, {"api_key": API_KEY, "token": API_KEY}),  # the query string
])
def test_key_look_alikes_are_unauthenticated(server: str, headers: dict[str, str],
                                             params: dict[str, str]) -> None:
    response = httpx.post(f"{server}/graphql", params=params, headers=headers, timeout=30,
                          json={"query": INGEST, "variables": {"p": str(SHARED_EXAMPLE)}})
    body = response.json()
    assert body["data"] is None and codes(body) == ["UNAUTHENTICATED"]
    cypher = httpx.post(f"{server}/cypher", params=params, headers=headers, timeout=30,
                        json={"query": "RETURN 1 AS one"})
    assert cypher.status_code == 401


# ---- a query stuck past the transaction timeout -----------------------------------------------


def test_a_query_stuck_past_the_timeout_is_timeout(example_graph: object,
                                                   test_database: TestDatabase,
                                                   neo4j_driver: neo4j.Driver) -> None:
    """No query over the small example graph runs long enough to meet Neo4j's timeout check
    (about a second), so the test makes one wait: an open transaction that creates an index
    holds the schema lock that the lineage's index lookups need. With a 2 s timeout (ample for
    the unblocked query even on a loaded machine; 0.5 s was not) the API must answer TIMEOUT
    within seconds (not hang), keep /healthz fast meanwhile, and answer normally once the
    lock is gone."""
    settings = settings_for(test_database, VAULTKG_QUERY_TIMEOUT=2.0)
    query = '{ lineage(from: "GPipe", direction: BOTH) { nodes { page { key } } } }'
    with running(settings) as base:
        api = Api(base)
        assert codes(api.post(query)) == []
        with neo4j_driver.session(database=test_database.database) as session:
            blocker = session.begin_transaction()
            try:
                blocker.run("CREATE INDEX abuse_blocker IF NOT EXISTS "
                            "FOR (p:Page) ON (p.abuse_blocker)").consume()
                started = time.monotonic()
                body = api.post(query)
                elapsed = time.monotonic() - started
                health = api.http.get("/healthz", timeout=HEALTH_BOUND_S)
            finally:
                blocker.rollback()
        assert codes(body) == ["TIMEOUT"], body
        assert body["errors"][0]["message"] == (
            "the query took longer than the server allows; narrow it down")
        assert elapsed < 15, elapsed
        assert health.status_code == 200
        assert codes(api.post(query)) == []


# ---- bounded load ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Abuse:
    """One abusive request and what the server must answer."""

    name: str
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    status: int
    codes: frozenset[str | None]  # GraphQL error code (/cypher: detail code); None: no error


def abuses() -> list[Abuse]:
    key = {"Authorization": f"Bearer {API_KEY}"}
    nested = '{ page(key: "GPipe") { ' + "linksTo { " * 19 + "key" + " }" * 19 + " } }"
    aliases = "{ " + " ".join(f"a{i}: __typename" for i in range(1000)) + " }"
    fan_out = '{ page(key: "log") { linksTo { linksTo { linksTo { linksTo { key } } } } } }'
    # What reaches Neo4j may also run out of time on a loaded machine: TIMEOUT is a clean answer.
    refused, data = frozenset({"QUERY_TOO_COMPLEX"}), frozenset({None, "TIMEOUT"})
    return [
        Abuse("deep", "/graphql", {"query": nested}, {}, 200, refused),
        Abuse("aliases", "/graphql", {"query": aliases}, {}, 200, refused),
        Abuse("first", "/graphql", {"query": "{ pages(first: 1000000000) { totalCount } }"}, {},
              200, frozenset({"BAD_USER_INPUT"})),
        Abuse("fan-out", "/graphql", {"query": fan_out}, {}, 200, refused | {"TIMEOUT"}),
        Abuse("wide", "/graphql", {"query": "{ pages(first: 100) { edges { node { key title "
                                            "body tags aliases linksTo { key } } } } }"},
              {}, 200, data),
        Abuse("search", "/graphql", {"query": '{ search(text: "並列 学習 メモリ GPU 推論", '
                                              "first: 100) { score page { key } } }"},
              {}, 200, data),
        Abuse("no key", "/graphql", {"query": INGEST, "variables": {"p": str(SHARED_EXAMPLE)}},
              {"Authorization": "Bearer nope"}, 200, frozenset({"UNAUTHENTICATED"})),
        Abuse("outside roots", "/graphql", {"query": INGEST, "variables": {"p": "/etc"}}, key,
              200, frozenset({"BAD_USER_INPUT"})),
        Abuse("slow cypher", "/cypher", {"query": SLOW_CYPHER}, key, 504,
              frozenset({"TIMEOUT"})),
    ]


def outcome(response: httpx.Response) -> tuple[int, str | None]:
    body = response.json()
    if response.request.url.path == "/cypher":
        detail = body.get("detail")
        return response.status_code, detail["code"] if isinstance(detail, dict) else None
    found = codes(body)
    return response.status_code, found[0] if found else None


def test_health_stays_fast_under_a_bounded_load_of_abuse(server: str) -> None:
    plan = abuses()
    deadline = time.monotonic() + LOAD_SECONDS
    sent = Counter[str]()
    wrong: list[str] = []
    failures: list[str] = []
    lock = threading.Lock()
    health: list[tuple[int, float]] = []
    done = threading.Event()

    def hammer(worker: int) -> None:
        with httpx.Client(base_url=server, timeout=60) as http:
            i = worker
            while time.monotonic() < deadline:
                with lock:
                    if sum(sent.values()) >= LOAD_MAX_REQUESTS:
                        return
                    abuse = plan[i % len(plan)]
                    sent[abuse.name] += 1
                i += 1
                try:
                    response = http.post(abuse.path, json=abuse.body, headers=abuse.headers)
                    got = outcome(response)
                except Exception as exc:  # recorded, asserted below
                    failures.append(f"{abuse.name}: {type(exc).__name__}: {exc}")
                    continue
                if got[0] != abuse.status or got[1] not in abuse.codes:
                    wrong.append(f"{abuse.name}: expected {abuse.status} with one of "
                                 f"{sorted(map(str, abuse.codes))}, got {got}")

    def poll_health() -> None:
        with httpx.Client(base_url=server, timeout=10) as http:
            while not done.is_set():
                started = time.monotonic()
                try:
                    status = http.get("/healthz").status_code
                except httpx.HTTPError:
                    status = 0
                health.append((status, time.monotonic() - started))
                done.wait(HEALTH_EVERY_S)

    poller = threading.Thread(target=poll_health, daemon=True)
    workers = [threading.Thread(target=hammer, args=(n,), daemon=True)
               for n in range(LOAD_THREADS)]
    poller.start()
    for t in workers:
        t.start()
    for t in workers:
        t.join(timeout=LOAD_SECONDS + 60)  # a slow Cypher query may end after the deadline
    done.set()
    poller.join(timeout=15)

    assert not any(t.is_alive() for t in workers), "a request never came back"
    assert failures == [] and wrong == []
    assert set(sent) == {a.name for a in plan}  # every kind of abuse was sent
    latencies = sorted(latency for _, latency in health)
    p90, worst = latencies[int(0.9 * (len(latencies) - 1))], latencies[-1]
    print(f"load: {sum(sent.values())} requests {dict(sent)}; {len(health)} health checks, "
          f"median {latencies[len(latencies) // 2]:.3f} s, p90 {p90:.3f} s, max {worst:.3f} s")
    assert len(health) >= LOAD_SECONDS / (HEALTH_EVERY_S + HEALTH_BOUND_S)
    assert all(status == 200 for status, _ in health), health
    assert p90 < HEALTH_BOUND_S, f"/healthz p90 {p90:.2f} s"
    assert worst < HEALTH_WORST_S, f"slowest /healthz took {worst:.2f} s"
    still_answers(Api(server))
