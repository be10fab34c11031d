"""Faults: Neo4j killed in the middle of an ingest gives one clear error and the next run
converges to the graph a clean run gives; runs that die at chosen points of an incremental
ingest converge too; transient errors (deadlocks) are retried by the managed transactions; the
API says GRAPH_UNAVAILABLE while Neo4j is down and recovers by itself when it is back.

The kill test uses a throwaway local server (own home and port, started, killed, restarted and
stopped here), so the session's database is never stopped. Concurrent ingests:
tests/test_ingest_lock.py.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, LiteralString

import neo4j
import pytest

from graph import connection, local_server
from graph import writes as w
from graph.errors import GraphError, GraphUnavailable
from graph.ingest import ingest
from graph.lock import ingest_lock
from graph.settings import Settings
from graph.writer import GraphWriter
from tests import db as test_db
from tests.api_server import Api, free_port, running
from tests.graph_dump import diff, dump
from tests.log_edits import add_on_top
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration

BATCH = 50  # small batches: many statements, so a run can die between any two of them
KILL_AT = 60  # of the ~120 statements a first ingest of the example vault runs
LEASE_TTL_S = 3  # the dead run's ingest lease must expire before the next run may start
ALIVE = '{ page(key: "テンソル並列") { key } }'
REAL_RUN = GraphWriter.run


# ---- a throwaway local server -----------------------------------------------------------------


class Throwaway:
    """A local Neo4j with its own home and port, which the tests may kill and restart."""

    def __init__(self, base: Path) -> None:
        shared = Settings()
        cache = base / "cache"
        cache.symlink_to(local_server.cache_dir(shared).parent)  # reuse the fetched jars
        port = free_port()
        self.settings = shared.model_copy(update={
            "neo4j_home": base / "home", "neo4j_bolt_port": port, "neo4j_heap": "512m",
            "neo4j_uri": f"bolt://127.0.0.1:{port}", "neo4j_user": local_server.LOCAL_USER})
        self.database = self.settings.neo4j_database

    def start(self) -> None:
        local_server.start(self.settings)

    def stop(self) -> None:
        local_server.stop(self.settings)

    def kill(self) -> None:
        """SIGKILL the server's process group (it leads its own session), as a crash would."""
        pid = local_server.status(self.settings).pid
        assert pid is not None, "the throwaway server is not running"
        os.killpg(pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while local_server.status(self.settings).running:
            assert time.monotonic() < deadline, f"Neo4j pid {pid} survived SIGKILL"
            time.sleep(0.1)

    def driver(self) -> neo4j.Driver:
        """A driver that gives up quickly (2 s of retries) once the server is gone."""
        return neo4j.GraphDatabase.driver(
            self.settings.neo4j_uri,
            auth=(self.settings.neo4j_user, self.settings.neo4j_password.get_secret_value()),
            connection_timeout=3, connection_acquisition_timeout=5,
            max_transaction_retry_time=2, notifications_min_severity="OFF")


@pytest.fixture(scope="module")
def throwaway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Throwaway]:
    server = Throwaway(tmp_path_factory.mktemp("faults"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A private copy of the example vault."""
    copy = tmp_path_factory.mktemp("vault") / "distributed-training"
    shutil.copytree(SHARED_EXAMPLE, copy)
    return copy


def shorten_lease(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dead run cannot release its lease; with the default TTL the next run would wait up to
    a minute for it to expire (by design). Tests do not wait that long."""
    monkeypatch.setattr("graph.ingest.ingest_lock",
                        functools.partial(ingest_lock, ttl_s=LEASE_TTL_S))


def dies_at(monkeypatch: pytest.MonkeyPatch, when: Callable[[int, str], bool],
            action: Callable[[], None]) -> list[str]:
    """Make GraphWriter.run call `action` before the first statement for which
    `when(statement number from 1, query)` holds; returns the statements seen so far."""
    seen: list[str] = []

    def run(self: GraphWriter, query: LiteralString, **params: Any) -> None:
        seen.append(query)
        if when(len(seen), query):
            action()
        REAL_RUN(self, query, **params)

    monkeypatch.setattr(GraphWriter, "run", run)
    return seen


def lease_count(driver: neo4j.Driver, database: str) -> int:
    records, _, _ = driver.execute_query("MATCH (l:IngestLock) WHERE l.owner IS NOT NULL "
                                         "RETURN count(l) AS n",
                                         database_=database)
    return int(records[0]["n"])


def assert_clean_equivalent(driver: neo4j.Driver, database: str, vault: Path) -> None:
    """The graph now equals a wipe + clean ingest of `vault` (full canonical dumps)."""
    recovered = dump(driver, database)
    test_db.wipe(driver, database)
    ingest(driver, database, vault, batch_size=BATCH)
    assert diff(recovered, dump(driver, database)) == []


# ---- Neo4j killed mid-ingest ------------------------------------------------------------------


def test_neo4j_killed_mid_ingest_then_api_and_next_run_recover(
        throwaway: Throwaway, vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neo4j is SIGKILLed in the middle of an ingest while the API serves. The ingest fails
    with one clear line; the API says GRAPH_UNAVAILABLE (/readyz 503, /healthz 200); once
    Neo4j is back the API answers again without a restart, and the next ingest converges to
    exactly the graph a clean run gives."""
    killed_at: list[float] = []

    def kill() -> None:
        throwaway.kill()
        killed_at.append(time.monotonic())

    with running(throwaway.settings) as base:
        api = Api(base)
        with throwaway.driver() as driver:
            test_db.wipe(driver, throwaway.database)
        assert api.data(ALIVE) == {"page": None}  # the API's driver now holds a connection
        with throwaway.driver() as driver:
            shorten_lease(monkeypatch)
            seen = dies_at(monkeypatch, lambda n, _: n == KILL_AT, kill)
            with pytest.raises(GraphUnavailable) as raised:
                ingest(driver, throwaway.database, vault, batch_size=BATCH)
            failed_after = time.monotonic() - killed_at[0]
        monkeypatch.setattr(GraphWriter, "run", REAL_RUN)
        message = str(raised.value)
        assert len(seen) == KILL_AT  # it stopped at the first statement after the kill
        assert raised.value.code == "GRAPH_UNAVAILABLE"
        assert message.startswith("Neo4j is not reachable") and "\n" not in message, message
        assert "Traceback" not in message and len(message) < 400
        assert failed_after < 60, failed_after  # the run gives up, it does not hang

        api_while_down(api)
        throwaway.start()  # same home: Neo4j recovers its store from the transaction log
        assert api.http.get("/readyz").json() == {"status": "ready"}  # no API restart

        with throwaway.driver() as driver:
            assert lease_count(driver, throwaway.database) == 1  # the dead run's lease
            partial = dump(driver, throwaway.database)
            assert sum(partial[0].values()) > 0  # the dead run had committed part of its work
            report = ingest(driver, throwaway.database, vault, batch_size=BATCH)
            assert report.pages == 102 and report.parsed == 103 and report.problems == []
            assert lease_count(driver, throwaway.database) == 0
            assert api.data(ALIVE) == {"page": {"key": "テンソル並列"}}
            assert_clean_equivalent(driver, throwaway.database, vault)


def api_while_down(api: Api) -> None:
    """GraphQL answers GRAPH_UNAVAILABLE (HTTP 200, a code, no internals) after the driver's
    bounded retries; /readyz says not ready; /healthz stays ok."""
    started = time.monotonic()
    body = api.post(ALIVE)
    answered_after = time.monotonic() - started
    assert body["data"] == {"page": None}  # the field is nullable: only it is lost
    (error,) = body["errors"]
    assert error["extensions"] == {"code": "GRAPH_UNAVAILABLE"}
    assert error["message"] == "the graph database is not reachable; try again later"
    assert answered_after < 45, answered_after
    ready = api.http.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "unavailable", "code": "GRAPH_UNAVAILABLE"}
    health = api.http.get("/healthz", timeout=2)
    assert health.status_code == 200 and health.json() == {"status": "ok"}


# ---- runs that die at chosen points of an incremental ingest ---------------------------------


def edit(vault: Path) -> None:
    """Edits that touch every phase of an incremental write: a new lineage line, a changed
    numeric claim's page, a deleted page (its linkers are re-read), and a new page."""
    hived = vault / "wiki" / "sources" / f"{S['HiveD']}.md"
    text = hived.read_text(encoding="utf-8")
    assert "## 系譜\n" in text
    hived.write_text(text.replace("## 系譜\n", "## 系譜\n\nbuilds_on:: [[@2018__OSDI__Ray]]\n", 1),
                     encoding="utf-8")
    fp8 = vault / "wiki" / "sources" / f"{S['FP8']}.md"
    fp8.write_text(fp8.read_text(encoding="utf-8") + "\n追記: メモリ使用量を 39% 削減した。\n",
                   encoding="utf-8")
    (vault / "wiki" / "sources" / f"{S['Cassini']}.md").unlink()
    (vault / "wiki" / "concepts" / "障害注入.md").write_text(
        "---\ntype: concept\ntitle: 障害注入\n---\n# 障害注入\n\n[[チェックポイント]] と "
        "[[耐障害LLM訓練]] を試す。[[HiveD]] も参照。\n", encoding="utf-8")


class Died(GraphUnavailable):
    """The simulated death of an ingest run (raised between two statements)."""


def die() -> None:
    raise Died("simulated: the ingest process died here")


CRASH_POINTS: list[tuple[str, Callable[[int, str], bool]]] = [
    ("hashes cleared, facts half removed", lambda n, _: n == 3),
    ("pages written, links not", lambda _, q: q == w.LINK_TO_PAGE),
    ("before orphans and detected conflicts", lambda _, q: q == w.DELETE_ORPHANS),
    ("before the hashes", lambda _, q: q == w.SET_HASHES),
]


def test_incremental_ingest_dying_repeatedly_converges(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run dies at a later point than the one before, each resuming what the previous
    left; the run that finally completes leaves exactly the graph of a clean ingest."""
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    ingest(clean_db, neo4j_database, vault, batch_size=BATCH)
    edit(vault)
    for name, when in CRASH_POINTS:
        seen = dies_at(monkeypatch, when, die)
        with pytest.raises(Died):
            ingest(clean_db, neo4j_database, vault, batch_size=BATCH)
        assert seen and when(len(seen), seen[-1]), name  # it died where it was told to
        monkeypatch.undo()
    assert lease_count(clean_db, neo4j_database) == 0  # a run that dies in-process releases it
    report = ingest(clean_db, neo4j_database, vault, batch_size=BATCH)
    assert report.deleted == 0 and report.changed  # the deletion had already happened
    assert report.problems == []
    assert_clean_equivalent(clean_db, neo4j_database, vault)


LOG_MOVES = [w.SHIFT_KEPT_RELATIONSHIPS, w.MOVE_CLAIMS_IN_ORDER[True], w.SHIFT_LOG_ENTRIES,
             w.upsert_pages("Meta")]


@pytest.mark.parametrize("move", LOG_MOVES, ids=["links", "claims", "entries", "log page"])
def test_a_logged_edit_dying_in_one_of_the_concurrent_moves_converges(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, move: LiteralString) -> None:
    """The log's facts move in statements that run at the same time
    (`GraphWriter.concurrently`): one of them dying fails the run once the others are done,
    and the next run leaves the graph of a clean ingest."""
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    ingest(clean_db, neo4j_database, vault, batch_size=BATCH)
    add_on_top(vault, "## [2026-06-23] ingest-paper | 再確認\n"
                      f"- Summary: [[{S['SC21']}]]\n- Key insight: 利用率 52%。\n\n")
    seen = dies_at(monkeypatch, lambda _, q: q == move, die)
    with pytest.raises(Died):
        ingest(clean_db, neo4j_database, vault, batch_size=BATCH)
    assert move in seen
    monkeypatch.undo()
    ingest(clean_db, neo4j_database, vault, batch_size=BATCH)
    assert_clean_equivalent(clean_db, neo4j_database, vault)


# ---- transient errors are retried -------------------------------------------------------------


def test_an_injected_transient_error_is_retried(clean_db: neo4j.Driver, neo4j_database: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The first attempt of each write fails with a TransientError inside its transaction;
    the managed transaction retries it and the write happens exactly once."""
    attempts: list[str] = []
    original = neo4j.ManagedTransaction.run

    def flaky(self: neo4j.ManagedTransaction, query: Any, *args: Any, **kw: Any) -> Any:
        attempts.append(str(query))
        if len(attempts) % 2 == 1:
            raise neo4j.exceptions.TransientError("injected: deadlock detected")
        return original(self, query, *args, **kw)

    monkeypatch.setattr(neo4j.ManagedTransaction, "run", flaky)
    counters = connection.write(clean_db, neo4j_database, "CREATE (:Flaky {via: 'write'})")
    assert counters.nodes_created == 1 and len(attempts) == 2
    writer = GraphWriter(clean_db, neo4j_database)
    writer.run("CREATE (:Flaky {via: 'writer'})")
    assert writer.stats.nodes_created == 1 and len(attempts) == 4
    monkeypatch.undo()
    records, _, _ = clean_db.execute_query(
        "MATCH (f:Flaky) RETURN f.via AS via ORDER BY via", database_=neo4j_database)
    assert [r["via"] for r in records] == ["write", "writer"]


def test_a_read_retries_a_transient_error_and_nothing_else(
        clean_db: neo4j.Driver, neo4j_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads are auto-commit queries, which the driver does not retry: `connection.read`
    runs one again after a transient error, and a query Neo4j rejects only once."""
    attempts: list[str] = []
    failures = [neo4j.exceptions.TransientError("injected: the database is busy")]
    original = neo4j.Session.run

    def flaky(self: neo4j.Session, query: Any, *args: Any, **kw: Any) -> Any:
        attempts.append(str(query))
        if failures:
            raise failures.pop()
        return original(self, query, *args, **kw)

    monkeypatch.setattr(neo4j.Session, "run", flaky)
    assert connection.read(clean_db, neo4j_database, "RETURN 1 AS one") == [{"one": 1}]
    assert len(attempts) == 2
    attempts.clear()
    with pytest.raises(GraphError, match="SyntaxError"):
        connection.read(clean_db, neo4j_database, "RETURN nonsense(")
    assert len(attempts) == 1


LOCK_A_THEN_B: LiteralString = (
    "MATCH (a:FaultLock {name: 'A'}) SET a.n = a.n + 1 "
    "WITH a MATCH (g:FaultLock {name: 'gate'}) SET g.n = g.n + 1 "
    "WITH a, g MATCH (b:FaultLock {name: 'B'}) SET b.n = b.n + 1")
LOCK_B_THEN_A: LiteralString = (
    "MATCH (b:FaultLock {name: 'B'}) SET b.n = b.n + 1 "
    "WITH b MATCH (g:FaultLock {name: 'gate'}) SET g.n = g.n + 1 "
    "WITH b, g MATCH (a:FaultLock {name: 'A'}) SET a.n = a.n + 1")


def test_a_real_deadlock_is_retried(clean_db: neo4j.Driver, neo4j_database: str,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Two writes lock A and B in opposite orders. Both first wait on a gate node the test
    holds, so when the gate opens one of them must hit Neo4j's deadlock detection
    (a TransientError); connection.write retries it and both writes succeed."""
    clean_db.execute_query("UNWIND ['A', 'B', 'gate'] AS name CREATE (:FaultLock {name: name, "
                           "n: 0})", database_=neo4j_database)
    attempts: list[str] = []
    original = neo4j.ManagedTransaction.run

    def counted(self: neo4j.ManagedTransaction, query: Any, *args: Any, **kw: Any) -> Any:
        attempts.append(str(query))
        return original(self, query, *args, **kw)

    monkeypatch.setattr(neo4j.ManagedTransaction, "run", counted)
    errors: list[BaseException] = []

    def write(query: LiteralString) -> None:
        try:
            connection.write(clean_db, neo4j_database, query)
        except BaseException as exc:
            errors.append(exc)

    with clean_db.session(database=neo4j_database) as session:
        gate = session.begin_transaction()
        gate.run("MATCH (g:FaultLock {name: 'gate'}) SET g.n = g.n + 1").consume()
        threads = [threading.Thread(target=write, args=(q,))
                   for q in (LOCK_A_THEN_B, LOCK_B_THEN_A)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while blocked(clean_db, neo4j_database) < 2:  # both hold their first lock, wait on gate
            assert time.monotonic() < deadline and not errors, errors
            time.sleep(0.05)
        gate.commit()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert len(attempts) >= 3  # at least one of the two was retried
    records, _, _ = clean_db.execute_query(
        "MATCH (l:FaultLock) RETURN l.name AS name, l.n AS n ORDER BY name",
        database_=neo4j_database)
    assert {r["name"]: r["n"] for r in records} == {"A": 2, "B": 2, "gate": 3}


def blocked(driver: neo4j.Driver, database: str) -> int:
    """How many FaultLock transactions are waiting for a lock right now."""
    records, _, _ = driver.execute_query(
        "SHOW TRANSACTIONS YIELD status, currentQuery "
        "WHERE status STARTS WITH 'Blocked' AND currentQuery CONTAINS 'FaultLock' "
        "RETURN count(*) AS n", database_=database)
    return int(records[0]["n"])
