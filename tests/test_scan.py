"""`loaders.scan`: the last scan plus the paths a watcher reports gives the files a walk would
find, in the walk's order, with the same headers and digests; what it cannot follow path by
path (folders moved in or out) makes it walk. A walk given the last scan says whether every
header is still the last one's, and then which files can hold a change."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from random import Random

from loaders.files import PreviousPage, VaultFile
from loaders.records import Problem
from loaders.scan import Scanned, VaultScan, scan_files

FOLDERS = ("", "a", "a/b", "c", "Z", "a/b/deep")


def _scan(root: Path, last: VaultScan | None = None,
          changed: list[str] | None = None) -> Scanned:
    problems: list[Problem] = []
    return scan_files(root, dict, problems, time.time_ns(), last, changed)


def _seen(files: list[VaultFile]) -> list[tuple[str, str, object]]:
    return [(f.rel, f.digest, (f.header.kind, f.header.title, f.header.aliases))
            for f in files]


def _page(path: Path, title: str, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\ntitle: {title}\n---\n{body}\n", encoding="utf-8")


def _random_change(rng: Random, root: Path, outside: Path, n: int) -> list[str]:
    """One edit of the kind a user makes; returns the paths a watcher would report."""
    pages = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
    op = rng.choice(["add", "add", "body", "title", "delete", "other", "move_in", "move_out"])
    if op in ("body", "title", "delete") and not pages:
        op = "add"
    if op == "add":
        rel = f"{rng.choice(FOLDERS)}/p{n}.md".lstrip("/")
        _page(root / rel, f"Page {n}", "text")
        return [rel]
    if op in ("body", "title"):
        rel = rng.choice(pages)
        text = (root / rel).read_text(encoding="utf-8")
        if op == "body":
            (root / rel).write_text(text + f"\nmore {n}\n", encoding="utf-8")
        else:
            (root / rel).write_text(text.replace("title: ", f"title: {n} ", 1),
                                    encoding="utf-8")
        return [rel]
    if op == "delete":
        rel = rng.choice(pages)
        (root / rel).unlink()
        return [rel]
    if op == "other":  # an image and a file in a hidden folder: nothing to read
        (root / "a" / f"fig{n}.png").parent.mkdir(parents=True, exist_ok=True)
        (root / "a" / f"fig{n}.png").write_bytes(b"\x89PNG")
        (root / ".obsidian").mkdir(exist_ok=True)
        (root / ".obsidian" / f"w{n}.md").write_text("x", encoding="utf-8")
        return [f"a/fig{n}.png", f".obsidian/w{n}.md"]
    folder = f"{rng.choice(FOLDERS)}/m{n}".lstrip("/")
    if op == "move_in":
        staged = outside / f"m{n}"
        _page(staged / "x.md", f"Moved {n}", "[[p1]]")
        _page(staged / "sub" / "y.md", f"Moved sub {n}", "y")
        (root / folder).parent.mkdir(parents=True, exist_ok=True)
        staged.rename(root / folder)
        return [folder]
    moved = sorted({p.parent for p in root.rglob("*.md") if p.parent.name.startswith("m")})
    if not moved:
        return []
    gone = rng.choice(moved)
    shutil.rmtree(gone)
    return [gone.relative_to(root).as_posix()]


def test_rescans_find_what_a_walk_finds(tmp_path: Path) -> None:
    root, outside = tmp_path / "vault", tmp_path / "outside"
    outside.mkdir()
    for i, folder in enumerate(FOLDERS):
        _page(root / folder / f"p{i}.md", f"Page {i}", f"[[p{i + 1}]]")
    rng = Random(11)
    last = _scan(root)
    kept = VaultScan(str(root), last.files, last.walk_problems)
    walks_avoided = 0
    for n in range(100, 400):
        changed = _random_change(rng, root, outside, n)
        scanned = _scan(root, kept, changed)
        walked = _scan(root)
        assert _seen(scanned.files) == _seen(walked.files), changed
        if not scanned.walked:
            walks_avoided += 1
            assert {f.rel for f in scanned.read} <= {f.rel for f in scanned.files}
        if scanned.same_headers:
            assert [f.header for f in scanned.files] == [f.header for f in kept.files]
        kept = VaultScan(str(root), scanned.files, scanned.walk_problems)
    assert walks_avoided > 150  # folders moved in or out are the only walks


def test_folders_gone_or_moved_in_make_it_walk(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    _page(root / "a" / "p.md", "P", "x")
    _page(root / "b" / "q.md", "Q", "y")
    for page in root.rglob("*.md"):  # older than RACY_NS: not read on every scan
        os.utime(page, (time.time() - 3600,) * 2)
    first = _scan(root)
    kept = VaultScan(str(root), first.files, first.walk_problems)
    assert kept.is_folder("a") and kept.is_folder("") and not kept.is_folder("a/p.md")
    shutil.rmtree(root / "a")
    scanned = _scan(root, kept, ["a"])
    assert scanned.walked
    assert [f.rel for f in scanned.files] == ["b/q.md"]
    # A path that is gone and was no folder of pages (an editor's temp file): no walk.
    scanned = _scan(root, kept, ["b/q.md.swp"])
    assert scanned.read == [] and scanned.same_headers


def test_a_walk_given_the_last_scan_names_the_files_that_can_have_changed(
        tmp_path: Path) -> None:
    root = tmp_path / "vault"
    for i, folder in enumerate(FOLDERS):
        _page(root / folder / f"p{i}.md", f"Page {i}", f"[[p{i + 1}]]")
    for page in root.rglob("*.md"):
        os.utime(page, (time.time() - 3600,) * 2)
    first = _scan(root)
    kept = VaultScan(str(root), first.files, first.walk_problems)
    known = {f.rel: PreviousPage(f.digest, path=f.rel, kind=f.header.kind.value,
                                 mtime_ns=f.mtime_ns, size=f.size, title=f.header.title,
                                 aliases=f.header.aliases) for f in first.files}

    def walk_with_last() -> Scanned:
        return scan_files(root, lambda: known, [], time.time_ns(), kept, None)

    untouched = walk_with_last()
    assert untouched.walked and untouched.same_headers and untouched.read == []
    edited = root / "a" / "p1.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "more\n", encoding="utf-8")
    body = walk_with_last()
    assert body.same_headers and [f.rel for f in body.read] == ["a/p1.md"]
    assert [f.header for f in body.files] == [f.header for f in kept.files]
    edited.write_text("---\ntitle: Renamed\n---\nx\n", encoding="utf-8")
    title = walk_with_last()
    assert not title.same_headers and title.read is title.files
    edited.write_text("---\ntitle: Page 1\n---\nx\n", encoding="utf-8")
    _page(root / "c" / "new.md", "New", "x")
    added = walk_with_last()
    assert not added.same_headers and len(added.files) == len(kept.files) + 1
    elsewhere = scan_files(root / "a", lambda: known, [], time.time_ns(), kept, None)
    assert not elsewhere.same_headers  # a scan of another folder is not the last one


def test_a_changed_symlink_is_not_read_through(tmp_path: Path) -> None:
    """A path a caller says changed (the `ingest` mutation's `changed`) that is a symlink to
    a file outside the vault makes the scan walk, and the walk leaves the link out."""
    root, outside = tmp_path / "vault", tmp_path / "outside"
    _page(root / "p.md", "P", "x")
    _page(outside / "secret.md", "Secret", "do not read")
    first = _scan(root)
    kept = VaultScan(str(root), first.files, first.walk_problems)
    (root / "evil.md").symlink_to(outside / "secret.md")
    problems: list[Problem] = []
    scanned = scan_files(root, dict, problems, time.time_ns(), kept, ["evil.md"])
    assert scanned.walked and [f.rel for f in scanned.files] == ["p.md"]
    assert any(p.path == "evil.md" and "outside the vault" in p.message for p in problems)
