"""`ensure_schema` runs only the statements that change something: none on a database that has
the whole schema (each was a round trip on every ingest), the missing ones otherwise."""

from __future__ import annotations

from typing import Any

import neo4j
import pytest

from graph import schema
from graph.schema import all_statements, ensure_schema, pending


def test_pending_creates_missing_names_and_drops_present_ones() -> None:
    statements = all_statements()
    creates = [s for s in statements if s.startswith("CREATE")]
    assert pending(statements, set()) == creates
    names = {s.split(" IF ")[0].split()[-1] for s in statements}
    dropped = {"page_aliases_folded", "log_entry_page_line", "claim_page_line"}
    assert dropped | {"page_names", "log_entry_page"} <= names
    assert pending(statements, names) == [s for s in statements if s.startswith("DROP")]
    assert len(pending(statements, names)) == len(dropped)
    assert pending(statements, names - dropped) == []
    assert pending(statements, names - dropped - {"log_entry_page"}) == [
        s for s in creates if " log_entry_page " in s]


@pytest.mark.integration
def test_a_complete_schema_costs_two_reads_and_a_dropped_index_comes_back(
        clean_db: neo4j.Driver, neo4j_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ensure_schema(clean_db, neo4j_database)
    sent: list[str] = []
    original = clean_db.execute_query

    def spy(query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query))
        return original(query, *args, **kwargs)

    monkeypatch.setattr(clean_db, "execute_query", spy)
    ensure_schema(clean_db, neo4j_database)
    assert sent == [schema.SHOW_INDEXES, schema.SHOW_CONSTRAINTS]

    original("DROP INDEX log_entry_page IF EXISTS", database_=neo4j_database)
    sent.clear()
    ensure_schema(clean_db, neo4j_database)
    assert [s for s in sent if s.startswith("CREATE")] == [
        s for s in all_statements() if " log_entry_page " in s]
    records, _, _ = original("SHOW INDEXES YIELD name, state WHERE name = 'log_entry_page' "
                             "RETURN state", database_=neo4j_database)
    assert [r["state"] for r in records] == ["ONLINE"]


@pytest.mark.integration
def test_indexes_a_release_no_longer_wants_are_dropped(
        clean_db: neo4j.Driver, neo4j_database: str) -> None:
    """A graph made by an older release keeps (page, line) indexes that every move of the
    log's lines would update: the next ingest's schema check drops them."""
    ensure_schema(clean_db, neo4j_database)
    clean_db.execute_query("CREATE INDEX log_entry_page_line IF NOT EXISTS FOR (e:LogEntry) "
                           "ON (e.page, e.line)", database_=neo4j_database)
    clean_db.execute_query("CREATE INDEX claim_page_line IF NOT EXISTS FOR (c:Claim) "
                           "ON (c.page, c.line)", database_=neo4j_database)
    ensure_schema(clean_db, neo4j_database)
    records, _, _ = clean_db.execute_query("SHOW INDEXES YIELD name RETURN name",
                                           database_=neo4j_database)
    names = {r["name"] for r in records}
    assert "log_entry_page" in names
    assert not names & {"log_entry_page_line", "claim_page_line"}
