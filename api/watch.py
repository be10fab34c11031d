"""Keep the graph in step with a vault while it is being edited: watch its files (watchfiles),
wait until saves settle, then run the ordinary incremental ingest once per batch. The ingests
share a session (`graph.ingest.IngestSession`) and are told the paths the watcher saw change,
so a batch reads those files only; every `FULL_SCAN_S` one batch walks the whole vault again,
in case the watcher missed an event. Nothing here knows about the terminal; the CLI
(api/watch_cli.py) decides how a batch is shown."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal, Protocol

import neo4j
import watchfiles
from pydantic import BaseModel

from graph.ingest import IngestReport, IngestSession, ingest
from loaders.errors import VaultkgError
from loaders.files import SKIP_DIRS, is_page_file, vault_root
from loaders.gc_pause import keep_long_lived
from loaders.text import nfc

ChangeKind = Literal["added", "modified", "deleted"]
DEFAULT_QUIET_MS = 400
# Edits that never pause (a sync tool rewriting the vault) still get ingested this often.
MAX_BATCH_MS = 5000
# A batch walks the whole vault (about 1 s at 100k pages) when the last walk is this old.
FULL_SCAN_S = 300.0


class StopFlag(Protocol):
    """Anything with `is_set()`, e.g. a `threading.Event`."""

    def is_set(self) -> bool: ...


class FileChange(BaseModel):
    path: str  # relative to the folder the ingest reads (the vault's wiki/ if present)
    change: ChangeKind


class WatchBatch(BaseModel):
    """One settled batch of saves and what the ingest it triggered did to the graph."""

    changes: list[FileChange]
    report: IngestReport


class VaultFilter(watchfiles.BaseFilter):
    """Paths the ingest may read, outside hidden and skipped folders (the same rules as
    `loaders.files.walk`): markdown pages, the claim ledger, and what may be a folder (one
    moved in or out brings or takes pages no event names); not other files (images). A path
    that is gone may have been either: `worth_ingesting` decides with what the last scan saw."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __call__(self, change: watchfiles.Change, path: str) -> bool:
        rel = relative(self.root, path)
        if rel is None:
            return False
        parts = rel.split("/")
        if any(p in SKIP_DIRS or p.startswith(".") for p in parts[:-1]):
            return False
        name = parts[-1]
        if name.startswith("."):
            return False
        return is_page_file(name) or not os.path.isfile(path)


def worth_ingesting(root: Path, changes: list[FileChange],
                    session: IngestSession) -> list[FileChange]:
    """Changes to pages, and to folders: those that are folders now, or were folders of
    pages in the last scan (without one, any path that is gone)."""
    scan = session.scan
    return [c for c in changes
            if is_page_file(c.path.rpartition("/")[2]) or (root / c.path).is_dir()
            or (c.change == "deleted" and (scan is None or scan.is_folder(nfc(c.path))))]


def relative(root: Path, path: str) -> str | None:
    """`path` relative to `root` in posix form, or None when it is outside."""
    try:
        return Path(path).relative_to(root).as_posix()
    except ValueError:
        return None


_KINDS: dict[watchfiles.Change, ChangeKind] = {
    watchfiles.Change.added: "added",
    watchfiles.Change.modified: "modified",
    watchfiles.Change.deleted: "deleted",
}


def file_changes(root: Path, raw: set[tuple[watchfiles.Change, str]]) -> list[FileChange]:
    """One entry per file (its last event wins; add-then-delete of a temp file is a delete),
    sorted by path."""
    last: dict[str, ChangeKind] = {}
    for change, path in sorted(raw, key=lambda c: (c[1], c[0].value)):
        rel = relative(root, path)
        if rel is not None:
            last[rel] = _KINDS[change]
    return [FileChange(path=p, change=k) for p, k in sorted(last.items())]


def watch_vault(driver: neo4j.Driver, database: str, vault: Path,
                on_batch: Callable[[WatchBatch], None], *,
                on_ready: Callable[[IngestReport], None] | None = None,
                on_error: Callable[[VaultkgError], None] | None = None,
                stop: StopFlag | None = None, quiet_ms: int = DEFAULT_QUIET_MS) -> None:
    """Block until `stop` is set or Ctrl-C (KeyboardInterrupt propagates). Once the watcher is
    running, ingest the vault (so saves made before then are not lost) and call `on_ready`;
    then re-ingest after each settled batch of saves. A failed ingest (Neo4j down, an
    unreadable vault) goes to `on_error` and the watch goes on: the next save retries (with a
    walk of the whole vault); only a failure of the first ingest propagates."""
    root = vault_root(vault)
    watcher = watchfiles.watch(root, watch_filter=VaultFilter(root), step=quiet_ms,
                               debounce=max(MAX_BATCH_MS, quiet_ms), stop_event=stop,
                               rust_timeout=500, yield_on_timeout=True)
    session = IngestSession()
    walked = 0.0
    started = False
    for raw in watcher:  # the first yield comes once the watcher runs (timeout or changes)
        changes = worth_ingesting(root, file_changes(root, raw), session)
        if started and not changes:
            continue
        walk = time.monotonic() - walked > FULL_SCAN_S
        try:
            report = ingest(driver, database, vault, session=session,
                            changed=None if walk else [c.path for c in changes])
            keep_long_lived()
            if walk:
                walked = time.monotonic()
        except VaultkgError as exc:
            if not started or on_error is None:
                raise
            on_error(exc)
            continue
        if not started:
            started = True
            if on_ready is not None:
                on_ready(report)
        if changes:
            on_batch(WatchBatch(changes=changes, report=report))


def summary(batch: WatchBatch) -> str:
    """One line: which files changed and what the ingest did to the graph."""
    r = batch.report
    files = ", ".join(f"{c.path} ({c.change})" for c in batch.changes[:3])
    if len(batch.changes) > 3:
        files += f" and {len(batch.changes) - 3} more"
    if not r.changed:
        graph = "graph unchanged"
    else:
        graph = (f"nodes +{r.nodes_created} -{r.nodes_deleted}, "
                 f"relationships +{r.relationships_created} -{r.relationships_deleted}")
        if r.log_lines_moved:
            graph += f", {r.log_lines_moved} log lines moved"
    return (f"{time.strftime('%H:%M:%S')} {files}: {r.parsed} pages parsed, {r.deleted} deleted; "
            f"{graph} ({r.elapsed_s:.2f} s)")
