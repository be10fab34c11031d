"""Every saved query in queries/cypher/ runs on the example vault with each of its documented
examples, returns exactly its documented columns, plans as a read, and answers what the vault
README says. docs/schema.md names every label, type and property the graph really has."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest
from typer.testing import CliRunner

from api.cli import app
from graph.ingest import ingest
from loaders.errors import BadUserInput, NotFound
from queries import saved
from queries.base import GraphContext
from tests import db as test_db
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DOC = ROOT / "docs" / "schema.md"
ALL = saved.saved_queries()
CASES = [(name, i) for name, q in ALL.items() for i in range(len(q.examples))]


@pytest.fixture(scope="module")
def graph(neo4j_driver: neo4j.Driver, neo4j_database: str) -> Iterator[GraphContext]:
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)
    yield GraphContext(neo4j_driver, neo4j_database)


def rows(graph: GraphContext, name: str, **params: Any) -> list[dict[str, Any]]:
    return saved.run(graph, saved.get(name), params).rows


def test_the_common_questions_are_saved() -> None:
    assert {"lineage", "descendants", "who_works_where", "contradictions_on_concept",
            "changes_between", "works_of_person", "dangling_links"} <= set(ALL)
    for query in ALL.values():
        assert query.description and query.columns and query.examples, query.name
        assert ":param" in query.text or not query.params, query.name  # Browser hint


@pytest.mark.parametrize(("name", "example"), CASES)
def test_every_saved_query_returns_its_documented_columns(graph: GraphContext, name: str,
                                                          example: int) -> None:
    query = ALL[name]
    result = saved.run(graph, query, query.examples[example])
    assert result.rows, f"{name} example {example} returned nothing"
    for row in result.rows:
        assert list(row) == query.columns
    json.dumps(result.rows)  # JSON-ready values (dates as strings)


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_saved_query_plans_as_a_read(graph: GraphContext, name: str) -> None:
    with graph.driver.session(database=graph.database) as session:
        summary = session.run("EXPLAIN " + ALL[name].text,
                              saved.coerce(ALL[name], ALL[name].examples[0])).consume()
    assert summary.query_type == "r"


def test_lineage_walks_up_to_the_roots(graph: GraphContext) -> None:
    got = rows(graph, "lineage", key=S["FFTrainer"])
    edges = {(r["child"], r["parent"], r["mechanism"]) for r in got}
    assert (S["FFTrainer"], S["FP8"], "arrow") in edges
    assert (S["FFTrainer"], S["SC21"], "frontmatter") in edges
    assert (S["PipeDream"], S["GPipe"], "prose") in edges  # four hops up
    assert not {S["Cassini"], S["HiveD"], S["DistServe"]} & {r["child"] for r in got}
    assert all(r["relation"] == "BUILDS_ON" and r["introduced_by"] for r in got)
    assert rows(graph, "lineage", key=S["Ray"]) == []  # the root builds on nothing


def test_descendants_walk_down(graph: GraphContext) -> None:
    got = {(r["child"], r["parent"]) for r in rows(graph, "descendants", key=S["GPipe"])}
    assert (S["PipeDream"], S["GPipe"]) in got and (S["FFTrainer"], S["FP8"]) in got
    assert (S["Titans"], S["DistServe"]) in got  # via PagedAttention -> Megatron-LM
    assert (S["Cassini"], S["HiveD"]) not in got


def test_who_works_where(graph: GraphContext) -> None:
    everyone = rows(graph, "who_works_where")
    assert len(everyone) == 25  # 27 people, two with an empty affiliation
    hkust = rows(graph, "who_works_where", organization="HKUST")
    assert hkust == [{"person": "Kai Chen (HKUST)", "organization": "iSING Lab",
                      "part_of": ["HKUST"], "asserted_on": "Kai Chen (HKUST)",
                      "line": hkust[0]["line"]}]
    assert {r["person"] for r in rows(graph, "who_works_where", organization="MIT")} == {
        "Manya Ghobadi", "Sudarsanan Rajasekaran"}


def test_works_of_person(graph: GraphContext) -> None:
    got = rows(graph, "works_of_person", person="Hao Zhang")
    assert [(r["work"], r["year"]) for r in got] == [(S["Paged"], 2023), (S["DistServe"], 2024)]
    assert {"Woosuk Kwon", "Ion Stoica"} <= set(got[0]["coauthors"])


def test_contradictions_on_a_concept(graph: GraphContext) -> None:
    got = rows(graph, "contradictions_on_concept", concept="混合精度訓練")
    direct = [r["contradiction"] for r in got if r["via"] == "direct"]
    assert direct == ["ledger:clm-fp8lm-v1-figures|clm-fp8lm-v2-figures"]
    assert any(r["origin"] == "callout" and r["via"] == "related" for r in got)
    by_alias = rows(graph, "contradictions_on_concept", concept="Mixed Precision Training")
    assert by_alias == got
    assert rows(graph, "contradictions_on_concept", concept="混合精度訓練",
                status="resolved") == []


def test_changes_between_two_dates(graph: GraphContext) -> None:
    got = rows(graph, "changes_between", **{"from": "2026-06-19", "to": "2026-06-22"})
    assert [(r["date"], r["op"]) for r in got] == [
        ("2026-06-19", "fold"), ("2026-06-19", "lint"), ("2026-06-20", "ingest-paper"),
        ("2026-06-21", "ingest-paper"), ("2026-06-22", "query")]
    lint = got[1]
    assert set(lint["created"]) == {"Microsoft", "NVIDIA", "Google", "Meta", "MIT",
                                    "Stanford University", "UC San Diego", "UT Austin",
                                    "HKUST"}
    assert any(c.startswith("callout:") for c in got[2]["contradictions"])
    one_day = rows(graph, "changes_between", **{"from": "2026-06-16", "to": "2026-06-16"})
    assert [r["op"] for r in one_day] == ["tooling"]


def test_dangling_links(graph: GraphContext) -> None:
    got = rows(graph, "dangling_links")
    assert [(r["target"], r["page"]) for r in got] == [("Alpa", "log"),
                                                       ("ZeRO-Infinity", S["ZeRO"])]


def test_parameters_are_checked(graph: GraphContext) -> None:
    with pytest.raises(BadUserInput, match="needs --param key"):
        rows(graph, "lineage")
    with pytest.raises(BadUserInput, match="takes no parameter depth"):
        rows(graph, "lineage", key="x", depth="3")
    with pytest.raises(BadUserInput, match="not a date"):
        rows(graph, "changes_between", **{"from": "June 19", "to": "2026-06-22"})
    with pytest.raises(NotFound, match="who_works_where"):
        saved.get("who-works-where")


def test_a_malformed_header_is_a_bug(tmp_path: Path) -> None:
    (tmp_path / "broken.cypher").write_text("// @name broken\n// @param key strng\n"
                                            "// @columns a\nRETURN 1 AS a\n")
    with pytest.raises(ValueError, match="bad @param"):
        saved.parse_file(tmp_path / "broken.cypher")


def test_cli_lists_and_runs_saved_queries(graph: GraphContext) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["cypher", "--list"]).exit_code == 0
    listed = runner.invoke(app, ["cypher", "--list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert {q["name"] for q in json.loads(listed.output)} == set(ALL)
    ran = runner.invoke(app, ["cypher", "who_works_where", "--param", "organization=HKUST",
                              "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output)["rows"][0]["organization"] == "iSING Lab"
    shown = runner.invoke(app, ["cypher", "lineage", "--show"])
    assert shown.output.strip() == ALL["lineage"].text.strip()
    bad = runner.invoke(app, ["cypher", "lineage", "--param", "nokey"])
    assert isinstance(bad.exception, BadUserInput)


def test_schema_doc_example_queries_plan_as_reads(graph: GraphContext) -> None:
    doc = SCHEMA_DOC.read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in doc.split("```cypher\n")[1:]]
    assert len(blocks) >= 8
    with graph.driver.session(database=graph.database) as session:
        for block in blocks:
            summary = session.run("EXPLAIN " + block).consume()
            assert summary.query_type == "r", block


def test_schema_doc_names_every_label_type_property_and_saved_query(
        graph: GraphContext) -> None:
    doc = SCHEMA_DOC.read_text(encoding="utf-8")
    # From the data, not db.propertyKeys(): property-key tokens outlive the data that used them.
    labels = [r["x"] for r in graph.read("MATCH (n) UNWIND labels(n) AS x RETURN DISTINCT x")]
    types = [r["x"] for r in graph.read("MATCH ()-[r]->() RETURN DISTINCT type(r) AS x")]
    keys = [r["x"] for r in graph.read(
        "MATCH (n) UNWIND keys(n) AS x RETURN DISTINCT x UNION "
        "MATCH ()-[r]->() UNWIND keys(r) AS x RETURN DISTINCT x")]
    indexes = [r["name"] for r in graph.read(  # LOOKUP indexes have generated names
        "SHOW INDEXES YIELD name, type WHERE type <> 'LOOKUP' RETURN name")]
    missing = [f"`{x}`" for x in (*labels, *types, *keys, *indexes, *ALL)
               if f"`{x}`" not in doc]
    assert not missing, f"docs/schema.md does not mention {missing}"
