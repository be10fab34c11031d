"""`vaultkg fold` and `vaultkg folds`: build, print, check and write fold pages (extractive
digests of log ranges). Registered on the main app by `register(app)`."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from api.fold_files import write_fold
from graph.connection import create_driver, verify
from graph.settings import get_settings
from loaders.errors import BadUserInput
from loaders.files import vault_root
from queries import fold_resolver as resolver
from queries import folds as q
from queries.base import GraphContext
from queries.fold_check import check_fold, context_of
from queries.fold_models import FoldCheck, FoldDigest
from queries.fold_render import render

EXIT_CHECK_FAILED = 4
out = Console(soft_wrap=True)
err = Console(stderr=True)


@contextmanager
def graph_context() -> Iterator[GraphContext]:
    """A verified graph context for one command; the driver is closed afterwards."""
    settings = get_settings()
    driver = create_driver(settings)
    try:
        verify(driver, settings.neo4j_database)
        yield GraphContext(driver, settings.neo4j_database, timeout_s=settings.query_timeout_s)
    finally:
        driver.close()


def _day(value: str | None, option: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise BadUserInput(f"{option} wants a date YYYY-MM-DD, not {value!r}") from None


def _select(ctx: GraphContext, date_from: dt.date | None, date_to: dt.date | None,
            level: int | None, ending: dt.date | None, of: list[str],
            as_of: dt.date | None) -> FoldDigest:
    ways = [date_from is not None or date_to is not None,
            level is not None or ending is not None, bool(of)]
    if sum(ways) != 1:
        raise BadUserInput("choose one range: --from D --to D, --level K --ending D, or "
                           "--of FOLD_ID --of FOLD_ID")
    if ways[0]:
        if date_from is None or date_to is None:
            raise BadUserInput("--from and --to go together")
        return resolver.fold_range(ctx, date_from, date_to, as_of)
    if ways[1]:
        if level is None or ending is None:
            raise BadUserInput("--level and --ending go together")
        return resolver.fold_ending(ctx, level, ending, as_of)
    if len(of) != 2:
        raise BadUserInput("--of takes exactly two adjacent fold ids")
    return resolver.fold_of_fold_ids(ctx, of[0], of[1], as_of)


def _print_check(result: FoldCheck, as_json: bool, label: str) -> None:
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    verdict = "[green]passes[/]" if result.ok else "[red]fails[/]"
    out.print(f"check {label}: {verdict}", highlight=False)
    for check in result.checks:
        mark = "[green]ok[/]  " if check.ok else "[red]FAIL[/]"
        out.print(f"  {mark} {check.name}", highlight=False)
        for problem in check.problems:
            out.print(f"       - {problem}", highlight=False, markup=False)
    for warning in result.warnings:
        out.print(f"  [yellow]warn[/] {warning}", highlight=False)


def _emit(text: str, target: Path | None) -> None:
    if target is None:
        typer.echo(text, nl=False)
    else:
        target.write_text(text, encoding="utf-8")
        err.print(f"wrote {target}", highlight=False)


def fold_command(
    file: Annotated[Path | None, typer.Argument(
        help="With --check: an existing fold page to validate.")] = None,
    date_from: Annotated[str | None, typer.Option("--from", help="First date (YYYY-MM-DD).")]
    = None,
    date_to: Annotated[str | None, typer.Option("--to", help="Last date (YYYY-MM-DD).")] = None,
    level: Annotated[int | None, typer.Option(help="K: fold the 2^K entries ending at --ending.")]
    = None,
    ending: Annotated[str | None, typer.Option(help="Date the 2^K entries end at.")] = None,
    of: Annotated[list[str] | None, typer.Option(
        "--of", help="Two adjacent level-K fold ids: build their level K+1 fold.")] = None,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", help="Use only what the vault knew at this date.")] = None,
    write: Annotated[bool, typer.Option(
        "--write", help="Write wiki/folds/{fold_id}.md if absent and record its Fold node.")]
    = False,
    force: Annotated[bool, typer.Option("--force", help="With --write: replace an existing page.")]
    = False,
    vault: Annotated[Path | None, typer.Option(help="The vault folder (for --write).")] = None,
    check: Annotated[bool, typer.Option(
        "--check", help="Validate the fold page (FILE, or the one generated).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    out_file: Annotated[Path | None, typer.Option("--out", help="Write the output here.")]
    = None,
) -> None:
    """Extractive digest (fold) of the log entries of a range, as a fold page."""
    if file is not None and not check:
        raise BadUserInput("a FILE argument is only for --check")
    if force and not write:
        raise BadUserInput("--force only goes with --write")
    with graph_context() as ctx:
        if file is not None:
            if any(v is not None for v in (date_from, date_to, level, ending, as_of)) or of \
                    or write:
                raise BadUserInput("--check FILE takes no range, --as-of or --write")
            try:
                text = file.read_text(encoding="utf-8")
            except OSError as exc:
                raise BadUserInput(f"cannot read {file}: {exc.strerror}") from None
            result = resolver.check_markdown(ctx, text, str(file))
            _print_check(result, as_json, str(file))
            if not result.ok:
                raise typer.Exit(EXIT_CHECK_FAILED)
            return
        digest = _select(ctx, _day(date_from, "--from"), _day(date_to, "--to"), level,
                         _day(ending, "--ending"), of or [], _day(as_of, "--as-of"))
        markdown = render(digest)
        if check:
            result = check_fold(markdown, f"{digest.fold_id}.md", context_of(digest))
            _print_check(result, as_json, digest.fold_id)
            if not result.ok:
                raise typer.Exit(EXIT_CHECK_FAILED)
        if write:
            if vault is None:
                raise BadUserInput("--write needs --vault PATH")
            _write(ctx, digest, markdown, vault, force)
        if (not check and not write) or out_file is not None:
            payload = (json.dumps({**digest.model_dump(mode="json"), "markdown": markdown},
                                  ensure_ascii=False, indent=2) + "\n") if as_json else markdown
            _emit(payload, out_file)


def _write(ctx: GraphContext, digest: FoldDigest, markdown: str, vault: Path,
           force: bool) -> None:
    _, log_page, _ = q.log_facts(ctx)
    log_path = q.page_path(ctx, log_page)
    root = vault_root(vault)
    if log_path is None or not (root / log_path).is_file():
        raise BadUserInput(f"{root} does not hold the graph's log page ({log_path}); "
                           "pass the vault that was ingested")
    owner = q.fold_node(ctx, digest.fold_id)
    if owner is not None and owner.key != digest.fold_id:
        raise BadUserInput(f"the page {owner.path or owner.key} already declares fold_id "
                           f"{digest.fold_id}; not writing a second one")
    done = write_fold(vault, digest.fold_id, markdown, force)
    if not done.written:
        out.print(f"{done.relative} exists: nothing written (use --force to replace)",
                  highlight=False)
        return
    edges = q.record_fold(ctx, digest, done.relative)
    verb = "replaced" if done.replaced else "wrote"
    out.print(f"{verb} {done.relative}; recorded Fold {digest.fold_id} "
              f"({edges} FOLDS edges)", highlight=False)


def folds_command(
    level: Annotated[int | None, typer.Option(help="Only folds of this level.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List the Fold nodes of the graph."""
    with graph_context() as ctx:
        rows = resolver.folds(ctx, level)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False,
                              indent=2))
        return
    table = Table(title="folds" + (f" (level {level})" if level is not None else ""))
    for column in ("fold_id", "level", "entries", "range"):
        table.add_column(column)
    for r in rows:
        table.add_row(r.fold_id, str(r.level), str(r.entries),
                      f"{r.range_from} .. {r.range_to}")
    out.print(table)


def register(app: typer.Typer) -> None:
    """Add `fold` and `folds` to the main CLI."""
    app.command("fold")(fold_command)
    app.command("folds")(folds_command)
