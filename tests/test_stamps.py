"""File stamps: a re-ingest reads only files whose (path, mtime, size) changed, and the graph
still equals a clean ingest (edit, touch, same-size edit, rename, delete); `force` reads every
file; the log has its own size limit."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

import loaders.files as lf
import loaders.log as log_module
import loaders.vault as lv
from graph.ingest import ingest
from loaders.files import PreviousPage
from loaders.vault import LoadOptions, load_vault
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.vaults import SHARED_EXAMPLE, S

OLD = time.time() - 3600  # older than lf.RACY_NS: stamps of such files are trusted


def _age(vault: Path, when: float = OLD) -> None:
    for path in vault.rglob("*"):
        if path.is_file():
            os.utime(path, (when, when))


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    out = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, out)
    _age(out)
    return out


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Names of the files read (every read of a vault file goes through `_read_bytes`)."""
    seen: list[str] = []
    original = lf.read_bytes

    def recording(path: str) -> bytes:
        seen.append(os.path.basename(path))
        return original(path)

    monkeypatch.setattr(lf, "read_bytes", recording)
    yield seen


def _clean_equivalent(driver: neo4j.Driver, database: str, vault: Path) -> None:
    incremental = dump(driver, database)
    test_db.wipe(driver, database)
    ingest(driver, database, vault)
    assert diff(incremental, dump(driver, database)) == []


def _stamp(driver: neo4j.Driver, database: str, key: str) -> tuple[int, int]:
    records, _, _ = driver.execute_query(
        "MATCH (p:Page {key: $k}) RETURN p.mtime_ns AS m, p.size AS s", k=key,
        database_=database)
    return records[0]["m"], records[0]["s"]


pytestmark = pytest.mark.integration


def test_unchanged_files_are_not_read(clean_db: neo4j.Driver, neo4j_database: str,
                                      vault: Path, reads: list[str]) -> None:
    ingest(clean_db, neo4j_database, vault)
    reads.clear()
    report = ingest(clean_db, neo4j_database, vault)
    assert reads == []
    assert report.parsed == 0 and not report.changed and report.deleted == 0
    assert report.pages > 90 and report.problems == [] and report.skipped == []


def test_force_reads_every_file(clean_db: neo4j.Driver, neo4j_database: str, vault: Path,
                                reads: list[str]) -> None:
    first = ingest(clean_db, neo4j_database, vault)
    reads.clear()
    report = ingest(clean_db, neo4j_database, vault, force=True)
    assert len([r for r in reads if r.endswith(".md")]) == first.pages
    assert report.parsed == first.parsed


def test_a_new_records_version_parses_every_page_once(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph written by an older vaultkg (other records for the same bytes) is re-parsed
    page by page, stamps notwithstanding, and then left alone again."""
    first = ingest(clean_db, neo4j_database, vault)
    monkeypatch.setattr(lf, "RECORDS_VERSION", "r-next")
    upgraded = ingest(clean_db, neo4j_database, vault)
    assert upgraded.unchanged == 0 and upgraded.parsed == first.parsed
    again = ingest(clean_db, neo4j_database, vault)
    assert again.parsed == 0 and not again.changed
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_edit_reads_the_page_and_the_log_only(clean_db: neo4j.Driver, neo4j_database: str,
                                              vault: Path, reads: list[str]) -> None:
    ingest(clean_db, neo4j_database, vault)
    page = vault / "wiki" / "sources" / f"{S['FP8']}.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n追記: 3.5 倍。\n", encoding="utf-8")
    lv.clear_caches()  # as in a new process
    reads.clear()
    report = ingest(clean_db, neo4j_database, vault)
    assert sorted(reads) == sorted([page.name, "log.md"])  # log: provenance of the new facts
    assert report.parsed == 1 and report.changed
    page.write_text(page.read_text(encoding="utf-8") + "\n追記: 4.5 倍。\n", encoding="utf-8")
    reads.clear()
    report = ingest(clean_db, neo4j_database, vault)
    assert reads == [page.name]  # same process, same log and names: its parse is reused
    assert report.parsed == 1 and report.changed
    # Written a moment ago: a same-size write in the same tick would be missed, so no stamp.
    assert _stamp(clean_db, neo4j_database, S["FP8"])[0] == 0
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_touched_file_with_the_same_content_writes_no_facts(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path, reads: list[str]) -> None:
    ingest(clean_db, neo4j_database, vault)
    before = dump(clean_db, neo4j_database)
    page = vault / "wiki" / "sources" / f"{S['HiveD']}.md"
    _age(page.parent, OLD + 60)
    reads.clear()
    report = ingest(clean_db, neo4j_database, vault)
    touched = sorted(p.name for p in page.parent.glob("*.md"))
    assert sorted(reads) == touched  # read and hashed, not parsed (the log is not needed)
    assert report.parsed == 0 and not report.changed
    assert (report.nodes_created, report.nodes_deleted, report.relationships_created,
            report.relationships_deleted) == (0, 0, 0, 0)
    assert diff(before, dump(clean_db, neo4j_database)) == []
    # The new stamps are recorded, so the next run reads nothing.
    assert _stamp(clean_db, neo4j_database, S["HiveD"]) == (page.stat().st_mtime_ns,
                                                            page.stat().st_size)
    reads.clear()
    ingest(clean_db, neo4j_database, vault)
    assert reads == []


def test_same_size_edit_with_a_new_mtime_is_seen(clean_db: neo4j.Driver, neo4j_database: str,
                                                 vault: Path) -> None:
    ingest(clean_db, neo4j_database, vault)
    page = vault / "wiki" / "sources" / f"{S['HiveD']}.md"
    data = page.read_bytes()
    assert b"OSDI" in data
    edited = data.replace(b"OSDI", b"OSDX", 1)
    assert len(edited) == len(data)
    page.write_bytes(edited)
    os.utime(page, (OLD + 60, OLD + 60))
    report = ingest(clean_db, neo4j_database, vault)
    assert report.parsed >= 1 and report.changed
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_renamed_file(clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    ingest(clean_db, neo4j_database, vault)
    old = vault / "wiki" / "sources" / f"{S['Cassini']}.md"
    new = old.with_name("@2024__NSDI__Cassini renamed.md")
    old.rename(new)  # keeps its mtime and size: the stamp must not be found by the old path
    report = ingest(clean_db, neo4j_database, vault)
    assert report.deleted == 1 and report.parsed >= 1
    keys, _, _ = clean_db.execute_query(
        "MATCH (p:Page) WHERE p.key IN [$old, $new] RETURN p.key AS key", old=S["Cassini"],
        new=new.stem, database_=neo4j_database)
    assert [r["key"] for r in keys] == [new.stem]
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_deleted_file(clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    ingest(clean_db, neo4j_database, vault)
    (vault / "wiki" / "sources" / f"{S['Titans']}.md").unlink()
    report = ingest(clean_db, neo4j_database, vault)
    assert report.deleted == 1
    _clean_equivalent(clean_db, neo4j_database, vault)


def test_page_with_a_header_problem_is_read_and_reported_every_run(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path, reads: list[str]) -> None:
    broken = vault / "wiki" / "concepts" / "broken-frontmatter.md"
    broken.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    _age(broken.parent)
    first = ingest(clean_db, neo4j_database, vault)
    assert any("broken-frontmatter" in p for p in first.problems)
    reads.clear()
    again = ingest(clean_db, neo4j_database, vault)
    assert reads == [broken.name]
    assert again.problems == first.problems and again.parsed == 0


# -- the loader alone ---------------------------------------------------------------------------


def _previous(vault: Path) -> dict[str, PreviousPage]:
    """What the graph would hold after ingesting `vault` (stamps included)."""
    snapshot = load_vault(vault, LoadOptions(mentions=False, workers=1))
    return {f.page.key: PreviousPage.of(f.page) for f in snapshot.facts}


def test_a_file_that_cannot_be_read_but_needs_no_read_is_kept(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A skipped file is never opened (here: opening it would fail)."""
    previous = _previous(vault)
    page = vault / "wiki" / "sources" / f"{S['Ray']}.md"
    original = lf.read_bytes
    refused: list[str] = []

    def refuse(path: str) -> bytes:
        if os.path.basename(path) == page.name:
            refused.append(path)
            raise PermissionError(13, "Permission denied")
        return original(path)

    monkeypatch.setattr(lf, "read_bytes", refuse)
    snapshot = load_vault(vault, LoadOptions(previous=previous, workers=1))
    assert S["Ray"] in snapshot.unchanged and snapshot.problems == ()
    assert snapshot.facts == () and snapshot.deleted == () and refused == []
    # The spy is live: a forced load does try to read it, and reports that it could not.
    forced = load_vault(vault, LoadOptions(previous=previous, workers=1, force=True))
    assert refused and any(p.path.endswith(page.name) for p in forced.problems)


def test_a_new_name_reads_the_texts_that_may_mention_it(vault: Path, reads: list[str]) -> None:
    previous = _previous(vault)
    (vault / "wiki" / "concepts" / "Brand New Concept.md").write_text("# new\n",
                                                                      encoding="utf-8")
    reads.clear()
    snapshot = load_vault(vault, LoadOptions(previous=previous, workers=1))
    assert len([r for r in reads if r.endswith(".md")]) >= len(previous)
    assert [f.page.key for f in snapshot.facts] == ["Brand New Concept"]


def test_a_new_name_reparses_exactly_the_unchanged_pages_that_mention_it(vault: Path) -> None:
    """The mention is unlinked and written in another width and case than the new title."""
    page = vault / "wiki" / "sources" / f"{S['Ray']}.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nＺＥＰＨＹＲ  scheduling.\n",
                    encoding="utf-8")
    _age(vault)
    previous = _previous(vault)
    (vault / "wiki" / "concepts" / "Zephyr Scheduling.md").write_text("# Zephyr\n",
                                                                      encoding="utf-8")
    snapshot = load_vault(vault, LoadOptions(previous=previous, workers=1))
    assert sorted(f.page.key for f in snapshot.facts) == sorted(
        ["Zephyr Scheduling", S["Ray"]])


def test_the_log_parse_is_reused_while_log_and_names_are_unchanged(
        vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    original = log_module.parse_log

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append("parse")
        return original(*args, **kwargs)

    monkeypatch.setattr(lv, "parse_log", counting)
    lv.clear_caches()
    previous = _previous(vault)
    assert calls == ["parse"]
    page = vault / "wiki" / "sources" / f"{S['FP8']}.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n追記。\n", encoding="utf-8")
    first = load_vault(vault, LoadOptions(previous=previous, workers=1))
    assert calls == ["parse"] and [f.page.key for f in first.facts] == [S["FP8"]]
    (vault / "wiki" / "concepts" / "Brand New Concept.md").write_text("# new\n",
                                                                      encoding="utf-8")
    load_vault(vault, LoadOptions(previous=previous, workers=1))
    assert calls == ["parse", "parse"]  # the names changed: links in the log may resolve anew


def test_the_log_has_its_own_size_limit(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = vault / "wiki" / "log.md"
    big = vault / "wiki" / "concepts" / "big.md"
    big.write_text("x" * (log.stat().st_size + 10), encoding="utf-8")
    monkeypatch.setattr(lf, "MAX_PAGE_BYTES", log.stat().st_size - 1)
    snapshot = load_vault(vault, LoadOptions(mentions=False, workers=1))
    skipped = [p.path for p in snapshot.problems if p.skipped]
    assert skipped == ["concepts/big.md"]
    logs = [f for f in snapshot.facts if f.is_log]
    assert len(logs) == 1 and len(logs[0].log_entries) > 10
    monkeypatch.setattr(lf, "MAX_LOG_BYTES", log.stat().st_size - 1)
    snapshot = load_vault(vault, LoadOptions(mentions=False, workers=1))
    assert "log.md" in [p.path for p in snapshot.problems if p.skipped]
    assert not any(f.is_log for f in snapshot.facts)
