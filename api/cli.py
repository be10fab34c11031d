"""The `vaultkg` command line. Errors reach the user here as one clear line, never a stack
trace; this is the only place that translates them for the CLI."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TypeVar

import neo4j
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn
from rich.table import Table

from api import demo, fold_cli, rdf_cli, watch_cli
from api.neo4j_cli import neo4j_app
from graph.bulk_import import bulk_import
from graph.connection import create_driver, verify
from graph.ingest import IngestReport, ingest
from graph.settings import Settings, get_settings
from loaders.errors import VaultkgError

R = TypeVar("R")

EXIT_ERROR = 1
EXIT_SKIPPED = 3

app = typer.Typer(name="vaultkg", help="Knowledge graph for LLM-maintained markdown vaults.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
app.add_typer(neo4j_app, name="neo4j")
demo.register(app)
fold_cli.register(app)
watch_cli.register(app)
rdf_cli.register(app)
err = Console(stderr=True, soft_wrap=True, highlight=False)
out = Console(soft_wrap=True)


@contextmanager
def connected(settings: Settings | None = None) -> Iterator[tuple[neo4j.Driver, str]]:
    """A verified driver for one command; closed afterwards."""
    settings = settings or get_settings()
    driver = create_driver(settings)
    try:
        verify(driver, settings.neo4j_database)
        yield driver, settings.neo4j_database
    finally:
        driver.close()


def _print_report(report: IngestReport, verbose: bool) -> None:
    table = Table(title=escape(f"ingested {report.vault}"), show_header=False)
    for label, value in (
        ("pages", report.pages), ("links", report.links), ("dangling links", report.dangling),
        ("log entries", report.log_entries), ("nodes", report.nodes),
        ("relationships", report.relationships), ("pages parsed", report.parsed),
        ("pages unchanged", report.unchanged), ("pages deleted", report.deleted),
        ("graph changed", "yes" if report.changed else "no (already up to date)"),
        *((("log lines moved", report.log_lines_moved),) if report.log_lines_moved else ()),
        ("elapsed", f"{report.elapsed_s:.2f} s"),
    ):
        table.add_row(label, str(value))
    out.print(table)
    for line in report.skipped:
        err.print(f"[yellow]skipped[/]: {escape(line)}")
    if verbose or len(report.problems) <= 20:
        for line in report.problems:
            err.print(f"[yellow]warning[/]: {escape(line)}")
    else:
        err.print(f"[yellow]{len(report.problems)} warnings[/] (use --verbose to list them)")


@app.command("ingest")
def ingest_command(
    path: Annotated[Path, typer.Argument(help="Vault folder (its wiki/ is used if present).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    force: Annotated[bool, typer.Option(help="Re-parse every page, changed or not.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every warning.")] = False,
) -> None:
    """Load a vault into Neo4j; a second run on an unchanged vault changes nothing."""
    with connected() as (driver, database):
        report = _with_progress(not as_json, lambda progress: ingest(
            driver, database, path, force=force, progress=progress))
    _finish(report, as_json, verbose)


@neo4j_app.command("import")
def import_command(
    path: Annotated[Path, typer.Argument(help="Vault folder (its wiki/ is used if present).")],
    replace: Annotated[bool, typer.Option(
        help="Replace a graph that already holds pages (else the import refuses).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="List every warning.")] = False,
) -> None:
    """First ingest of a large vault, offline: build the local server's store with
    neo4j-admin import (the server is stopped meanwhile), then go on as an ingest."""
    settings = get_settings()
    report = _with_progress(not as_json, lambda progress: bulk_import(
        settings, path, replace=replace, progress=progress))
    _finish(report, as_json, verbose)


def _with_progress(show: bool, run: Callable[[Callable[[int, int], None] | None], R]) -> R:
    """`run(progress)`, with a bar of pages parsed on a terminal."""
    if not (show and sys.stderr.isatty()):
        return run(None)
    with _progress() as bar:
        task = bar.add_task("parsing pages", total=None)
        return run(lambda done, total: bar.update(task, completed=done, total=total))


def _finish(report: IngestReport, as_json: bool, verbose: bool) -> None:
    """The report, as JSON or a table with the warnings; exit code 3 if pages were skipped."""
    if as_json:
        typer.echo(json.dumps(report.model_dump(), ensure_ascii=False, indent=2))
    else:
        _print_report(report, verbose)
    if report.skipped:
        raise typer.Exit(EXIT_SKIPPED)


def _progress() -> Progress:
    return Progress("[progress.description]{task.description}", BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=True)


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    workers: Annotated[int, typer.Option(
        min=1, help="Server processes: each request runs its Python on one core, so with "
                    "concurrent clients more cores need more processes.")] = 1,
) -> None:
    """Serve the GraphQL API at http://HOST:PORT/graphql (GraphiQL in a browser)."""
    import uvicorn

    from api.http_protocol import HTTP

    if workers == 1:
        from api.app import create_app

        uvicorn.run(create_app(), host=host, port=port, http=HTTP)
    else:  # each process builds its own app (driver, sessions) from the environment
        uvicorn.run("api.app:create_app", factory=True, host=host, port=port, workers=workers,
                    http=HTTP)


def main() -> None:
    """Entry point: run the app; a VaultkgError becomes `error: ...` and exit code 1."""
    try:
        app()
    except VaultkgError as exc:
        # One plain line, never wrapped or marked up: scripts grep it.
        typer.echo(f"error: {exc}", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)


if __name__ == "__main__":
    main()
