"""Incremental re-ingest: editing one page re-parses only what it must, and the graph equals
what a clean ingest of the edited vault gives (add a lineage line, remove it, delete a page)."""

from __future__ import annotations

import shutil
from pathlib import Path

import neo4j
import pytest

from graph.ingest import ingest
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.vaults import ENGLISH_LAB, SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration


def _clean_equivalent(driver: neo4j.Driver, database: str, vault: Path) -> None:
    """Assert the current graph equals a from-scratch ingest of `vault`."""
    incremental = dump(driver, database)
    test_db.wipe(driver, database)
    ingest(driver, database, vault)
    assert diff(incremental, dump(driver, database)) == []


def _page_keys(driver: neo4j.Driver, database: str) -> set[str]:
    records, _, _ = driver.execute_query("MATCH (p:Page) WHERE p.path IS NOT NULL "
                                         "RETURN p.key AS key", database_=database)
    return {r["key"] for r in records}


def test_add_then_remove_a_lineage_line_then_delete_a_page(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    ingest(clean_db, neo4j_database, vault)
    original = dump(clean_db, neo4j_database)
    hived = vault / "wiki" / "sources" / f"{S['HiveD']}.md"
    text = hived.read_text(encoding="utf-8")
    assert "## 系譜\n" in text
    edited = text.replace("## 系譜\n", "## 系譜\n\nbuilds_on:: [[@2018__OSDI__Ray]]\n", 1)
    hived.write_text(edited, encoding="utf-8")
    line = edited.split("\n").index("builds_on:: [[@2018__OSDI__Ray]]") + 1

    report = ingest(clean_db, neo4j_database, vault)
    assert report.parsed == 1 and report.changed
    edges, _, _ = clean_db.execute_query(
        "MATCH (:Page {key: $c})-[r:BUILDS_ON]->(:Page {key: $p}) RETURN r.line AS line, "
        "r.mechanism AS m, r.page AS page", c=S["HiveD"], p=S["Ray"], database_=neo4j_database)
    assert [e.data() for e in edges] == [{"line": line, "m": "inline-line", "page": S["HiveD"]}]
    _clean_equivalent(clean_db, neo4j_database, vault)

    hived.write_text(text, encoding="utf-8")
    report = ingest(clean_db, neo4j_database, vault)
    assert report.parsed == 1
    assert diff(dump(clean_db, neo4j_database), original) == []

    (vault / "wiki" / "sources" / f"{S['Cassini']}.md").unlink()
    report = ingest(clean_db, neo4j_database, vault)
    assert report.deleted == 1
    assert 0 < report.parsed < 20  # only pages that name Cassini's page are re-read
    gone, _, _ = clean_db.execute_query(
        "MATCH (c:Page {key: $c}) RETURN c", c=S["Cassini"], database_=neo4j_database)
    assert gone == []
    dangling, _, _ = clean_db.execute_query(
        "MATCH (:Page)-[:LINKS_TO]->(d:Dangling) WHERE d.name STARTS WITH '@2024__NSDI__Cassini' "
        "RETURN count(*) AS n", database_=neo4j_database)
    assert dangling[0]["n"] > 0
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_facts_of_other_pages_survive_an_edit(clean_db: neo4j.Driver, neo4j_database: str,
                                              tmp_path: Path) -> None:
    """The arrow chain lives on a concept page: editing a source page that is part of the
    chain must not lose the chain's assertions."""
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    ingest(clean_db, neo4j_database, vault)
    page = vault / "wiki" / "sources" / f"{S['FP8']}.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n追記。\n", encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    arrows, _, _ = clean_db.execute_query(
        "MATCH ()-[r:BUILDS_ON {mechanism: 'arrow'}]->() RETURN count(r) AS n",
        database_=neo4j_database)
    assert arrows[0]["n"] == 8
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_a_vault_ingested_over_another_equals_its_clean_ingest(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path) -> None:
    """Every name changes (pages vanish, others appear): the pages of the new vault are read
    once each, the old ones removed, and nothing of the first vault is left."""
    vault = tmp_path / "vault"
    shutil.copytree(ENGLISH_LAB, vault)
    ingest(clean_db, neo4j_database, vault)
    before = _page_keys(clean_db, neo4j_database)
    shutil.rmtree(vault)
    shutil.copytree(SHARED_EXAMPLE, vault)
    report = ingest(clean_db, neo4j_database, vault)
    after = _page_keys(clean_db, neo4j_database)
    assert report.deleted == len(before - after) > 40
    assert report.unchanged == 0 and report.parsed >= report.pages
    _clean_equivalent(clean_db, neo4j_database, vault)
