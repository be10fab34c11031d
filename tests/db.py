"""How the test suite gets a real Neo4j; the fixtures in conftest.py are thin wrappers over this.

Order: an explicit NEO4J_URI (CI and developers who run their own server), then a testcontainers
Neo4j when a Docker engine answers, then a local server of the tests' own (graph/local_server.py,
in TEST_HOME on TEST_PORT). Once found, the environment names it (`export`). Tests never
skip for want of a database: whoever calls `acquire` turns a LocalServerError into a failure.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import neo4j

from graph import local_server
from graph.errors import LocalServerError
from graph.settings import Settings, get_settings
from graph.wipe import wipe as wipe  # one wipe for tests and benchmarks

DOCKER_IMAGE = "neo4j:5.26-community"
DOCKER_PING_TIMEOUT_S = 3
# The tests' own local server: the tests wipe their database, so never the default home's,
# where `make demo` and `vaultkg neo4j start` keep a developer's graph.
TEST_HOME = Path(__file__).resolve().parent.parent / ".neo4j" / "home-test"
TEST_PORT = 7697

# Homes of local servers that this test session started (and so must stop at its end).
_STARTED_HERE: dict[Path, Settings] = {}


@dataclass
class TestDatabase:
    """Where the tests' Neo4j is, where it came from, and how to give it back."""

    __test__ = False  # not a pytest test class

    uri: str
    user: str
    password: str
    database: str
    source: str  # "env", "testcontainers" or "local"
    release: Callable[[], None] = field(default=lambda: None, repr=False)

    def env(self) -> dict[str, str]:
        """The environment variables that name this database to vaultkg's settings."""
        return {"NEO4J_URI": self.uri, "NEO4J_USER": self.user, "NEO4J_PASSWORD": self.password,
                "NEO4J_DATABASE": self.database}


def free_port(preferred: int) -> int:
    """`preferred` if nothing listens on it on the loopback, else a port the system picks."""
    if not local_server.port_in_use(preferred):
        return preferred
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def docker_engine_answers(timeout: int = DOCKER_PING_TIMEOUT_S) -> bool:
    """Ask the Docker engine itself (a `docker` client alone proves nothing)."""
    try:
        import docker  # type: ignore[import-untyped, unused-ignore]
    except ImportError:
        return False
    try:
        client = docker.from_env(timeout=timeout)
    except Exception:  # DockerException when no socket: no engine
        return False
    try:
        return bool(client.ping())
    except Exception:
        return False
    finally:
        client.close()


def acquire_local(settings: Settings) -> local_server.ServerStatus:
    """Start (or reuse) the local server; remember it if this session is the one that started it."""
    st = local_server.start(settings)
    if not st.already_running:
        _STARTED_HERE[st.home] = settings
    return st


def release_local_servers() -> None:
    """Stop the local servers this session started; leave ones that were already running."""
    while _STARTED_HERE:
        _, settings = _STARTED_HERE.popitem()
        local_server.stop(settings)


def _from_env(settings: Settings) -> TestDatabase:
    return TestDatabase(
        uri=os.environ["NEO4J_URI"],
        user=settings.neo4j_user,
        password=settings.neo4j_password.get_secret_value(),
        database=settings.neo4j_database,
        source="env",
    )


def _from_testcontainers() -> TestDatabase:
    from testcontainers.neo4j import Neo4jContainer

    container: Any = Neo4jContainer(DOCKER_IMAGE)
    container.start()
    return TestDatabase(
        uri=str(container.get_connection_url()),
        user=str(getattr(container, "username", "neo4j")),
        password=str(container.password),
        database="neo4j",
        source="testcontainers",
        release=container.stop,
    )


def local_settings(settings: Settings | None = None) -> Settings:
    """`settings` moved to the tests' own home and port (TEST_HOME, TEST_PORT), each unless
    given (VAULTKG_NEO4J_HOME, VAULTKG_NEO4J_BOLT_PORT: CI names the server it started)."""
    settings = settings or Settings()
    given = settings.model_fields_set
    home = settings.neo4j_home if "neo4j_home" in given else TEST_HOME
    port = settings.neo4j_bolt_port if "neo4j_bolt_port" in given else TEST_PORT
    return settings.model_copy(update={"neo4j_home": home, "neo4j_bolt_port": port,
                                       "neo4j_uri": f"bolt://127.0.0.1:{port}"})


def _from_local_server(settings: Settings) -> TestDatabase:
    st = acquire_local(local_settings(settings))
    return TestDatabase(
        uri=st.bolt_uri,
        user=local_server.LOCAL_USER,
        password=settings.neo4j_password.get_secret_value(),
        database=settings.neo4j_database,
        source="local",
    )


def acquire(settings: Settings | None = None) -> TestDatabase:
    """A reachable Neo4j for this session, or LocalServerError saying why there is none."""
    settings = settings or Settings()
    if os.environ.get("NEO4J_URI"):
        db = _from_env(settings)
    elif docker_engine_answers():
        try:
            db = _from_testcontainers()
        except Exception as exc:
            raise LocalServerError(f"testcontainers could not start {DOCKER_IMAGE}: {exc}") from exc
    else:
        db = _from_local_server(settings)
    check_reachable(db)
    return db


def export(db: TestDatabase) -> Callable[[], None]:
    """Point the environment's settings (the CLI's, `get_settings`, a child process's) at `db`
    for the session, and return what undoes it. Without it a test running `vaultkg` reached
    whatever NEO4J_URI or the defaults named, the developer's own graph included (a CLI test of
    RDF import once replaced a 100k-page benchmark graph with the example vault)."""
    values = db.env()
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    get_settings.cache_clear()

    def undo() -> None:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        get_settings.cache_clear()

    return undo


def check_reachable(db: TestDatabase) -> None:
    """Fail early, with the address, when the database does not answer RETURN 1."""
    try:
        with make_driver(db) as driver:
            driver.verify_connectivity()
            driver.execute_query("RETURN 1", database_=db.database)
    except (neo4j.exceptions.DriverError, neo4j.exceptions.Neo4jError, OSError) as exc:
        raise LocalServerError(
            f"Neo4j at {db.uri} (from {db.source}) does not answer as {db.user}: {exc}"
        ) from exc


def make_driver(db: TestDatabase) -> neo4j.Driver:
    """A driver for the test database."""
    return neo4j.GraphDatabase.driver(db.uri, auth=(db.user, db.password))
