"""A real GraphQL client (gql) against the running server: it introspects the schema, then
validates and runs a lineage query locally against that schema before sending it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from gql import Client, GraphQLRequest
from gql.transport.exceptions import TransportQueryError
from gql.transport.requests import RequestsHTTPTransport
from graphql import GraphQLObjectType, GraphQLSchema

from tests.api_server import running, settings_for
from tests.db import TestDatabase
from tests.vaults import S

pytestmark = pytest.mark.integration

LINEAGE = """query Lineage($from: String!, $depth: Int!) {
  lineage(from: $from, direction: ANCESTORS, maxDepth: $depth) {
    root { key title }
    nodes { depth page { key ... on Work { year venue { name } } } }
    edges { relation child { key } parent { key }
            provenance { mechanism line page { key } logEntry { key date } } }
  }
}"""


@pytest.fixture(scope="module")
def client(example_graph: object, test_database: TestDatabase) -> Iterator[Client]:
    with running(settings_for(test_database)) as base:
        transport = RequestsHTTPTransport(url=f"{base}/graphql", timeout=60)
        yield Client(transport=transport, fetch_schema_from_transport=True)


def test_introspection_and_lineage_query(client: Client) -> None:
    with client as session:
        result = session.execute(GraphQLRequest(
            LINEAGE, variable_values={"from": "@2025__arXiv__FFTrainer", "depth": 10}))
    schema = client.schema
    assert isinstance(schema, GraphQLSchema)
    lineage = schema.get_type("Lineage")
    assert isinstance(lineage, GraphQLObjectType)
    assert {"root", "nodes", "edges", "truncated"} <= set(lineage.fields)
    assert {"Paper", "Person", "Concept", "Fold", "Venue", "LogEntry", "Claim",
            "Contradiction", "LineageEdge", "Provenance"} <= set(schema.type_map)
    data = result["lineage"]
    assert data["root"]["key"] == S["FFTrainer"]
    keys = [n["page"]["key"] for n in data["nodes"]]
    assert keys[0] == S["GPipe"] and keys[-1] == S["FFTrainer"] and len(keys) == 9
    years = [n["page"]["year"] for n in data["nodes"]]
    assert years == sorted(years)
    assert all(e["provenance"] and e["relation"] == "BUILDS_ON" for e in data["edges"])


def test_client_side_validation_and_server_errors(client: Client) -> None:
    with client as session:
        with pytest.raises(Exception, match="Cannot query field"):
            session.execute(GraphQLRequest("{ lineage(from: \"x\") { nonsense } }"))
        with pytest.raises(TransportQueryError) as refused:
            session.execute(GraphQLRequest(LINEAGE,
                                           variable_values={"from": "no such", "depth": 3}))
    assert refused.value.errors is not None
    assert refused.value.errors[0]["extensions"]["code"] == "NOT_FOUND"
