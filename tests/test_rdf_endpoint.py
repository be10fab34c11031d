"""`GET /rdf` streams the graph in the format the Accept header asks for (Turtle, JSON-LD,
N-Triples), refuses formats it cannot produce, and is wired into the app. Plus the pure parts
of the RDF vocabulary: language tags, IRIs, N-Triples escaping."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import neo4j
import pytest
import rdflib
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st
from rdflib import Literal, URIRef
from rdflib.namespace import SKOS

from api.app import create_app
from api.rdf_router import negotiate, router
from graph.settings import Settings
from queries.rdf_export import nt_term
from queries.rdf_vocab import PROPS, Iris, lang_of
from tests import db as test_db
from tests.rdf_helpers import fingerprint

SEED = ("CREATE (c:Page:Concept {key: 'テンソル並列', title: 'テンソル並列', kind: 'Concept', "
        "aliases: ['Tensor Parallelism'], tags: [], dangling: []}) "
        "CREATE (p:Page:Source:Paper {key: 'p/1', title: 'A paper', kind: 'Paper', year: 2024, "
        "aliases: [], tags: [], dangling: []}) "
        "CREATE (p)-[:ABOUT {asserted_by: 'p/1', line: 3}]->(c)")
CONCEPT = URIRef("https://vaultkg.example/id/page/%E3%83%86%E3%83%B3%E3%82%BD%E3%83%AB%E4%B8%A6%E5%88%97")


def make_app(driver: neo4j.Driver, database: str, **env: Any) -> FastAPI:
    app = FastAPI()
    app.include_router(router)
    app.state.driver = driver
    app.state.settings = Settings(NEO4J_DATABASE=database, **env)
    return app


@pytest.fixture(scope="module")
def client(neo4j_driver: neo4j.Driver, neo4j_database: str) -> Iterator[TestClient]:
    test_db.wipe(neo4j_driver, neo4j_database)
    neo4j_driver.execute_query(SEED, database_=neo4j_database)
    yield TestClient(make_app(neo4j_driver, neo4j_database,
                              VAULTKG_RDF_BASE="https://vaultkg.example/id/"))


@pytest.mark.integration
@pytest.mark.parametrize(("accept", "media", "fmt"), [
    ("text/turtle", "text/turtle", "turtle"),
    ("application/ld+json", "application/ld+json", "json-ld"),
    ("application/n-triples", "application/n-triples", "nt"),
    ("*/*", "text/turtle", "turtle"),
    ("text/html;q=0.9, application/n-triples;q=0.5, text/turtle;q=0.1", "application/n-triples",
     "nt"),
])
def test_content_negotiation(client: TestClient, accept: str, media: str, fmt: str) -> None:
    response = client.get("/rdf", headers={"Accept": accept})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith(media)
    g = rdflib.Graph().parse(data=response.text, format=fmt)
    assert (CONCEPT, SKOS.prefLabel, Literal("テンソル並列", lang="ja")) in g
    assert (CONCEPT, SKOS.altLabel, Literal("Tensor Parallelism", lang="en")) in g


@pytest.mark.integration
def test_every_format_says_the_same(client: TestClient) -> None:
    graphs = [rdflib.Graph().parse(data=client.get("/rdf", params={"format": f}).text,
                                   format=f) for f in ("turtle", "json-ld", "nt")]
    assert fingerprint(graphs[0]) == fingerprint(graphs[1]) == fingerprint(graphs[2])


@pytest.mark.integration
def test_unavailable_formats_are_refused(client: TestClient) -> None:
    assert client.get("/rdf", headers={"Accept": "text/html"}).status_code == 406
    assert client.get("/rdf", params={"format": "rdf/xml"}).status_code == 406
    assert client.get("/rdf", headers={"Accept": "text/turtle;q=0"}).status_code == 406


@pytest.mark.integration
def test_reads_can_require_the_key(neo4j_driver: neo4j.Driver, neo4j_database: str) -> None:
    locked = TestClient(make_app(neo4j_driver, neo4j_database, VAULTKG_API_KEY="k",
                                 VAULTKG_READ_REQUIRES_KEY=True))
    assert locked.get("/rdf").status_code == 401
    assert locked.get("/rdf", headers={"Authorization": "Bearer k"}).status_code == 200


def test_the_app_serves_both_endpoints() -> None:
    paths = create_app(Settings()).openapi()["paths"]
    assert "get" in paths["/rdf"] and "post" in paths["/cypher"]


def test_negotiate() -> None:
    assert negotiate(None) == "turtle"
    assert negotiate("application/json") == "json-ld"
    assert negotiate("application/*") == "json-ld"
    assert negotiate("image/png, text/plain;q=0.2") == "nt"
    assert negotiate("image/png") is None


def test_language_tags() -> None:
    assert lang_of("テンソル並列") == "ja"
    assert lang_of("Megatron-LM の 76%") == "ja"  # any Japanese makes it Japanese
    assert lang_of("々") == "ja"
    assert lang_of("Tensor Parallelism") == "en"
    assert lang_of("") == "en"


@given(st.text(min_size=1))
def test_iris_give_keys_back(key: str) -> None:
    iris = Iris("https://example.org/kg")
    iri = iris.node("Page", key)
    assert iri.startswith("https://example.org/kg/page/")
    assert all(c.isascii() and c not in ' <>"{}|\\^`' for c in iri)
    assert iris.parse(iri, "Page") == key
    assert iris.parse(iri, "Claim") is None


@given(st.text())
def test_nt_literals_parse_back(text: str) -> None:
    s, p = URIRef("https://example.org/s"), URIRef("https://example.org/p")
    line = f"{nt_term(s)} {nt_term(p)} {nt_term(Literal(text, lang=lang_of(text)))} .\n"
    g = rdflib.Graph().parse(data=line, format="nt")
    assert set(g.objects(s, p)) == {Literal(text, lang=lang_of(text))}


def test_one_predicate_per_property() -> None:
    assert len({p.predicate for p in PROPS}) == len(PROPS)
