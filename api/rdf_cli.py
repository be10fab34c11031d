"""`vaultkg export`, `vaultkg import-rdf` and `vaultkg cypher`: the graph out as RDF, an RDF
export back in, and the saved Cypher queries. Registered on the main app by `register(app)`."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import neo4j
import typer
from rich.console import Console
from rich.table import Table

from api.progress import stream_progress
from graph.connection import create_driver, verify
from graph.rdf_import import import_rdf
from graph.settings import get_settings
from loaders.errors import BadUserInput
from queries import saved
from queries.base import GraphContext
from queries.rdf_export import FORMATS, RdfExport

out = Console(soft_wrap=True)
err = Console(stderr=True)


@contextmanager
def _driver() -> Iterator[tuple[neo4j.Driver, str, float]]:
    """A verified driver for one command; closed afterwards."""
    settings = get_settings()
    driver = create_driver(settings)
    try:
        verify(driver, settings.neo4j_database)
        yield driver, settings.neo4j_database, settings.query_timeout_s
    finally:
        driver.close()


def export_command(
    fmt: Annotated[str, typer.Option("--format", "-f",
                                     help="turtle, json-ld or nt (N-Triples).")] = "turtle",
    out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                  help="Write here (default: stdout).")] = None,
    base: Annotated[str | None, typer.Option(help="IRI base for nodes (default: "
                                                  "VAULTKG_RDF_BASE).")] = None,
) -> None:
    """Export the graph as RDF (schema.org, Dublin Core, FOAF, SKOS, CiTO, PROV-O), streamed."""
    if fmt not in FORMATS:
        raise BadUserInput(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    with _driver() as (driver, database, timeout):
        export = RdfExport(GraphContext(driver, database, timeout), fmt,
                           base or get_settings().rdf_base)
        chunks = stream_progress(export, lambda: export.stats.triples, err,
                                 enabled=out_file is not None or not sys.stdout.isatty())
        if out_file is None:
            for chunk in chunks:
                sys.stdout.write(chunk)
            sys.stdout.flush()
        else:
            _write_atomically(out_file, chunks)
    stats = export.stats
    err.print(f"exported {sum(stats.nodes.values())} nodes, {stats.relationships} relationships "
              f"as {stats.triples} triples ({fmt})"
              + (f" to {out_file}" if out_file else "")
              + (f"; left out {stats.skipped_nodes} nodes and {stats.skipped_relationships} "
                 "relationships of unknown classes"
                 if stats.skipped_nodes or stats.skipped_relationships else ""),
              highlight=False)


def _write_atomically(path: Path, chunks: Iterable[str]) -> None:
    """Write beside the target and rename, so a failed export never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for chunk in chunks:
                handle.write(chunk)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def import_command(
    file: Annotated[Path, typer.Argument(help="A file written by `vaultkg export`.")],
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="turtle, json-ld or nt "
                                            "(default: from the extension).")] = None,
    base: Annotated[str | None, typer.Option(help="IRI base of the file (default: read "
                                                  "from the file).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Load an RDF export into an EMPTY database (a re-export is isomorphic to the file)."""
    with _driver() as (driver, database, _):
        report = import_rdf(driver, database, file, fmt=fmt, base=base,
                            default_base=get_settings().rdf_base)
    if as_json:
        typer.echo(json.dumps(report.model_dump(), ensure_ascii=False, indent=2))
        return
    out.print(f"imported {sum(report.nodes.values())} nodes and "
              f"{sum(report.relationships.values())} relationships from {report.triples} "
              f"triples in {report.elapsed_s:.1f} s", highlight=False)
    for line in report.skipped:
        err.print(f"[yellow]skipped[/]: {line}", highlight=False)


def _params(pairs: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise BadUserInput(f"--param wants NAME=VALUE, not {pair!r}")
        params[name.strip()] = value
    return params


def cypher_command(
    name: Annotated[str | None, typer.Argument(help="Saved query (see --list).")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p",
                                                    help="NAME=VALUE, repeatable.")] = None,
    list_all: Annotated[bool, typer.Option("--list", help="List the saved queries.")] = False,
    show: Annotated[bool, typer.Option("--show", help="Print the query text (to paste into "
                                                      "Neo4j Browser).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print rows as JSON.")] = False,
) -> None:
    """Run a saved, parameterized Cypher query from queries/cypher/ (read-only)."""
    if list_all or name is None:
        _list_queries(as_json)
        return
    query = saved.get(name)
    if show:
        typer.echo(query.text)
        return
    with _driver() as (driver, database, timeout):
        result = saved.run(GraphContext(driver, database, timeout), query, _params(param or []))
    if as_json:
        typer.echo(json.dumps(result.model_dump(), ensure_ascii=False, indent=2))
        return
    table = Table(*result.columns, title=f"{name} ({len(result.rows)} rows)")
    for row in result.rows:
        table.add_row(*(_cell(row.get(c)) for c in result.columns))
    out.print(table)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _list_queries(as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([q.model_dump(exclude={"text", "path"})
                               for q in saved.saved_queries().values()],
                              ensure_ascii=False, indent=2))
        return
    table = Table("name", "parameters", "columns", "description", title="saved queries")
    for query in saved.saved_queries().values():
        params = ", ".join(p.name + ("" if p.required else f"={json.dumps(p.default)}")
                           for p in query.params)
        table.add_row(query.name, params, ", ".join(query.columns), query.description)
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add the commands to the main CLI."""
    app.command("export")(export_command)
    app.command("import-rdf")(import_command)
    app.command("cypher")(cypher_command)
