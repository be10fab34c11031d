"""Helpers of the tests that edit a vault's log and compare the graph with a clean ingest."""

from __future__ import annotations

from pathlib import Path

import neo4j

from graph.ingest import ingest
from tests import db as test_db
from tests.graph_dump import diff, dump


def log_of(vault: Path) -> Path:
    return vault / "wiki" / "log.md"


def add_on_top(vault: Path, entry: str) -> None:
    """`entry` before the first `## [` entry of a newest-first log (after a blank line)."""
    log = log_of(vault)
    head, first, rest = log.read_text(encoding="utf-8").partition("\n## [")
    log.write_text(f"{head}\n{entry}{first}{rest}", encoding="utf-8")


def equals_clean(driver: neo4j.Driver, database: str, vault: Path, note: str = "") -> None:
    """The graph as it is equals the graph a clean ingest of `vault` gives (which it leaves)."""
    incremental = dump(driver, database)
    test_db.wipe(driver, database)
    ingest(driver, database, vault)
    assert diff(incremental, dump(driver, database)) == [], note
