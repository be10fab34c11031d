"""Progress display for long CLI runs (ingest, export): a rich bar on stderr when it is a
terminal, nothing otherwise, so scripts and pipes see only the command's real output."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

ProgressFn = Callable[[int, int], None]


@contextmanager
def ingest_progress(console: Console,
                    enabled: bool = True) -> Iterator[ProgressFn | None]:
    """Yields the `progress=` callback for `graph.ingest.ingest` (pages parsed of total), or
    None when the console is not a terminal or `enabled` is false."""
    if not (enabled and console.is_terminal):
        yield None
        return
    with Progress("[progress.description]{task.description}", BarColumn(),
                  MofNCompleteColumn(), TimeElapsedColumn(), console=console,
                  transient=True) as bar:
        task = bar.add_task("parsing pages", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def stream_progress(chunks: Iterable[str], count: Callable[[], int], console: Console,
                    what: str = "triples", label: str = "exporting",
                    enabled: bool = True) -> Iterator[str]:
    """Pass `chunks` through unchanged, showing `count()` (e.g. triples written so far) while
    it runs when the console is a terminal (and `enabled`: off while the data itself goes to
    the same terminal)."""
    if not (enabled and console.is_terminal):
        yield from chunks
        return
    with Progress(SpinnerColumn(), "[progress.description]{task.description}",
                  TextColumn("{task.completed:,} " + what), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task(label, total=None)
        for chunk in chunks:
            yield chunk
            bar.update(task, completed=count())
