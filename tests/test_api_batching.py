"""DataLoaders make the cost of a list independent of its length: a page of 100 papers with
their authors (and the authors' affiliations) and venues takes the same, small number of Neo4j
round trips as a page of 10. Counted with GraphContext.queries_run, over HTTP and directly."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import neo4j
import pytest

from api.context import ApiContext, CountingGraphContext
from api.schema import schema
from graph.ingest import ingest
from tests import db as test_db
from tests.api_server import Api, running, settings_for
from tests.db import TestDatabase

pytestmark = pytest.mark.integration

PAPERS, PEOPLE, ORGS, VENUES = 120, 30, 4, 5
LIST = """query($first: Int!) { papers(first: $first, sort: {field: YEAR}) {
  edges { cursor node { key title year
    venue { name }
    authors { key title affiliations { key } } } } } }"""


def write_vault(root: Path) -> Path:
    """A synthetic vault: PAPERS papers with 2-3 authors each, people with affiliations."""
    wiki = root / "wiki"
    for sub in ("sources", "entities"):
        (wiki / sub).mkdir(parents=True)
    for o in range(ORGS):
        (wiki / "entities" / f"Org {o}.md").write_text(
            f'---\ntype: entity\nentity_type: organization\ntitle: "Org {o}"\n---\n# Org {o}\n',
            encoding="utf-8")
    for p in range(PEOPLE):
        (wiki / "entities" / f"Person {p}.md").write_text(
            f'---\ntype: entity\nentity_type: person\ntitle: "Person {p}"\n'
            f'affiliation: "[[Org {p % ORGS}]]"\n---\n# Person {p}\n', encoding="utf-8")
    for i in range(PAPERS):
        authors = "".join(f'  - "[[Person {(i + k) % PEOPLE}]]"\n' for k in range(2 + i % 2))
        (wiki / "sources" / f"@{2000 + i % 20}__V{i % VENUES}__Paper {i}.md").write_text(
            f'---\ntype: source\nsource_type: paper\ntitle: "Paper {i}"\naliases:\n'
            f'  - "@paper{i}"\nauthors:\n{authors}venue: "V{i % VENUES}"\nyear: {2000 + i % 20}\n'
            f"---\n# Paper {i}\n\nAbout parallel training.\n", encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def synthetic(neo4j_driver: neo4j.Driver, neo4j_database: str,
              tmp_path_factory: pytest.TempPathFactory) -> None:
    test_db.wipe(neo4j_driver, neo4j_database)
    report = ingest(neo4j_driver, neo4j_database,
                    write_vault(tmp_path_factory.mktemp("batching")))
    assert report.pages == PAPERS + PEOPLE + ORGS and not report.skipped


def check_page(data: dict[str, Any], first: int) -> None:
    edges = data["papers"]["edges"]
    assert len(edges) == first
    for edge in edges:
        node = edge["node"]
        assert node["venue"]["name"].startswith("V")
        assert len(node["authors"]) in (2, 3)
        assert all(len(a["affiliations"]) == 1 for a in node["authors"])


def test_round_trips_do_not_grow_with_the_page_over_http(
        synthetic: None, test_database: TestDatabase) -> None:
    with running(settings_for(test_database)) as base:
        api = Api(base)
        costs = {}
        for first in (10, 100):
            body = api.post(LIST, first=first)
            assert "errors" not in body, body.get("errors")
            check_page(body["data"], first)
            costs[first] = body["extensions"]["cost"]["neo4jQueries"]
    # papers + venues + authors + affiliations: one round trip each, whatever the length.
    assert costs == {10: 4, 100: 4}


def test_round_trips_counted_on_the_graph_context(synthetic: None,
                                                  neo4j_driver: neo4j.Driver,
                                                  test_database: TestDatabase) -> None:
    settings = settings_for(test_database)
    counts = {}
    for first in (1, 100):
        graph = CountingGraphContext(neo4j_driver, test_database.database, 30.0)
        context = ApiContext(graph, settings, authenticated=False)
        result = asyncio.run(schema.execute(LIST, variable_values={"first": first},
                                            context_value=context))
        assert result.errors is None, result.errors
        assert result.data is not None
        check_page(result.data, first)
        counts[first] = graph.queries_run
    assert counts == {1: 4, 100: 4}
    # Without DataLoaders this page would cost 1 + 100 (venues) + 100 (authors) + ~250.
    graph = CountingGraphContext(neo4j_driver, test_database.database, 30.0)
    context = ApiContext(graph, settings, authenticated=False)
    deeper = asyncio.run(schema.execute(
        "{ papers(first: 100) { totalCount nodes { body history { role } builtUponBy "
        "{ relation } authors { works { key venue { name } } } } } }", context_value=context))
    assert deeper.errors is None, deeper.errors
    assert graph.queries_run == 8  # list, count, body, history, lineage, authors, works, venues
