"""A lease in the graph that serializes ingests: two `vaultkg ingest` runs against one database
(from any machine) take turns instead of interleaving their writes. A crashed holder's lease
expires; a live holder renews it from a background thread.

The lease node outlives its holders: it carries the graph's generation, the id of the last
ingest that took the lease. A process that keeps what it knows of the graph between ingests
(`graph.ingest.IngestSession`) trusts it only while the generation is the one its own last
ingest wrote: any other writer, finished or crashed midway, has changed it."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import neo4j

from graph.connection import translate_errors
from graph.errors import GraphError

# Taking the node's write lock first (SET _touch) makes the reads that follow see the latest
# committed owner, so two transactions cannot both find the lease free.
ACQUIRE = (
    "MERGE (l:IngestLock {name: $name}) SET l._touch = true "
    "WITH l, (l.owner IS NULL OR l.owner = $owner OR l.expires < datetime()) AS free "
    "WITH l, free, l.generation AS before "
    "SET l.owner = CASE WHEN free THEN $owner ELSE l.owner END, "
    "    l.expires = CASE WHEN free THEN datetime() + duration({seconds: $ttl}) "
    "                ELSE l.expires END, "
    "    l.generation = CASE WHEN free THEN $owner ELSE l.generation END "
    "REMOVE l._touch RETURN free, before")
RENEW = (
    "MATCH (l:IngestLock {name: $name, owner: $owner}) "
    "SET l.expires = datetime() + duration({seconds: $ttl})")
RELEASE = ("MATCH (l:IngestLock {name: $name, owner: $owner}) "
           "SET l.owner = null, l.expires = null")


@dataclass(frozen=True)
class Lease:
    """A held lease: its owner id (the graph's generation from now on) and the generation
    before it was taken (None: no ingest since the database was emptied)."""

    owner: str
    before: str | None


@contextmanager
def ingest_lock(driver: neo4j.Driver, database: str, *, name: str = "ingest",
                ttl_s: int = 60, wait_s: float = 600.0,
                on_wait: Callable[[], None] | None = None) -> Iterator[Lease]:
    """Hold the ingest lease for the duration of the block; wait up to `wait_s` for it."""
    owner = uuid.uuid4().hex
    deadline = time.monotonic() + wait_s
    announced = False
    while True:
        with translate_errors():
            records, _, _ = driver.execute_query(ACQUIRE, name=name, owner=owner, ttl=ttl_s,
                                                 database_=database)
        if records and records[0]["free"]:
            before: str | None = records[0]["before"]
            break
        if time.monotonic() > deadline:
            raise GraphError(f"another ingest has held the lock for over {wait_s:.0f} s; "
                             "try again later")
        if not announced and on_wait is not None:
            on_wait()
            announced = True
        time.sleep(0.5)
    stop = threading.Event()

    def renew() -> None:
        while not stop.wait(ttl_s / 3):
            with contextlib.suppress(neo4j.exceptions.Neo4jError,
                                     neo4j.exceptions.DriverError):
                driver.execute_query(RENEW, name=name, owner=owner, ttl=ttl_s,
                                     database_=database)

    keeper = threading.Thread(target=renew, name="vaultkg-ingest-lease", daemon=True)
    keeper.start()
    try:
        yield Lease(owner, before)
    finally:
        stop.set()
        keeper.join(timeout=5)
        # If the release fails the lease simply expires.
        with contextlib.suppress(neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError):
            driver.execute_query(RELEASE, name=name, owner=owner, database_=database)
