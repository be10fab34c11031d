"""`vaultkg neo4j start|stop|status`: the local Neo4j server for development and CI.

Each command prints one line; a LocalServerError becomes `error: <message>` on stderr, exit 1,
so scripts and CI logs show the cause instead of a stack trace.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, TypeVar

import typer

from graph import local_server
from graph.errors import LocalServerError
from graph.settings import get_settings

neo4j_app = typer.Typer(
    name="neo4j",
    help="Run a local Neo4j 5.26 Community server (no Docker) on 127.0.0.1.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")


def _fail(exc: LocalServerError) -> NoReturn:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(code=1)


def _run(action: Callable[[], T]) -> T:
    try:
        return action()
    except LocalServerError as exc:
        _fail(exc)


@neo4j_app.command()
def start() -> None:
    """Fetch the jars if needed, start the server, and wait until Bolt answers."""
    settings = get_settings()
    st = _run(lambda: local_server.start(settings))
    if st.already_running:
        typer.echo(f"neo4j {st.version} already running (pid {st.pid}) at {st.bolt_uri}")
    else:
        typer.echo(
            f"neo4j {st.version} started (pid {st.pid}) at {st.bolt_uri} "
            f"in {st.startup_seconds:.1f} s; home {st.home}"
        )


@neo4j_app.command()
def stop() -> None:
    """Stop the server (clean shutdown, killed after 60 s); harmless when it is not running."""
    settings = get_settings()
    before = _run(lambda: local_server.status(settings))
    _run(lambda: local_server.stop(settings))
    if before.running:
        typer.echo(f"neo4j stopped (was pid {before.pid})")
    else:
        typer.echo("neo4j was not running")


@neo4j_app.command()
def status() -> None:
    """Say whether the server runs and whether Bolt answers with the configured password."""
    settings = get_settings()
    st = _run(lambda: local_server.status(settings))
    if not st.running:
        typer.echo(f"neo4j not running (home {st.home})")
    elif st.ready:
        typer.echo(f"neo4j {st.version} running (pid {st.pid}) at {st.bolt_uri}, answering")
    else:
        typer.echo(
            f"neo4j {st.version} running (pid {st.pid}) at {st.bolt_uri}, "
            "but Bolt does not answer yet (starting, or a different NEO4J_PASSWORD)"
        )


if __name__ == "__main__":
    neo4j_app()
