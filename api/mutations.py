"""Mutations (API key required): `ingest(path:, changed:)` of a folder inside a configured
vault root. Concurrent ingests take turns (graph.lock), whoever starts them; the server keeps a
session per folder between them (api/ingest_sessions.py)."""

from __future__ import annotations

import asyncio

import strawberry

from api.auth import confined_path
from api.decorators import write_field
from api.ingest_sessions import changed_paths, unknown_paths
from api.types import Ctx
from graph.ingest import IngestReport, ingest
from loaders.gc_pause import keep_long_lived


@strawberry.type(description="What an ingest run did and what the graph now holds.")
class IngestResult:
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
    changed: bool
    elapsed_seconds: float
    problems: list[str]
    skipped: list[str]


@strawberry.type
class Mutation:
    @write_field(description="Load (or update) a vault folder inside the configured vault "
                             "roots; unchanged pages are skipped. `changed`: the files "
                             "(absolute, or relative to `path`) changed since this server's "
                             "last ingest of the folder; only they are read (a change left "
                             "out is found by the next ingest without `changed`).")
    async def ingest(self, info: Ctx, path: str, force: bool = False,
                     changed: list[str] | None = None) -> IngestResult:
        folder = confined_path(path, info.context.settings.vault_roots)
        told = None if changed is None or force else changed_paths(folder, changed)
        graph = info.context.graph
        sessions = info.context.ingest_sessions

        def run() -> tuple[IngestReport, list[str]]:
            if sessions is None:
                return ingest(graph.driver, graph.database, folder, force=force), []
            with sessions.session(folder) as session:
                unknown = unknown_paths(folder, told, session.scan) if told else []
                return ingest(graph.driver, graph.database, folder, force=force,
                              session=session, changed=told), unknown

        report, unknown = await asyncio.to_thread(run)
        keep_long_lived()
        return IngestResult(
            vault=report.vault, pages=report.pages, links=report.links,
            dangling=report.dangling, log_entries=report.log_entries, nodes=report.nodes,
            relationships=report.relationships, parsed=report.parsed,
            unchanged=report.unchanged, deleted=report.deleted, changed=report.changed,
            elapsed_seconds=report.elapsed_s, problems=unknown + report.problems,
            skipped=report.skipped)
