"""Shared pytest fixtures. Keep each block delimited; put logic in helper modules (tests/db.py)."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import pytest

from graph.errors import LocalServerError
from tests import db as test_db

# ---- BEGIN test database (tests/db.py) ---------------------------------------------------------
# test_database (session): where it is; from then on the environment's settings name it too
#   (tests/db.py `export`), so `vaultkg` run by a test never reaches another database.
# neo4j_driver (session): a neo4j.Driver to NEO4J_URI, else testcontainers (Docker engine), else
#   the tests' own local server (tests/db.py TEST_HOME and TEST_PORT; graph/local_server.py),
#   started here and stopped at session end if we did.
# neo4j_database (session): the database name to pass as `database=` / `database_=`.
# clean_db (function): wipes all nodes and relationships, then yields the driver.
# No database means the fixture FAILS (never skips). Tests marked `integration` run by default.


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "integration: talks to a real Neo4j server (runs by default)"
    )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    test_db.release_local_servers()


@pytest.fixture(scope="session")
def test_database() -> Iterator[test_db.TestDatabase]:
    try:
        handle = test_db.acquire()
    except LocalServerError as exc:
        pytest.fail(f"no Neo4j for the tests: {exc}", pytrace=False)
    undo = test_db.export(handle)
    try:
        yield handle
    finally:
        undo()
        handle.release()


@pytest.fixture(scope="session")
def neo4j_driver(test_database: test_db.TestDatabase) -> Iterator[neo4j.Driver]:
    driver = test_db.make_driver(test_database)
    try:
        yield driver
    finally:
        driver.close()


@pytest.fixture(scope="session")
def neo4j_database(test_database: test_db.TestDatabase) -> str:
    return test_database.database


@pytest.fixture
def clean_db(neo4j_driver: neo4j.Driver, neo4j_database: str) -> Iterator[neo4j.Driver]:
    test_db.wipe(neo4j_driver, neo4j_database)
    yield neo4j_driver


# ---- END test database -------------------------------------------------------------------------


# ---- BEGIN example graph (API tests) -----------------------------------------------------------
# example_graph (module): wipes the database and ingests the shared example vault once per test
#   module; yields the IngestReport. Modules that use it must not write to the database.


@pytest.fixture(scope="module")
def example_graph(neo4j_driver: neo4j.Driver, neo4j_database: str) -> object:
    from graph.ingest import ingest
    from tests.vaults import SHARED_EXAMPLE

    test_db.wipe(neo4j_driver, neo4j_database)
    return ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)


# ---- END example graph -------------------------------------------------------------------------
