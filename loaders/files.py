"""Find and read a vault's files: the walk, a file's stamp, bytes, hash and header (kind, title,
aliases), and reading again a file the header pass skipped. Pure: never opens a database.

File stamps: a file whose `(path, mtime_ns, size)` equals what the graph recorded is not read at
all; its header comes from `previous` (re-ingest cost is then a `stat` per file). The trade-off:
an edit that keeps both the size and the mtime (a tool that restores mtimes, a clock set back) is
not seen; `force` reads and re-parses every file. A stamp is recorded only when it can be
trusted: not for a file the header pass reported a problem for (its problems are reported on
every run, so it is read on every run), and not for a file modified within `RACY_NS` of the
read (a second same-size write in the same timestamp tick would be missed, as "racy git")."""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from stat import S_ISREG

from loaders.errors import VaultError
from loaders.frontmatter import Frontmatter, split_frontmatter
from loaders.pages import classify
from loaders.records import Page, PageKind, Problem
from loaders.resolver import PageHeader
from loaders.text import nfc

MAX_PAGE_BYTES = 8 * 1024 * 1024
# The log is append-only and grows with the vault (one entry per page: 19 MiB at 100k pages).
MAX_LOG_BYTES = 256 * 1024 * 1024
LOG_STEM = "log"
KINDS = frozenset(k.value for k in PageKind)
# A file modified this recently (ns) before the read gets no stamp: a write in the same tick
# (filesystem timestamp granularity is up to 2 s) would leave mtime and size unchanged.
RACY_NS = 2_000_000_000
# Part of every page's stored hash. Bump it when the same bytes yield other records (a new
# field such as `Claim.known`, a parser fix): a graph written before then has each page parsed
# again once, instead of keeping records this code would not produce.
RECORDS_VERSION = "r2"
SKIP_DIRS = frozenset({".obsidian", ".git", ".trash", "node_modules", ".raw", ".venv"})
LEDGER_NAME = "claim-ledger.json"


@dataclass(frozen=True)
class PreviousPage:
    """What the graph already holds of a page: enough to tell whether it changed, and (with
    its file stamp) its header, so an unchanged file need not be read."""

    content_hash: str
    names: tuple[str, ...] = ()
    kind: str = ""
    path: str = ""
    mtime_ns: int = 0  # 0: no trusted stamp, the file is read
    size: int = -1
    title: str = ""
    aliases: tuple[str, ...] = ()

    @classmethod
    def of(cls, page: Page) -> PreviousPage:
        """What the graph holds of `page` once it is written."""
        return cls(page.content_hash, page.names_folded, page.kind.value, path=page.path,
                   mtime_ns=page.mtime_ns, size=page.size, title=page.title,
                   aliases=page.aliases)


@dataclass
class VaultFile:
    rel: str
    text: str | None  # None: not read (its stamp matched); `hydrate` reads it when needed
    digest: str
    mtime_ns: int
    size: int
    front: Frontmatter | None
    header: PageHeader
    full: str | None = None  # the file's path (a string: pathlib costs ~30 µs per file)
    trusted: bool = True  # record the stamp (no header-pass problem, not modified just now)

    @property
    def content(self) -> tuple[str, Frontmatter]:
        """Text and frontmatter of a file that was read (see `hydrate`)."""
        assert self.text is not None and self.front is not None, f"{self.rel} not read"
        return self.text, self.front

    @property
    def stamp(self) -> int:
        """The mtime to record: 0 when the stamp is not to be trusted next run."""
        return self.mtime_ns if self.trusted else 0


def vault_root(path: Path) -> Path:
    """The folder to read: `wiki/` under the given path when there is one."""
    path = path.expanduser()
    if not path.exists():
        raise VaultError("no such vault folder", str(path))
    if not path.is_dir():
        raise VaultError("not a folder", str(path))
    wiki = path / "wiki"
    base = path.resolve()
    # A `wiki` symlink that leaves the vault is not followed (the walk then reports it).
    return wiki.resolve() if wiki.is_dir() and wiki.resolve().is_relative_to(base) else base


def walk(root: Path, problems: list[Problem]) -> Iterator[tuple[str, str]]:
    """(vault-relative posix path, file path) for every markdown or ledger file, confined to
    root. Top-down, sorted; a folder's files come before its subfolders (as `os.walk` gives
    them)."""
    yield from _walk_folder(root, str(root), "", problems)


def _walk_folder(root: Path, here: str, prefix: str,
                 problems: list[Problem]) -> Iterator[tuple[str, str]]:
    # `scandir` says which entries are symlinks without a `stat` per file.
    try:
        with os.scandir(here) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except OSError:
        return  # as os.walk: an unreadable folder is left out
    folders: list[os.DirEntry[str]] = []
    files: list[os.DirEntry[str]] = []
    for entry in entries:  # folders' problems first, then files' as they are read
        name = entry.name
        if _is_dir(entry):
            if name in SKIP_DIRS or name.startswith("."):
                continue
            if entry.is_symlink():
                problems.append(Problem(path=nfc(prefix + name), skipped=True,
                                        message="symlinked folder not followed"))
                continue
            folders.append(entry)
        elif is_page_file(name):
            files.append(entry)
    here_slash = here + os.sep
    for entry in files:
        full = here_slash + entry.name
        if entry.is_symlink() and not Path(full).resolve().is_relative_to(root):
            problems.append(Problem(path=nfc(prefix + entry.name), skipped=True,
                                    message="symlink points outside the vault; skipped"))
            continue
        yield nfc(prefix + entry.name), full
    for entry in folders:
        yield from _walk_folder(root, os.path.join(here, entry.name), prefix + entry.name + "/",
                                problems)


def is_page_file(name: str) -> bool:
    """Whether a file of this name is read: markdown pages and the claim ledger."""
    return name.endswith(".md") or name == LEDGER_NAME


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _decode(data: bytes, rel: str, problems: list[Problem]) -> str | None:
    if b"\x00" in data[:8192]:
        problems.append(Problem(path=rel, skipped=True, message="binary file, not markdown"))
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        problems.append(Problem(path=rel, line=line,
                                message="invalid UTF-8; bad bytes replaced with U+FFFD"))
        text = data.decode("utf-8-sig", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _size_limit(rel: str) -> int:
    """The log has its own, much larger limit: it is append-only by design."""
    name = rel.rpartition("/")[2].lower()
    return MAX_LOG_BYTES if name == LOG_STEM + ".md" else MAX_PAGE_BYTES


def read_file(root: Path, rel: str, full: str, problems: list[Problem],
              known: PreviousPage | None = None, now_ns: int | None = None,
              last: VaultFile | None = None) -> VaultFile | None:
    """A file's header (and text). With `known` and a matching stamp, the file is not read:
    its header is the graph's, and `last` (the file as the last scan left it, when that agrees
    with `known`) is returned as it is."""
    try:
        stat = os.stat(full)
    except OSError as exc:
        problems.append(Problem(path=rel, skipped=True, message=f"cannot read: {exc.strerror}"))
        return None
    if not S_ISREG(stat.st_mode):
        # A FIFO or device named `.md` would block or never end.
        problems.append(Problem(path=rel, skipped=True,
                                message="not a regular file (pipe, socket or device); skipped"))
        return None
    if stat.st_size > MAX_PAGE_BYTES and stat.st_size > (limit := _size_limit(rel)):
        problems.append(Problem(path=rel, skipped=True,
                                message=f"page is {stat.st_size // (1024 * 1024)} MiB, over the "
                                        f"{limit // (1024 * 1024)} MiB limit; skipped"))
        return None
    if known is not None and known.mtime_ns and \
            known.content_hash.startswith(f"{RECORDS_VERSION}:") and \
            (known.mtime_ns, known.size) == (stat.st_mtime_ns, stat.st_size) and \
            known.kind in KINDS:
        if last is not None and last.text is None and last.full == full and \
                (last.digest, last.mtime_ns, last.size) == (
                    known.content_hash, known.mtime_ns, known.size):
            return last
        return VaultFile(rel, None, known.content_hash, stat.st_mtime_ns, stat.st_size, None,
                         _known_header(rel, known), full)
    racy = now_ns is None or stat.st_mtime_ns > now_ns - RACY_NS
    before = len(problems)
    f = parse_header(rel, full, stat.st_mtime_ns, stat.st_size, problems)
    if f is not None:
        f.trusted = not racy and len(problems) == before
    return f


def _known_header(rel: str, known: PreviousPage) -> PageHeader:
    stem = posixpath.splitext(rel.rpartition("/")[2])[0]
    return PageHeader(key=stem, path=rel, kind=PageKind(known.kind), title=known.title,
                      aliases=known.aliases, stem=stem)


def parse_header(rel: str, full: str, mtime_ns: int, size: int,
                  problems: list[Problem]) -> VaultFile | None:
    """Read, hash and split the frontmatter of one file."""
    try:
        data = read_bytes(full)
    except OSError as exc:
        problems.append(Problem(path=rel, skipped=True, message=f"cannot read: {exc.strerror}"))
        return None
    text = _decode(data, rel, problems)
    if text is None:
        return None
    if not text.strip():
        problems.append(Problem(path=rel, message="empty file; loaded as an empty page"))
    digest = f"{RECORDS_VERSION}:{hashlib.blake2b(data, digest_size=16).hexdigest()}"
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    if rel.endswith(".json"):
        front = Frontmatter(lines=text.split("\n"))
        kind = PageKind.META
    else:
        try:
            front = split_frontmatter(text, rel)
        except VaultError as exc:
            where = f"{rel}:{exc.line}: " if exc.line else f"{rel}: "
            problems.append(Problem(path=rel, line=exc.line,
                                    message=str(exc).removeprefix(where) +
                                    "; page loaded without its properties"))
            front = Frontmatter(lines=text.split("\n"), body_start=1)
        problems.extend(Problem(path=rel, line=line, message=message)
                        for line, message in front.warnings)
        kind = classify(front, rel, stem)
    aliases = tuple(nfc(a) for a, _ in front.items("aliases") if a.strip())
    title = nfc(front.text("title") or stem)
    header = PageHeader(key=stem, path=rel, kind=kind, title=title, aliases=aliases, stem=stem)
    return VaultFile(rel, text, digest, mtime_ns, size, front, header, full)


def text_of(f: VaultFile) -> str | None:
    """A file's text, read without keeping it when the header pass skipped it."""
    if f.text is not None:
        return f.text
    assert f.full is not None
    try:
        data = read_bytes(f.full)
    except OSError:
        return None
    return _decode(data, f.rel, [])


class StaleStamp(Exception):
    """A skipped file changed under an unchanged stamp, or cannot be read any more."""


def hydrate(f: VaultFile, problems: list[Problem]) -> None:
    """Read a file the header pass skipped, in place (its key stays what `_assign_keys` gave
    it). Raises `StaleStamp` when the file cannot be read or its header is not the graph's."""
    if f.text is not None:
        return
    assert f.full is not None
    before = len(problems)
    read = parse_header(f.rel, f.full, f.mtime_ns, f.size, problems)
    if read is None or replace(read.header, key=f.header.key) != f.header:
        raise StaleStamp(f.rel)
    f.text, f.front, f.digest = read.text, read.front, read.digest
    f.trusted = len(problems) == before
