"""What the user is told to run works on the demo vault: the README's GraphQL and Cypher
examples return data, and `vaultkg demo`'s picks, example queries and links (built from the
loaded graph) answer without errors."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import neo4j
import pytest

from api.demo import example_queries, what_to_open
from graph.ingest import ingest
from queries.base import GraphContext
from queries.showcase import Showcase, showcase
from tests.api_server import Api, running, settings_for
from tests.db import TestDatabase
from tests.vaults import DEMO, ROOT

pytestmark = pytest.mark.integration

README = (ROOT / "README.md").read_text(encoding="utf-8")
GRAPHQL = re.findall(r"```graphql\n(.*?)```", README, flags=re.S)
# what a browser sends when the user clicks a printed link
BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
CYPHER = re.findall(r"```cypher\n(.*?)```", README, flags=re.S)


@pytest.fixture(scope="module")
def demo_graph(neo4j_driver: neo4j.Driver, neo4j_database: str) -> GraphContext:
    from tests import db as test_db

    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, DEMO)
    return GraphContext(neo4j_driver, neo4j_database, timeout_s=60)


@pytest.fixture(scope="module")
def base(demo_graph: GraphContext, test_database: TestDatabase) -> Iterator[str]:
    with running(settings_for(test_database)) as url:
        yield url


def _non_empty(value: object) -> bool:
    """Some leaf of the answer holds data (not only empty lists and nulls)."""
    if isinstance(value, dict):
        return any(_non_empty(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_empty(v) for v in value)
    return value is not None and value != ""


def test_readme_has_the_examples() -> None:
    assert len(GRAPHQL) >= 5 and len(CYPHER) >= 5


@pytest.mark.parametrize("query", GRAPHQL, ids=lambda q: q.splitlines()[0][:40])
def test_readme_graphql_examples_answer(base: str, query: str) -> None:
    data = Api(base).data(query)
    assert data and all(_non_empty(v) for v in data.values()), data


@pytest.mark.parametrize("query", CYPHER, ids=lambda q: q.splitlines()[0][:40])
def test_readme_cypher_examples_return_rows(demo_graph: GraphContext, query: str) -> None:
    rows, _, _ = demo_graph.driver.execute_query(query, database_=demo_graph.database)
    assert rows, query


def test_demo_picks_and_example_queries(demo_graph: GraphContext, base: str) -> None:
    pick = showcase(demo_graph)
    # Mooncake reaches the whole serving chain: DistServe, PagedAttention, Orca, Transformer
    assert pick.work == "@2024__arXiv__Mooncake" and pick.work_reach == 4
    assert (str(pick.fold_from), str(pick.fold_to)) == ("2026-03-03", "2026-03-04")
    assert pick.concept
    queries = example_queries(pick)
    assert set(queries) == {"lineage", "lineage as Mermaid", "contradictions", "fold", "search"}
    api = Api(base)
    for name, query in queries.items():
        assert _non_empty(api.data(query)), name

    links = dict(what_to_open(base, pick, None))
    assert links["lineage picture"] == f"{base}/ui/lineage?from=@2024__arXiv__Mooncake"
    for label in ("GraphiQL", "lineage picture", "fold picture", "RDF (Turtle)"):
        response = httpx.get(links[label], headers={"Accept": BROWSER_ACCEPT}, timeout=60)
        assert response.status_code == 200, label


def test_demo_examples_on_an_empty_pick() -> None:
    assert set(example_queries(Showcase())) == {"contradictions"}
    assert [label for label, _ in what_to_open("http://h", Showcase(), "http://b/")] == [
        "GraphiQL", "RDF (Turtle)", "health", "Neo4j Browser"]
