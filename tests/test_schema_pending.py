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
    assert "page_aliases_folded" in names and "page_names" in names
    assert pending(statements, names) == ["DROP INDEX page_aliases_folded IF EXISTS"]
    assert pending(statements, names - {"page_aliases_folded"}) == []
    assert pending(statements, names - {"page_aliases_folded", "claim_page_line"}) == [
        s for s in creates if " claim_page_line " in s]


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

    original("DROP INDEX claim_page_line IF EXISTS", database_=neo4j_database)
    sent.clear()
    ensure_schema(clean_db, neo4j_database)
    assert [s for s in sent if s.startswith("CREATE")] == [
        s for s in all_statements() if " claim_page_line " in s]
    records, _, _ = original("SHOW INDEXES YIELD name, state WHERE name = 'claim_page_line' "
                             "RETURN state", database_=neo4j_database)
    assert [r["state"] for r in records] == ["ONLINE"]
