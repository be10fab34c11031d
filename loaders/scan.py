"""Which files a load reads: every file a walk finds, or, in a long-lived process told which
paths changed (`vaultkg watch`, from its file watcher), the last load's files with only those
paths (and the files read on every run) read again.

The second way spares the walk and a `stat` per file (about 1 s at 100k pages). A walk that
finds every header as the last scan left it says so too, so that the load need not derive
names again. Either holds only when the last scan is the graph's: the caller keeps it from its
own last successful ingest and drops it when anything else may have written (see
`graph.ingest.IngestSession`). Changes it cannot follow path by path (a folder added, moved or
deleted, a symlink on the way, more than `MAX_CHANGED` paths) make it walk."""

from __future__ import annotations

import os
from bisect import insort
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from stat import S_ISDIR, S_ISLNK

from loaders.files import (
    SKIP_DIRS,
    PreviousPage,
    VaultFile,
    is_page_file,
    read_file,
    walk,
)
from loaders.mention_filter import NameCandidates
from loaders.records import Problem
from loaders.resolver import NameIndex
from loaders.text import nfc

# Past this many changed paths one walk is cheaper than checking them one by one.
MAX_CHANGED = 2000
# What `_target` makes of a changed path besides a file to read (not paths: they are empty or
# hold a NUL).
GONE, SKIP, WALK = "", "\0skip", "\0walk"


@dataclass(frozen=True)
class NameState:
    """What the header pass derived from all the headers: kept with the scan, so a load whose
    headers are all the last load's derives none of it again."""

    problems: tuple[Problem, ...]  # pages sharing a file name or title
    index: NameIndex
    candidates: NameCandidates
    log_rel: str | None  # the vault's log page


@dataclass
class VaultScan:
    """The files one load saw, in walk order (texts dropped), and what it derived from their
    headers; the next load of the same vault starts from it."""

    root: str
    files: list[VaultFile]
    walk_problems: list[Problem] = field(default_factory=list)  # folders, symlinks left out
    names: NameState | None = None
    _folders: set[str] | None = field(default=None, repr=False)

    def is_folder(self, rel: str) -> bool:
        """Whether the scan saw pages under the folder `rel` (a deleted folder's name)."""
        if self._folders is None:
            self._folders = {f.rel.rpartition("/")[0] for f in self.files}
            for folder in list(self._folders):
                while folder:
                    folder = folder.rpartition("/")[0]
                    self._folders.add(folder)
        return rel in self._folders

    def release_texts(self) -> None:
        """Drop the texts a load read: a kept file's header is the graph's (see
        `files.hydrate`), and 100k texts are not kept between loads."""
        for f in self.files:
            f.text = f.front = None


@dataclass
class Scanned:
    """The files a load works on, and how much of the last scan still holds."""

    files: list[VaultFile]
    walk_problems: list[Problem]
    read: list[VaultFile]  # with `same_headers`, the only files that can have changed
    same_headers: bool  # no file added or removed, every header the last scan's
    walked: bool = True  # False: the last scan and the changed paths sufficed


def scan_files(root: Path, known: Callable[[], Mapping[str, PreviousPage]],
               problems: list[Problem], now_ns: int, last: VaultScan | None = None,
               changed: Collection[str] | None = None) -> Scanned:
    """The vault's files, from `last` and the `changed` paths (posix, relative to `root`)
    when both are given and the changes allow it; otherwise from a walk, where a file whose
    stamp `known` (the graph's pages by path) has is not read. Every problem goes to
    `problems`; the walk's own are also returned apart (they are kept with the scan)."""
    if last is not None and last.root != str(root):
        last = None
    if last is not None and changed is not None:
        scanned = _rescan(root, last, changed, problems, now_ns)
        if scanned is not None:
            return scanned
    by_path = known()
    before = {f.rel: f for f in last.files} if last is not None else {}
    found: list[Problem] = []
    files: list[VaultFile] = []
    reported = 0
    for rel, full in walk(root, found):
        problems.extend(found[reported:])  # where the walk found them, among the files'
        reported = len(found)
        f = read_file(root, rel, full, problems, by_path.get(rel), now_ns, before.get(rel))
        if f is not None:
            files.append(f)
    problems.extend(found[reported:])
    if last is not None and _same_headers(files, last.files):
        # Only a file read (its stamp moved) can hold a change.
        return Scanned(files, found, [f for f in files if f.text is not None], True)
    return Scanned(files, found, files, same_headers=False)


def _same_headers(files: list[VaultFile], last: list[VaultFile]) -> bool:
    """Whether `files` are `last`'s, in order, each with its header; if so they take the
    last headers, keys included (keys are given by the names pass, which is then skipped)."""
    if len(files) != len(last) or any(
            f is not g and (f.rel != g.rel or (
                f.header != g.header and replace(f.header, key=g.header.key) != g.header))
            for f, g in zip(files, last, strict=True)):
        return False
    for f, g in zip(files, last, strict=True):
        f.header = g.header
    return True


def _rescan(root: Path, last: VaultScan, changed: Collection[str], problems: list[Problem],
            now_ns: int) -> Scanned | None:
    """`last` with the changed paths read again (whatever their stamps say: they changed, or
    are read on every run); None when a walk is needed."""
    if len(changed) > MAX_CHANGED:
        return None
    base = str(root)
    targets: dict[str, str | None] = {}  # rel -> full path; None: no such page now
    for raw in changed:
        target = _target(base, raw, last)
        if target == WALK:
            return None
        if target != SKIP:
            targets[nfc(raw)] = target or None
    problems.extend(last.walk_problems)
    files: list[VaultFile] = []
    read: list[VaultFile] = []
    same = True
    for f in last.files:
        if f.rel in targets or not f.trusted:  # untrusted files are read on every run
            full = targets.pop(f.rel, f.full)
            again = None if full is None else read_file(root, f.rel, full, problems,
                                                        None, now_ns)
            if again is None:
                same = False  # gone, or unreadable now
                continue
            if replace(again.header, key=f.header.key) == f.header:
                again.header = f.header
            else:
                same = False
            f = again
            read.append(f)
        files.append(f)
    for rel, full in targets.items():  # paths the last scan did not have
        if full is None:
            continue
        added = read_file(root, rel, full, problems, None, now_ns)
        if added is not None:
            insort(files, added, key=lambda g: _walk_order(base, g))
            read.append(added)
            same = False
    return Scanned(files, list(last.walk_problems), read, same_headers=same, walked=False)


def _target(base: str, raw: str, last: VaultScan) -> str:
    """A changed path as the walk would see it: its file's full path, `GONE` (a page that is
    no longer there), `SKIP` (the walk would not read it: hidden or skipped folder, not a
    page) or `WALK` (only a walk can tell: a folder, a symlink, a path outside)."""
    parts = raw.split("/")
    if not raw or any(p in ("", ".", "..") for p in parts):
        return WALK
    if any(p in SKIP_DIRS or p.startswith(".") for p in parts[:-1]):
        return SKIP
    full = os.path.join(base, *parts)
    for depth in range(1, len(parts)):
        if os.path.islink(os.path.join(base, *parts[:depth])):
            return WALK
    try:
        mode = os.lstat(full).st_mode
    except FileNotFoundError:
        if is_page_file(parts[-1]):
            return GONE
        # A folder that is gone took pages with it that no event names.
        return WALK if last.is_folder(nfc(raw)) else SKIP
    except OSError:
        return WALK
    if S_ISDIR(mode) or S_ISLNK(mode):
        return WALK
    return full if is_page_file(parts[-1]) else SKIP


def _walk_order(base: str, f: VaultFile) -> tuple[tuple[int, str], ...]:
    """Where `walk` yields a file: by name within a folder, a folder's files before its
    subfolders."""
    assert f.full is not None
    parts = f.full[len(base) + 1:].split(os.sep)
    return (*((1, p) for p in parts[:-1]), (0, parts[-1]))
