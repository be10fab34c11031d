"""Export -> wipe -> import-rdf -> export gives an isomorphic RDF graph (rdflib's check), in
every format, and the imported Neo4j graph equals the ingested one up to what RDF does not keep
(list order, file timestamps and hashes). Against a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest
from rdflib.compare import isomorphic
from typer.testing import CliRunner

from api.cli import app
from graph.ingest import ingest
from graph.rdf_import import import_rdf
from loaders.errors import BadUserInput
from tests import db as test_db
from tests.rdf_helpers import export_text, normalized_dump, parse
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration
EXTENSIONS = {"nt": "nt", "turtle": "ttl", "json-ld": "jsonld"}


@pytest.fixture(scope="module")
def example(neo4j_driver: neo4j.Driver, neo4j_database: str,
            tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    """The example vault ingested, its normalized dump, and one export per format."""
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)
    folder = tmp_path_factory.mktemp("rdf")
    files = {}
    for fmt, ext in EXTENSIONS.items():
        path = folder / f"example.{ext}"
        path.write_text(export_text(neo4j_driver, neo4j_database, fmt)[0], encoding="utf-8")
        files[fmt] = path
    yield {"dump": normalized_dump(neo4j_driver, neo4j_database), "files": files}


@pytest.mark.parametrize("fmt", ["nt", "turtle", "json-ld"])
def test_round_trip_is_isomorphic(fmt: str, example: dict[str, object],
                                  neo4j_driver: neo4j.Driver, neo4j_database: str) -> None:
    files = example["files"]
    assert isinstance(files, dict)
    path: Path = files[fmt]
    test_db.wipe(neo4j_driver, neo4j_database)
    report = import_rdf(neo4j_driver, neo4j_database, path)
    assert report.skipped == []
    assert report.nodes["Page"] == 103 and report.relationships["BUILDS_ON"] == 32
    again, _ = export_text(neo4j_driver, neo4j_database, fmt)
    first, second = parse(path.read_text(encoding="utf-8"), fmt), parse(again, fmt)
    assert len(first) == len(second)
    assert isomorphic(first, second)
    # The property graph itself came back (lists compared as multisets).
    assert normalized_dump(neo4j_driver, neo4j_database) == example["dump"]


def test_import_refuses_a_database_that_is_not_empty(example: dict[str, object],
                                                      neo4j_driver: neo4j.Driver,
                                                      neo4j_database: str) -> None:
    files = example["files"]
    assert isinstance(files, dict)
    test_db.wipe(neo4j_driver, neo4j_database)
    neo4j_driver.execute_query("CREATE (:Page {key: 'already here'})", database_=neo4j_database)
    with pytest.raises(BadUserInput, match="not empty"):
        import_rdf(neo4j_driver, neo4j_database, files["nt"])
    records, _, _ = neo4j_driver.execute_query("MATCH (n) RETURN count(n) AS n",
                                               database_=neo4j_database)
    assert records[0]["n"] == 1


def test_import_rejects_a_file_that_is_not_rdf(tmp_path: Path, clean_db: neo4j.Driver,
                                               neo4j_database: str) -> None:
    bad = tmp_path / "broken.ttl"
    bad.write_text("<a> <b> .\n", encoding="utf-8")
    with pytest.raises(BadUserInput, match="not valid turtle"):
        import_rdf(clean_db, neo4j_database, bad)
    unknown = tmp_path / "broken.ttl.bak"
    unknown.write_text("", encoding="utf-8")
    with pytest.raises(BadUserInput, match="cannot tell the RDF format"):
        import_rdf(clean_db, neo4j_database, unknown)
    with pytest.raises(BadUserInput, match="not a file"):
        import_rdf(clean_db, neo4j_database, tmp_path / "missing.nt")


def test_cli_export_and_import(example: dict[str, object], neo4j_driver: neo4j.Driver,
                               neo4j_database: str, tmp_path: Path) -> None:
    files = example["files"]
    assert isinstance(files, dict)
    test_db.wipe(neo4j_driver, neo4j_database)
    import_rdf(neo4j_driver, neo4j_database, files["nt"])
    runner = CliRunner()
    out = tmp_path / "cli.ttl"
    done = runner.invoke(app, ["export", "--format", "turtle", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert isomorphic(parse(out.read_text(encoding="utf-8"), "turtle"),
                      parse(files["nt"].read_text(encoding="utf-8"), "nt"))
    test_db.wipe(neo4j_driver, neo4j_database)
    done = runner.invoke(app, ["import-rdf", str(out), "--json"])
    assert done.exit_code == 0, done.output
    assert '"Page": 103' in done.output
    assert normalized_dump(neo4j_driver, neo4j_database) == example["dump"]


# A small graph with the awkward cases the example vault lacks.
AWKWARD = """
CREATE (a:Page:Source:Paper {key: 'dir/a b%#テスト', path: 'dir/a b%#テスト.md', kind: 'Paper',
        title: 'A "quoted"\\ntitle \\\\ with 改行', aliases: [], tags: ['x'], year: 2024,
        created: date('2024-01-02'), extra_score: 0.25, extra_list: ['b', 'a'],
        extra_flag: true, dangling: []})
CREATE (b:Page:Concept {key: 'ベース', path: 'concepts/ベース.md', kind: 'Concept',
        title: 'ベース', aliases: ['Base'], tags: [], dangling: []})
CREATE (d:Dangling {name: 'Nowhere/else'})
CREATE (a)-[:LINKS_TO {asserted_by: 'dir/a b%#テスト', line: 3, raw: '[[ベース]]', embed: false,
        markdown: false}]->(b)
CREATE (a)-[:LINKS_TO {asserted_by: 'dir/a b%#テスト', line: 3, raw: '[[ベース]]', embed: false,
        markdown: false}]->(b)
CREATE (a)-[:LINKS_TO {asserted_by: 'dir/a b%#テスト', line: 9, raw: '[[Nowhere/else]]'}]->(d)
CREATE (a)-[:BUILDS_ON {asserted_by: 'dir/a b%#テスト', page: 'dir/a b%#テスト', line: 4,
        mechanism: 'prose', text: '自己参照'}]->(a)
CREATE (c:Claim {id: 'c1', origin: 'numeric', value: 1.75, unit: 'times', pages: [],
        qualifiers: ['最大'], subject: 'ベース'})
CREATE (c)-[:STATED_IN]->(a)
"""


@pytest.mark.parametrize("fmt", ["nt", "turtle", "json-ld"])
def test_awkward_values_survive(fmt: str, clean_db: neo4j.Driver, neo4j_database: str,
                                tmp_path: Path) -> None:
    clean_db.execute_query(AWKWARD, database_=neo4j_database)
    derived = frozenset({"names_folded"})  # the import adds it; this graph did not have it
    before = normalized_dump(clean_db, neo4j_database, ignore=derived)
    text, _ = export_text(clean_db, neo4j_database, fmt)
    path = tmp_path / f"awkward.{EXTENSIONS[fmt]}"
    path.write_text(text, encoding="utf-8")
    test_db.wipe(clean_db, neo4j_database)
    report = import_rdf(clean_db, neo4j_database, path)
    assert report.relationships == {"LINKS_TO": 3, "BUILDS_ON": 1, "STATED_IN": 1}
    assert normalized_dump(clean_db, neo4j_database, ignore=derived) == before
    records, _, _ = clean_db.execute_query(
        "MATCH (a:Page {key: 'dir/a b%#テスト'}) RETURN a.title AS title, a.extra_list AS l, "
        "a.extra_score AS s, a.extra_flag AS f, a.created AS c", database_=neo4j_database)
    row = records[0]
    assert row["title"] == 'A "quoted"\ntitle \\ with 改行'
    assert row["l"] == ["b", "a"]  # unknown list properties travel as rdf:List: order kept
    assert (row["s"], row["f"], row["c"].iso_format()) == (0.25, True, "2024-01-02")
    again, _ = export_text(clean_db, neo4j_database, fmt)
    assert isomorphic(parse(text, fmt), parse(again, fmt))
