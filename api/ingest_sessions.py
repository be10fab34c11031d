"""The `ingest` mutation's sessions: a server that ingests a folder again keeps what its last
ingest of it left (`graph.ingest.IngestSession`), so the next one neither reads every page's
hash from Neo4j nor derives names again when no header changed, and, told which files the
caller changed, reads only those (as `vaultkg watch` does with its watcher's paths)."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from graph.ingest import IngestSession
from loaders.errors import BadUserInput
from loaders.files import vault_root
from loaders.scan import VaultScan
from loaders.text import nfc

# Folders with a session kept. Each holds what the graph has of every page (about 0.2 GiB at
# 100k pages), so only the most recently ingested few.
MAX_SESSIONS = 2


class IngestSessions:
    """One session per folder, the last `size` folders; one ingest per folder at a time."""

    def __init__(self, size: int = MAX_SESSIONS) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, tuple[threading.Lock, IngestSession]] = OrderedDict()

    @contextmanager
    def session(self, folder: Path) -> Iterator[IngestSession]:
        """The folder's session, held for one ingest (another ingest of it waits)."""
        key = str(folder)
        with self._lock:
            entry = self._sessions.pop(key, None) or (threading.Lock(), IngestSession())
            self._sessions[key] = entry
            while len(self._sessions) > self.size:
                self._sessions.popitem(last=False)
        with entry[0]:
            yield entry[1]

    def __len__(self) -> int:
        return len(self._sessions)


def changed_paths(folder: Path, paths: Sequence[str]) -> list[str]:
    """The caller's changed files (absolute, or relative to `folder`) as the ingest takes
    them: relative to the folder it reads (the vault's `wiki/`, if present). Paths inside
    `folder` but outside that one hold no page and are dropped; paths outside `folder` are
    refused, by name."""
    root = vault_root(folder)
    out: list[str] = []
    for raw in paths:
        given = Path(raw).expanduser()
        full = Path(os.path.normpath(given if given.is_absolute() else folder / given))
        if not full.is_relative_to(folder):
            raise BadUserInput(f"changed path {raw!r} is outside the folder being ingested")
        if full.is_relative_to(root) and full != root:
            out.append(full.relative_to(root).as_posix())
    return out


def unknown_paths(folder: Path, told: Sequence[str], last: VaultScan | None) -> list[str]:
    """Changed paths (as `changed_paths` gives them) that name no file now and none the last
    ingest saw: most likely mistyped. Said back to the caller, who would otherwise not learn
    that nothing was read for them."""
    if last is None:
        return []
    root = vault_root(folder)
    seen = {f.rel for f in last.files}
    return [f"{rel}: named in `changed`, but there is no such file, nor was there at the last "
            "ingest; nothing read" for rel in told
            if nfc(rel) not in seen and not last.is_folder(nfc(rel)) and not (root / rel).exists()]
