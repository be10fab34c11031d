"""A vault of broken things (tests/bad_vault.py): every broken file gets a warning naming it (and
the line where there is one), every other page still loads, nothing outside the vault is read,
nothing is written, and `vaultkg ingest` exits 3 when something was skipped, 0 otherwise."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from graph.ingest import ingest
from loaders.errors import VaultError
from loaders.files import vault_root
from loaders.frontmatter import split_frontmatter
from loaders.records import Page, PageFacts, VaultSnapshot
from loaders.vault import load_vault
from tests import db as test_db
from tests.bad_vault import MANY_LINKS, NFC_NAMES, SECRET, BadVault, build_bad_vault

VAULTKG = Path(sys.executable).with_name("vaultkg")

# ---- an audit hook that records what the loader opens, lists and changes --------------------
# Audit hooks cannot be removed, so one hook is installed once and records only while `_AUDIT`
# holds a list.
_AUDIT: list[list[tuple[str, tuple[Any, ...]]]] = []
_CHANGES = ("os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.symlink", "os.link",
            "os.truncate", "os.chmod", "os.chown", "os.utime", "os.replace", "shutil.")


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if _AUDIT and (event in ("open", "os.scandir", "os.listdir") or event.startswith(_CHANGES)):
        _AUDIT[-1].append((event, args))


sys.addaudithook(_hook)


def _audited(fn: Callable[[], Any]) -> tuple[Any, list[tuple[str, tuple[Any, ...]]]]:
    events: list[tuple[str, tuple[Any, ...]]] = []
    _AUDIT.append(events)
    try:
        return fn(), events
    finally:
        _AUDIT.pop()


def _tree(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every entry under root (symlinks not followed): size, mtime and link target."""
    out: dict[str, tuple[int, int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = Path(dirpath, name)
            st = full.lstat()
            target = os.readlink(full) if full.is_symlink() else ""
            out[str(full.relative_to(root))] = (st.st_size, st.st_mtime_ns, target)
    return out


# ---- the loader on the bad vault ------------------------------------------------------------

@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> BadVault:
    return build_bad_vault(tmp_path_factory.mktemp("bad"))


@pytest.fixture(scope="module")
def loaded(bad: BadVault) -> tuple[VaultSnapshot, float]:
    started = time.perf_counter()
    snapshot = load_vault(bad.vault)
    return snapshot, time.perf_counter() - started


def _pages(snapshot: VaultSnapshot) -> dict[str, PageFacts]:
    return {f.page.key: f for f in snapshot.facts}


def _page(snapshot: VaultSnapshot, key: str) -> Page:
    return _pages(snapshot)[key].page


@pytest.mark.timeout(120)
def test_every_readable_page_loads_and_nothing_else(
        loaded: tuple[VaultSnapshot, float], bad: BadVault) -> None:
    snapshot, elapsed = loaded
    print(f"bad vault loaded in {elapsed:.2f} s")
    assert {f.page.key: f.page.path for f in snapshot.facts} == bad.loaded
    assert snapshot.root == str(bad.wiki.resolve())


def test_every_skip_names_the_file_line_and_reason(
        loaded: tuple[VaultSnapshot, float], bad: BadVault) -> None:
    skipped = {(f"{p.path}:{p.line}" if p.line else p.path): p for p in loaded[0].problems
               if p.skipped}
    assert set(skipped) == set(bad.skipped)
    for where, words in bad.skipped.items():
        text = str(skipped[where])
        assert text.startswith(f"{where}: ") and words in text, text


def test_every_warning_names_the_file_and_line(
        loaded: tuple[VaultSnapshot, float], bad: BadVault) -> None:
    warnings = {p.path: p for p in loaded[0].problems if not p.skipped}
    expected = dict(bad.warnings)
    expected["alias-of-good.md"] = (None, "title 'Good Page' is also the title of good.md")
    assert set(warnings) == set(expected)
    for path, (line, words) in expected.items():
        problem = warnings[path]
        assert problem.line == line and words in problem.message, str(problem)
        where = f"{path}:{line}" if line else path
        assert str(problem).startswith(f"{where}: ")


def test_broken_frontmatter_keeps_the_body(loaded: tuple[VaultSnapshot, float]) -> None:
    pages = _pages(loaded[0])
    for key in ("Malformed YAML", "billion-laughs", "unterminated"):
        assert pages[key].page.title == key  # properties dropped, stem is the title
        assert [lk.target for lk in pages[key].links] == ["good"]
    assert pages["Malformed YAML"].page.aliases == ()
    assert "Never Read" not in {n for f in pages.values() for n in f.page.aliases}


def test_bad_values_are_dropped_and_the_other_properties_kept(
        loaded: tuple[VaultSnapshot, float]) -> None:
    pages = _pages(loaded[0])
    page = pages["bad-values"].page
    assert (page.title, page.created, page.year, page.tags) == ("Bad Values", None, None,
                                                                ("3", "ok"))
    assert [lk.target for lk in pages["bad-values"].links] == ["good"]
    assert pages["superscript-year"].page.year is None


def test_unbuildable_yaml_values_become_warnings_not_crashes() -> None:
    front = split_frontmatter("---\ntitle: T\nwhen: 2026-07-01 25:61:00\nn: !!int abc\n"
                              "ok: 2026-07-01\n---\n", "v.md")
    assert front.data == {"title": "T", "when": "2026-07-01 25:61:00", "n": "abc",
                          "ok": dt.date(2026, 7, 1)}
    assert [line for line, _ in front.warnings] == [3, 4]
    deep = "---\nx: &a " + "[" * 5000 + "]" * 5000 + "\n---\n"
    with pytest.raises(VaultError, match="nested too deeply"):
        split_frontmatter(deep, "deep.md")


def test_billion_laughs_is_refused_quickly_with_its_line() -> None:
    levels = ["a: &a [" + ",".join(['"lol"'] * 9) + "]"]
    for i in range(1, 30):  # 9**30 strings if expanded
        levels.append(f"l{i}: &l{i} [" + ",".join([f"*{'a' if i == 1 else f'l{i - 1}'}"] * 9) + "]")
    text = "---\n" + "\n".join(levels) + "\n---\nbody\n"
    started = time.perf_counter()
    with pytest.raises(VaultError) as caught:
        split_frontmatter(text, "laughs.md")
    assert time.perf_counter() - started < 1.0
    assert caught.value.line == 3 and "aliases are not allowed" in str(caught.value)
    assert str(caught.value).startswith("laughs.md:3: ")


def test_ampersand_and_star_in_quoted_values_are_not_aliases() -> None:
    front = split_frontmatter('---\ntitle: "R&D *draft*"\ntags: ["a&b", "*"]\n---\n', "x.md")
    assert front.text("title") == "R&D *draft*" and front.data["tags"] == ["a&b", "*"]


def test_oversized_frontmatter_is_refused() -> None:
    text = "---\n" + "\n".join(f"k{i}: {'x' * 100}" for i in range(3000)) + "\n---\nbody\n"
    with pytest.raises(VaultError, match="larger than 256 KiB"):
        split_frontmatter(text, "big.md")


def test_crlf_bom_and_cr_only_are_normalized(loaded: tuple[VaultSnapshot, float]) -> None:
    pages = _pages(loaded[0])
    crlf = pages["crlf-bom"]
    assert crlf.page.title == "CRLF Page" and crlf.page.aliases == ("Windows Line Ends",)
    assert "\r" not in crlf.page.body and "\ufeff" not in crlf.page.body
    assert [(lk.target, lk.line) for lk in crlf.links] == [("good", 7)]
    old_mac = pages["cr-only"]
    assert old_mac.page.title == "Old Mac" and "\r" not in old_mac.page.body
    assert [(lk.target, lk.line) for lk in old_mac.links] == [("good", 5)]


def test_invalid_utf8_is_replaced_and_the_rest_of_the_line_kept(
        loaded: tuple[VaultSnapshot, float]) -> None:
    facts = _pages(loaded[0])["invalid-utf8"]
    assert facts.page.title == "Bad Bytes"
    assert "line five \ufffd" in facts.page.body
    assert [(lk.target, lk.line) for lk in facts.links] == [("good", 5)]


def test_nfd_file_names_answer_to_nfc_links(loaded: tuple[VaultSnapshot, float]) -> None:
    pages = _pages(loaded[0])
    for name in NFC_NAMES:
        assert pages[name].page.path == f"{name}.md"
    assert [lk.target for lk in pages["nfc-links"].links] == list(NFC_NAMES)


def test_duplicate_stems_get_distinct_keys_and_bare_links_the_shortest(
        loaded: tuple[VaultSnapshot, float]) -> None:
    pages = _pages(loaded[0])
    assert {k: pages[k].page.path for k in ("Same", "notes/Same", "archive/Same")} == {
        "Same": "Same.md", "notes/Same": "notes/Same.md", "archive/Same": "archive/Same.md"}
    assert {pages[k].page.title for k in ("Same", "notes/Same", "archive/Same")} == {
        "Duplicate Title"}
    assert "Same" in [lk.target for lk in pages["good"].links]
    assert [t.page for e in pages["log"].log_entries for t in e.touches] == [
        "good", "Same"]  # the bad-date entry and its bullets are left out


def test_bad_log_dates_skip_only_their_entry(loaded: tuple[VaultSnapshot, float]) -> None:
    entries = _pages(loaded[0])["log"].log_entries
    assert [(e.key, e.line) for e in entries] == [("log/2026-07-01/01", 7),
                                                  ("log/2026-07-03/01", 13)]


def test_empty_file_is_an_empty_page(loaded: tuple[VaultSnapshot, float]) -> None:
    facts = _pages(loaded[0])["empty"]
    assert facts.page.body == "" and facts.page.size == 0 and facts.links == ()


def test_symlink_inside_the_vault_is_read(loaded: tuple[VaultSnapshot, float]) -> None:
    pages = _pages(loaded[0])
    assert pages["alias-of-good"].page.body == pages["good"].page.body
    assert pages["alias-of-good"].page.path == "alias-of-good.md"


def test_page_with_10000_links_loads(loaded: tuple[VaultSnapshot, float]) -> None:
    links = _pages(loaded[0])["many-links"].links
    assert len(links) == MANY_LINKS
    assert sum(lk.target == "good" for lk in links) == MANY_LINKS // 2
    assert sum(lk.target is None for lk in links) == MANY_LINKS // 2


def test_links_that_leave_the_vault_dangle(loaded: tuple[VaultSnapshot, float]) -> None:
    links = {lk.raw: lk for lk in _pages(loaded[0])["good"].links}
    for raw in ("[[../../etc/passwd]]", "[[/etc/passwd]]", "[secrets](../../../etc/shadow.md)",
                "[[/etc/hosts.md|hosts]]"):
        assert links[raw].target is None, raw


@pytest.mark.timeout(120)
def test_loader_reads_only_inside_the_vault_and_writes_nothing(bad: BadVault) -> None:
    load_vault(bad.vault)  # warm: lazy imports open files of their own
    before = _tree(bad.vault.parent)
    snapshot, events = _audited(lambda: load_vault(bad.vault))
    assert _tree(bad.vault.parent) == before
    root = bad.wiki.resolve()
    touched = [(event, Path(os.fsdecode(args[0])).resolve()) for event, args in events
               if isinstance(args[0], str | bytes | os.PathLike)]
    assert touched, "the audit hook saw nothing: the test would prove nothing"
    assert {e for e, _ in touched} <= {"open", "os.scandir", "os.listdir"}
    outside = [(e, p) for e, p in touched if not p.is_relative_to(root)]
    assert outside == []
    opened = [args for event, args in events if event == "open"]
    assert all(str(args[1]) in ("r", "rb") for args in opened), opened
    assert SECRET not in "".join(f.page.body for f in snapshot.facts)


def test_a_wiki_folder_that_links_outside_is_not_followed(bad: BadVault, tmp_path: Path) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "wiki").symlink_to(bad.outside / "dir", target_is_directory=True)
    (vault / "home.md").write_text("# home\n", encoding="utf-8")
    assert vault_root(vault) == vault.resolve()
    snapshot = load_vault(vault)
    assert [f.page.key for f in snapshot.facts] == ["home"]
    assert [str(p) for p in snapshot.problems] == ["wiki: symlinked folder not followed"]


def test_a_wiki_folder_linked_inside_the_vault_is_used(tmp_path: Path) -> None:
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "page.md").write_text("# page\n", encoding="utf-8")
    (tmp_path / "wiki").symlink_to("content", target_is_directory=True)
    assert vault_root(tmp_path) == (tmp_path / "content").resolve()


# ---- the whole run against Neo4j -----------------------------------------------------------

def _all_text(driver: neo4j.Driver, database: str) -> str:
    records, _, _ = driver.execute_query(
        "MATCH (n) RETURN properties(n) AS p UNION ALL MATCH ()-[r]->() RETURN properties(r) AS p",
        database_=database)
    return json.dumps([r["p"] for r in records], default=str, ensure_ascii=False)


@pytest.mark.integration
@pytest.mark.timeout(180)
def test_ingest_of_the_bad_vault(clean_db: neo4j.Driver, neo4j_database: str,
                                 bad: BadVault) -> None:
    before = _tree(bad.vault.parent)
    started = time.perf_counter()
    report = ingest(clean_db, neo4j_database, bad.vault)
    print(f"bad vault ingested in {time.perf_counter() - started:.2f} s "
          f"({report.links} links)")
    assert _tree(bad.vault.parent) == before
    assert report.pages == len(bad.loaded)
    assert sorted(s.split(": ", 1)[0] for s in report.skipped) == sorted(bad.skipped)
    assert all(": " in s for s in report.skipped + report.problems)
    keys, _, _ = clean_db.execute_query(
        "MATCH (p:Page) RETURN p.key AS key, p.path AS path", database_=neo4j_database)
    assert {r["key"]: r["path"] for r in keys} == bad.loaded
    many, _, _ = clean_db.execute_query(
        "MATCH (:Page {key: 'many-links'})-[r:LINKS_TO]->() RETURN count(r) AS n",
        database_=neo4j_database)
    assert many[0]["n"] == MANY_LINKS
    assert SECRET not in _all_text(clean_db, neo4j_database)

    again = ingest(clean_db, neo4j_database, bad.vault)
    assert not again.changed and again.parsed == 0 and again.skipped == report.skipped


def _cli_env(db: test_db.TestDatabase) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "VAULTKG_"))}
    env.update(db.env())
    return env


@pytest.fixture
def cli(clean_db: neo4j.Driver, test_database: test_db.TestDatabase,
        tmp_path: Path) -> Iterator[Callable[..., subprocess.CompletedProcess[str]]]:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # cwd: an empty folder, so no `.env` of the developer's is read.
        return subprocess.run([str(VAULTKG), *args], capture_output=True, text=True,
                              env=_cli_env(test_database), cwd=tmp_path, timeout=120)
    yield run


@pytest.mark.integration
@pytest.mark.timeout(300)
def test_cli_exit_code_says_whether_anything_was_skipped(
        cli: Callable[..., subprocess.CompletedProcess[str]], bad: BadVault,
        tmp_path: Path) -> None:
    vault = tmp_path / "small"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\n[[b]]\n", encoding="utf-8")
    (vault / "b.md").write_text("# B\n", encoding="utf-8")
    result = cli("ingest", "--json", str(vault))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["skipped"] == []

    (vault / "binary.md").write_bytes(b"\x00\x01\x02")
    (vault / "leak.md").symlink_to(bad.outside / "secret.md")
    result = cli("ingest", "--json", str(vault))
    assert result.returncode == 3, result.stderr
    report = json.loads(result.stdout)
    assert report["skipped"] == ["binary.md: binary file, not markdown",
                                 "leak.md: symlink points outside the vault; skipped"]
    assert report["pages"] == 2

    result = cli("ingest", str(vault))  # nothing changed, still skipped: still 3
    assert result.returncode == 3
    assert "skipped: leak.md: symlink points outside the vault; skipped" in result.stderr

    result = cli("ingest", str(tmp_path / "no-such-vault"))
    assert result.returncode == 1
    message = " ".join(result.stderr.split())  # rich wraps long lines
    assert message.startswith("error: ") and "no-such-vault: no such vault folder" in message
    assert "Traceback" not in result.stderr
