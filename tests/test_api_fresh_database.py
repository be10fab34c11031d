"""The API on a database no ingest has touched: name lookups need the `page_names` index, so
the API creates the schema before its first query and answers "nothing", not an error."""

from __future__ import annotations

import neo4j
import pytest

from tests.api_server import Api, running, settings_for
from tests.db import TestDatabase

pytestmark = pytest.mark.integration

LOOKUPS = '{ page(key: "テンソル並列") { key } search(text: "pipeline") { score } }'


def _drop_name_index(driver: neo4j.Driver, database: str) -> None:
    driver.execute_query("DROP INDEX page_names IF EXISTS", database_=database)


def _has_name_index(driver: neo4j.Driver, database: str) -> bool:
    records, _, _ = driver.execute_query(
        "SHOW INDEXES YIELD name WHERE name = 'page_names' RETURN count(*) AS n",
        database_=database)
    return bool(records[0]["n"])


def test_first_query_on_a_schemaless_database_answers_nothing(
        clean_db: neo4j.Driver, test_database: TestDatabase) -> None:
    _drop_name_index(clean_db, test_database.database)
    assert not _has_name_index(clean_db, test_database.database)
    try:
        with running(settings_for(test_database)) as base:
            body = Api(base).post(LOOKUPS)
        assert "errors" not in body, body
        assert body["data"] == {"page": None, "search": []}
        assert _has_name_index(clean_db, test_database.database)
    finally:  # later tests expect the full schema whatever happened here
        from graph.schema import ensure_schema
        ensure_schema(clean_db, test_database.database)
