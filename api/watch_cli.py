"""`vaultkg watch VAULT`: ingest once, then re-ingest after each settled batch of saves and
print one line per batch (or one JSON object per line with --json). Ctrl-C stops it cleanly."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.console import Console

from api.watch import DEFAULT_QUIET_MS, WatchBatch, summary, watch_vault
from graph.connection import create_driver, verify
from graph.ingest import IngestReport
from graph.settings import get_settings
from loaders.errors import VaultkgError

err = Console(stderr=True)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def register(app: typer.Typer) -> None:
    """Add `vaultkg watch` to the CLI."""

    @app.command("watch")
    def watch(
        vault: Annotated[Path, typer.Argument(help="Vault folder (its wiki/ is used if present).")],
        debounce: Annotated[int, typer.Option(
            help="Milliseconds without a save before the batch is ingested.", min=50,
        )] = DEFAULT_QUIET_MS,
        as_json: Annotated[bool, typer.Option(
            "--json", help="One JSON object per batch on stdout (for scripts).")] = False,
        verbose: Annotated[bool, typer.Option(
            "--verbose", "-v", help="Also print every file of a batch and every warning.")] = False,
    ) -> None:
        """Re-ingest pages as they are saved, logging what changed in the graph."""
        settings = get_settings()
        driver = create_driver(settings)

        def emit(batch: WatchBatch) -> None:
            if as_json:
                typer.echo(json.dumps({"event": "ingested", **batch.model_dump()},
                                      ensure_ascii=False), nl=True)
                return
            err.print(summary(batch), highlight=False, soft_wrap=True)
            if verbose:
                for change in batch.changes:
                    err.print(f"   {change.change:8} {change.path}", highlight=False)
            for line in batch.report.skipped + (batch.report.problems if verbose else []):
                err.print(f"   [yellow]warning[/]: {line}", highlight=False)

        def failed(exc: VaultkgError) -> None:
            if as_json:
                typer.echo(json.dumps({"event": "error", "code": exc.code, "message": str(exc)},
                                      ensure_ascii=False))
            else:
                err.print(f"[red]error[/]: {exc} (waiting for the next save)", highlight=False)

        def ready(report: IngestReport) -> None:
            if as_json:
                typer.echo(json.dumps({"event": "ready", "report": report.model_dump()},
                                      ensure_ascii=False))
            else:
                err.print(f"watching {report.vault}: {report.pages} pages "
                          f"({report.parsed} parsed now); Ctrl-C stops", highlight=False)

        previous = signal.signal(signal.SIGTERM, _interrupt)  # a supervisor's stop = Ctrl-C
        try:
            verify(driver, settings.neo4j_database)
            watch_vault(driver, settings.neo4j_database, vault, emit, on_ready=ready,
                        on_error=failed, quiet_ms=debounce)
        except KeyboardInterrupt:
            if not as_json:
                err.print("stopped watching")
        finally:
            signal.signal(signal.SIGTERM, previous)
            driver.close()
