"""`vaultkg demo`: the first-day experience in one command. Neo4j up (an existing server, Docker
when an engine answers, else the local server), the vault ingested, the API serving, and a list
of what to open."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from graph import local_server
from graph.connection import create_driver, verify
from graph.errors import GraphUnavailable
from graph.ingest import ingest
from graph.settings import Settings, get_settings

console = Console()
EXAMPLE_QUERIES = {
    "lineage": '{ lineage(from: "FFTrainer", direction: ANCESTORS) { nodes { key title year } '
               'edges { child parent relation provenance { page line mechanism } } } }',
    "contradictions": "{ contradictions(status: OPEN) { edges { node { summary kind origin "
                      "evidence } } } }",
    "search": '{ search(text: "tensor parallelism", first: 5) { key title score } }',
    "fold": '{ fold(from: "2026-06-17", to: "2026-06-18") { foldId entryCount markdown } }',
}


def _neo4j_reachable(settings: Settings) -> bool:
    driver = create_driver(settings)
    try:
        verify(driver, settings.neo4j_database)
        return True
    except GraphUnavailable:
        return False
    finally:
        driver.close()


def _docker_engine() -> bool:
    try:
        done = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"],
                              capture_output=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and bool(done.stdout.strip())


def ensure_neo4j(settings: Settings) -> str:
    """Bring a Neo4j up and say which one."""
    if _neo4j_reachable(settings):
        return f"existing Neo4j at {settings.neo4j_uri}"
    if _docker_engine():
        subprocess.run(["docker", "compose", "up", "-d", "--wait", "neo4j"], check=True)
        return "Neo4j in Docker (docker compose service 'neo4j')"
    status = local_server.start(settings)
    return f"local Neo4j {status.version} at {status.bolt_uri} (home {status.home})"


def register(app: typer.Typer) -> None:
    """Add `vaultkg demo` to the CLI."""

    @app.command("demo")
    def demo(
        vault: Annotated[Path, typer.Option(help="Vault to load.")] = Path("examples/vault"),
        host: Annotated[str, typer.Option(help="Address to serve on.")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="Port to serve on.")] = 8000,
        no_neo4j: Annotated[bool, typer.Option(
            "--no-neo4j", help="Do not start Neo4j; use NEO4J_URI as it is.")] = False,
        no_serve: Annotated[bool, typer.Option(
            "--no-serve", help="Stop after ingesting (for scripts).")] = False,
    ) -> None:
        """Neo4j up, the vault ingested, the API serving."""
        settings = get_settings()
        where = f"Neo4j at {settings.neo4j_uri}" if no_neo4j else ensure_neo4j(settings)
        console.print(f"[bold]1.[/] {where}")
        driver = create_driver(settings)
        try:
            verify(driver, settings.neo4j_database)
            report = ingest(driver, settings.neo4j_database, vault)
        finally:
            driver.close()
        console.print(f"[bold]2.[/] ingested {report.vault}: {report.pages} pages, "
                      f"{report.links} links ({report.dangling} dangling), "
                      f"{report.log_entries} log entries in {report.elapsed_s:.1f} s")
        for line in report.skipped + report.problems:
            console.print(f"   [yellow]note[/]: {line}", highlight=False)
        base = f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}"
        console.print(f"[bold]3.[/] API on {base}  (Ctrl-C stops it)")
        console.print(f"   GraphiQL        {base}/graphql")
        console.print(f"   lineage picture {base}/ui/lineage?from=FFTrainer")
        console.print(f"   RDF (turtle)    {base}/rdf")
        console.print(f"   health          {base}/healthz  {base}/readyz")
        console.print("   example queries to paste into GraphiQL:")
        for name, query in EXAMPLE_QUERIES.items():
            console.print(f"   [cyan]{name}[/]: {query}", highlight=False, soft_wrap=True)
        if no_serve:
            return
        import uvicorn

        from api.app import create_app

        uvicorn.run(create_app(settings), host=host, port=port, log_level="info")
