"""Ingest = load the vault (loaders) + write what changed (writer) + report. The one place that
joins the two layers."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, LiteralString

import neo4j
from pydantic import BaseModel

from graph.connection import translate_errors
from graph.lock import ingest_lock
from graph.schema import ensure_schema
from graph.writer import GraphWriter
from graph.writes import PAGE_HASH_FIELDS
from loaders.gc_pause import cyclic_gc_paused
from loaders.records import Problem
from loaders.vault import CHUNK_PAGES, LoadOptions, PreviousPage, stream_vault

TOTALS: LiteralString = (
    "CALL () { MATCH (p:Page) WHERE p.path ENDS WITH '.md' RETURN count(p) AS pages } "
    "CALL () { MATCH (:Page)-[r:LINKS_TO]->() RETURN count(r) AS links } "
    "CALL () { MATCH (:Page)-[r:LINKS_TO]->(:Dangling) RETURN count(r) AS dangling } "
    "CALL () { MATCH (e:LogEntry) RETURN count(e) AS log_entries } "
    "CALL () { MATCH (n) WHERE NOT n:IngestLock RETURN count(n) AS nodes } "
    "CALL () { MATCH ()-[r]->() RETURN count(r) AS relationships } "
    "RETURN pages, links, dangling, log_entries, nodes, relationships")


def _previous(rows: list[list[Any]]) -> dict[str, PreviousPage]:
    """`PAGE_HASHES` rows by page key: what the graph holds of each page and its file's
    stamp."""
    assert PAGE_HASH_FIELDS == ("key", "hash", "names", "kind", "path", "mtime_ns", "size",
                                "title", "aliases")
    return {key: PreviousPage(digest or "", tuple(names or ()), kind or "", path=path or "",
                              mtime_ns=mtime_ns or 0, size=-1 if size is None else size,
                              title=title or "", aliases=tuple(aliases or ()))
            for key, digest, names, kind, path, mtime_ns, size, title, aliases in rows}


class IngestReport(BaseModel):
    """What an ingest run did and what the graph now holds."""

    vault: str
    pages: int
    links: int
    dangling: int
    log_entries: int
    nodes: int
    relationships: int
    parsed: int
    unchanged: int
    deleted: int
    nodes_created: int
    nodes_deleted: int
    relationships_created: int
    relationships_deleted: int
    changed: bool
    elapsed_s: float
    problems: list[str]
    skipped: list[str]


def ingest(driver: neo4j.Driver, database: str, path: Path, *, force: bool = False,
           progress: Callable[[int, int], None] | None = None,
           batch_size: int = 5000, on_wait: Callable[[], None] | None = None,
           chunk_pages: int = CHUNK_PAGES) -> IngestReport:
    """Bring the graph in line with the vault at `path`, touching only what changed, writing
    `chunk_pages` parsed pages at a time while the next are parsed. Concurrent ingests into one
    database take turns (see `graph.lock`)."""
    started = time.perf_counter()
    ensure_schema(driver, database)
    with ingest_lock(driver, database, on_wait=on_wait):
        writer = GraphWriter(driver, database, batch_size=batch_size)
        # Paused as in load_vault, but not around the writes: with it there, the 100k full
        # ingest peaked 1 GiB higher (their garbage needs the cyclic collector).
        with cyclic_gc_paused():
            previous = _previous(writer.previous_pages())
        stream = stream_vault(path, LoadOptions(previous=previous, force=force,
                                                progress=progress), chunk_pages)
        try:
            stats = writer.write(stream)
        finally:
            stream.close()
    with translate_errors():
        records, _, _ = driver.execute_query(TOTALS, database_=database, routing_="r")
    totals = records[0].data()
    problems: list[Problem] = list(stream.problems)
    return IngestReport(
        vault=stream.root, **totals, parsed=len(stream.todo),
        unchanged=len(stream.unchanged), deleted=len(stream.deleted),
        nodes_created=stats.nodes_created, nodes_deleted=stats.nodes_deleted,
        relationships_created=stats.relationships_created,
        relationships_deleted=stats.relationships_deleted, changed=stats.changed,
        elapsed_s=round(time.perf_counter() - started, 3),
        problems=[str(p) for p in problems if not p.skipped],
        skipped=[str(p) for p in problems if p.skipped])
