"""`vaultkg demo`: the first-day experience in one command. Neo4j up (an existing server, Docker
when an engine answers, else the local server), the vault ingested, the API serving, and a list
of what to open, with example queries picked from the loaded vault (so they work on any)."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Annotated
from urllib.parse import urlencode, urlsplit

import typer
from rich.console import Console

from api.progress import ingest_progress
from graph import local_server
from graph.connection import create_driver, verify
from graph.errors import GraphUnavailable
from graph.ingest import IngestReport, ingest
from graph.settings import Settings, get_settings
from queries.base import GraphContext
from queries.showcase import Showcase, iso, showcase

console = Console()
err = Console(stderr=True)
BROWSER_PORT = 7474


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
    return (f"local Neo4j {status.version} at {status.bolt_uri} (home {status.home}; "
            "`vaultkg neo4j stop` stops it)")


def neo4j_browser(settings: Settings) -> str | None:
    """The Neo4j Browser URL when the server's HTTP port answers (Docker, most installs); the
    local server runs without HTTP, so it has none."""
    host = urlsplit(settings.neo4j_uri).hostname or "127.0.0.1"
    url = f"http://{host}:{BROWSER_PORT}/browser/"
    try:
        with urllib.request.urlopen(url, timeout=1.5) as response:
            return url if response.status == 200 else None
    except (urllib.error.URLError, OSError, ValueError):
        return None


def example_queries(pick: Showcase) -> dict[str, str]:
    """GraphQL to paste into GraphiQL, naming things this vault has."""
    out: dict[str, str] = {}
    if pick.work:
        out["lineage"] = (
            f"{{ lineage(from: {json.dumps(pick.work)}, direction: ANCESTORS) {{ nodes {{ page "
            "{ key title ... on Work { year } } } edges { childKey relation parentKey "
            "provenance { pageKey line mechanism introducedByKey } } } }")
        out["lineage as Mermaid"] = (
            f"{{ lineageDiagram(from: {json.dumps(pick.work)}, format: MERMAID) }}")
    out["contradictions"] = ("{ contradictions(status: OPEN) { nodes { summary kind foundBy "
                             "evidence { source line text } introducedBy { date title } } } }")
    if pick.fold_from and pick.fold_to:
        out["fold"] = (f'{{ fold(from: "{iso(pick.fold_from)}", to: "{iso(pick.fold_to)}") '
                       "{ foldId entryCount themes { concept support } markdown } }")
    if pick.concept:
        out["search"] = (f"{{ search(text: {json.dumps(pick.concept)}, first: 5) "
                         "{ score page { key title } } }")
    return out


def what_to_open(base: str, pick: Showcase, browser: str | None) -> list[tuple[str, str]]:
    """(label, URL) lines: the API's pages, pictures of this vault, Neo4j Browser if any."""
    lines = [("GraphiQL", f"{base}/graphql")]
    if pick.work:
        query = urlencode({"from": pick.work}, safe="@")
        lines.append(("lineage picture", f"{base}/ui/lineage?{query}"))
    if pick.fold_from and pick.fold_to:
        lines.append(("fold picture", f"{base}/ui/fold?" + urlencode(
            {"from": iso(pick.fold_from), "to": iso(pick.fold_to)})))
    lines += [("RDF (Turtle)", f"{base}/rdf"), ("health", f"{base}/healthz  {base}/readyz")]
    if browser:
        lines.append(("Neo4j Browser", browser))
    return lines


def _ingest(settings: Settings, vault: Path) -> tuple[IngestReport, Showcase]:
    driver = create_driver(settings)
    try:
        verify(driver, settings.neo4j_database)
        with ingest_progress(err) as progress:
            report = ingest(driver, settings.neo4j_database, vault, progress=progress)
        return report, showcase(GraphContext(driver, settings.neo4j_database))
    finally:
        driver.close()


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
        """Neo4j up, the vault ingested, the API serving, and what to open."""
        settings = get_settings()
        where = f"Neo4j at {settings.neo4j_uri}" if no_neo4j else ensure_neo4j(settings)
        console.print(f"[bold]1.[/] {where}")
        report, pick = _ingest(settings, vault)
        console.print(f"[bold]2.[/] ingested {report.vault}: {report.pages} pages, "
                      f"{report.links} links ({report.dangling} dangling), "
                      f"{report.log_entries} log entries in {report.elapsed_s:.1f} s")
        for line in report.skipped + report.problems:
            console.print(f"   [yellow]note[/]: {line}", highlight=False)
        base = f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}"
        console.print(f"[bold]3.[/] API on {base}" + ("" if no_serve else "  (Ctrl-C stops it)"))
        for label, url in what_to_open(base, pick, neo4j_browser(settings)):
            console.print(f"   {label:<16}{url}", highlight=False, soft_wrap=True)
        console.print("   example queries to paste into GraphiQL:")
        for name, query in example_queries(pick).items():
            console.print(f"   [cyan]{name}[/]: {query}", highlight=False, soft_wrap=True)
        if no_serve:
            return
        import uvicorn

        from api.app import create_app
        from api.http_protocol import HTTP

        uvicorn.run(create_app(settings), host=host, port=port, log_level="info", http=HTTP)
