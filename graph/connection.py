"""One driver per process, built from settings and handed to whoever needs it; driver errors
become GraphUnavailable / GraphError here and nowhere else."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, LiteralString, TypeVar

import neo4j
from neo4j import GraphDatabase
from neo4j.exceptions import (
    AuthError,
    ClientError,
    DatabaseUnavailable,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from graph.errors import GraphError, GraphUnavailable
from graph.records import data_rows, value_rows
from graph.settings import Settings

T = TypeVar("T")
# How long a transient failure is retried, reads and managed transactions alike.
RETRY_S = 15.0


def create_driver(settings: Settings) -> neo4j.Driver:
    """A driver for the configured server (not yet verified: see `verify`)."""
    return GraphDatabase.driver(
        settings.neo4j_uri,
        auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
        max_connection_lifetime=3600,
        connection_acquisition_timeout=15,
        connection_timeout=5,
        max_transaction_retry_time=RETRY_S,
        notifications_min_severity="OFF",
    )


@contextmanager
def translate_errors(uri: str = "") -> Iterator[None]:
    """Driver exceptions -> vaultkg errors with one clear line."""
    where = f" at {uri}" if uri else ""
    try:
        yield
    except AuthError:
        raise GraphUnavailable(
            f"Neo4j{where} refused the credentials (check NEO4J_USER / NEO4J_PASSWORD)"
        ) from None
    except (ServiceUnavailable, SessionExpired, DatabaseUnavailable, OSError) as exc:
        raise GraphUnavailable(f"Neo4j{where} is not reachable: {_first_line(exc)}") from None
    except ClientError as exc:
        raise GraphError(f"Neo4j rejected a query: {exc.code}: {_first_line(exc)}") from None
    except Neo4jError as exc:
        raise GraphError(f"Neo4j error: {exc.code}: {_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return str(text).strip().split("\n")[0][:300]


def verify(driver: neo4j.Driver, database: str) -> None:
    """Raise GraphUnavailable unless the database answers a trivial query."""
    with translate_errors():
        driver.verify_connectivity()
        driver.execute_query("RETURN 1", database_=database)


def _read(driver: neo4j.Driver, database: str, query: LiteralString, timeout: float | None,
          params: dict[str, Any],
          rows: Callable[[Sequence[str], Iterable[neo4j.Record]], list[dict[str, Any]]]
          ) -> list[dict[str, Any]]:
    """`query` as one auto-commit read, its records made into dicts by `rows`. RUN and PULL go
    in one round trip, where a managed transaction (`execute_query`) sends COMMIT after them:
    a second one, 0.2-0.5 ms and ~0.2 CPU-ms of a read here. What the managed transaction
    added besides, retrying transient failures (a pooled connection that Neo4j closed when it
    restarted), `retried` does: a read can run again. No bookmarks, as in a fresh session."""

    def attempt() -> list[dict[str, Any]]:
        with driver.session(database=database, default_access_mode=neo4j.READ_ACCESS,
                            bookmark_manager=None) as session:
            result = session.run(neo4j.Query(query, timeout=timeout), params)
            return rows(result.keys(), result)

    with translate_errors():
        return retried(attempt)


def retried(attempt: Callable[[], T], within_s: float = RETRY_S) -> T:
    """`attempt()`, run again after each transient failure, as the driver retries a managed
    transaction: after 1 s, then twice as long each time (±20%), until `within_s` have passed
    since the first failure; then that last failure is raised. For work that can run twice."""
    delay, started = 1.0, None
    while True:
        try:
            return attempt()
        except (neo4j.exceptions.DriverError, Neo4jError) as exc:
            if not exc.is_retryable():
                raise
            started = time.monotonic() if started is None else started
            if time.monotonic() - started > within_s:
                raise
        time.sleep(delay * random.uniform(0.8, 1.2))
        delay *= 2


def read(driver: neo4j.Driver, database: str, query: LiteralString,
         timeout: float | None = None, **params: Any) -> list[dict[str, Any]]:
    """A parameterized read, one auto-commit query (retried on transient errors)."""
    return _read(driver, database, query, timeout, params, data_rows)


def read_values(driver: neo4j.Driver, database: str, query: LiteralString,
                timeout: float | None = None, **params: Any) -> list[dict[str, Any]]:
    """`read` for queries that return only values, lists and maps (no nodes, relationships or
    paths): records are taken as they come, without even `data_rows`' look at every value,
    which costs more than the query on large nested results (a 1,024-entry fold)."""
    return _read(driver, database, query, timeout, params, value_rows)


def write_batched(driver: neo4j.Driver, database: str, query: LiteralString,
                  **params: Any) -> neo4j.SummaryCounters:
    """A write that commits as it goes (`CALL { ... } IN TRANSACTIONS`), in an auto-commit
    transaction, the only kind that may run one. Not retried here: the batches committed
    before a failure stay, so the statement must be one that can run again (find only what
    is left to do)."""
    with translate_errors(), driver.session(database=database) as session:
        return session.run(query, params).consume().counters


def write(driver: neo4j.Driver, database: str, query: LiteralString,
          timeout: float | None = None, **params: Any) -> neo4j.SummaryCounters:
    """A parameterized write in a managed write transaction (retried on transient errors)."""
    return write_params(driver, database, query, params, timeout)


def write_params(driver: neo4j.Driver, database: str, query: LiteralString,
                 params: dict[str, Any], timeout: float | None = None) -> neo4j.SummaryCounters:
    """`write` with the parameters as one dict (any names, `timeout` or `query` too), its BEGIN
    sent along with the query, as `read` does."""

    def counters(result: neo4j.Result) -> neo4j.SummaryCounters:
        return result.consume().counters

    with translate_errors():
        return driver.execute_query(
            neo4j.Query(query, timeout=timeout), params, routing_=neo4j.RoutingControl.WRITE,
            database_=database, bookmark_manager_=None, result_transformer_=counters)
