"""`vaultkg watch`: the file filter and batching (pure), and a real watch of a vault copy whose
saves reach the graph, within a bounded wait, and which stops when asked."""

from __future__ import annotations

import queue
import shutil
import threading
from pathlib import Path

import neo4j
import pytest
import watchfiles

from api.watch import VaultFilter, WatchBatch, file_changes, summary, watch_vault
from graph.ingest import IngestReport
from loaders.errors import VaultkgError
from tests.vaults import SHARED_EXAMPLE, S

WAIT_S = 180  # a loaded CI machine ingests slowly; a lost event would still fail


def test_filter_keeps_only_what_ingest_reads(tmp_path: Path) -> None:
    keep = VaultFilter(tmp_path)
    added = watchfiles.Change.added
    assert keep(added, str(tmp_path / "sources" / "a.md"))
    assert keep(added, str(tmp_path / "meta" / "ledgers" / "claim-ledger.json"))
    (tmp_path / "sources").mkdir()
    for name in ("sources/a.md.swp", "notes.json"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    assert not keep(added, str(tmp_path / "sources" / "a.md.swp"))
    assert not keep(added, str(tmp_path / "sources" / ".a.md"))
    assert not keep(added, str(tmp_path / ".obsidian" / "workspace.md"))
    assert not keep(added, str(tmp_path / ".raw" / "papers" / "x.md"))
    assert not keep(added, str(tmp_path / "notes.json"))
    assert not keep(added, str(tmp_path.parent / "elsewhere.md"))
    # A folder (moved in: its pages get no events of their own), or a path that is gone.
    assert keep(added, str(tmp_path / "sources"))
    assert keep(watchfiles.Change.deleted, str(tmp_path / "gone"))


def test_file_changes_one_entry_per_file_sorted(tmp_path: Path) -> None:
    c = watchfiles.Change
    raw = {(c.modified, str(tmp_path / "b.md")), (c.added, str(tmp_path / "a.md")),
           (c.modified, str(tmp_path / "b.md")), (c.added, str(tmp_path / "t.md")),
           (c.deleted, str(tmp_path / "t.md"))}
    assert [(x.path, x.change) for x in file_changes(tmp_path, raw)] == [
        ("a.md", "added"), ("b.md", "modified"), ("t.md", "deleted")]


def _report(**changes: int | bool) -> IngestReport:
    base: dict[str, object] = {
        "vault": "v", "pages": 2, "links": 0, "dangling": 0, "log_entries": 0, "nodes": 2,
        "relationships": 0, "parsed": 1, "unchanged": 1, "deleted": 0, "nodes_created": 0,
        "nodes_deleted": 0, "relationships_created": 3, "relationships_deleted": 1,
        "changed": True, "elapsed_s": 0.25, "problems": [], "skipped": []}
    base.update(changes)
    return IngestReport.model_validate(base)


def test_summary_line_says_files_and_graph_delta(tmp_path: Path) -> None:
    raw = {(watchfiles.Change.modified, str(tmp_path / "sources" / "a.md"))}
    line = summary(WatchBatch(changes=file_changes(tmp_path, raw), report=_report()))
    assert "sources/a.md (modified)" in line
    assert "1 pages parsed, 0 deleted" in line
    assert "relationships +3 -1" in line
    unchanged = summary(WatchBatch(changes=file_changes(tmp_path, raw),
                                   report=_report(changed=False)))
    assert "graph unchanged" in unchanged


def _next(batches: queue.Queue[WatchBatch], errors: list[VaultkgError]) -> WatchBatch:
    try:
        return batches.get(timeout=WAIT_S)
    except queue.Empty:
        raise AssertionError(f"no ingest within {WAIT_S} s (errors: {errors})") from None


@pytest.mark.integration
def test_watch_reingests_saved_and_deleted_pages(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    batches: queue.Queue[WatchBatch] = queue.Queue()
    ready = threading.Event()
    stop = threading.Event()
    errors: list[VaultkgError] = []
    first: list[IngestReport] = []

    def on_ready(report: IngestReport) -> None:
        first.append(report)
        ready.set()

    thread = threading.Thread(target=watch_vault, daemon=True, kwargs={
        "driver": clean_db, "database": neo4j_database, "vault": vault,
        "on_batch": batches.put, "on_ready": on_ready, "on_error": errors.append,
        "stop": stop, "quiet_ms": 200})
    thread.start()
    try:
        assert ready.wait(WAIT_S), "the watcher never became ready"
        assert first[0].pages == 102 and first[0].changed  # the initial ingest of a clean db

        hived = vault / "wiki" / "sources" / f"{S['HiveD']}.md"
        text = hived.read_text(encoding="utf-8")
        hived.write_text(text.replace("## 系譜\n", "## 系譜\n\nbuilds_on:: [[@2018__OSDI__Ray]]\n",
                                      1), encoding="utf-8")
        batch = _next(batches, errors)
        assert [(c.path, c.change) for c in batch.changes] == [
            (f"sources/{S['HiveD']}.md", "modified")]
        assert batch.report.parsed == 1 and batch.report.changed
        assert batch.report.relationships_created >= 1
        rows, _, _ = clean_db.execute_query(
            "MATCH (:Page {key: $c})-[r:BUILDS_ON]->(:Page {key: $p}) RETURN count(r) AS n",
            c=S["HiveD"], p=S["Ray"], database_=neo4j_database)
        assert rows[0]["n"] == 1

        (vault / "wiki" / "sources" / f"{S['Cassini']}.md").unlink()
        batch = _next(batches, errors)
        assert [(c.path, c.change) for c in batch.changes] == [
            (f"sources/{S['Cassini']}.md", "deleted")]
        assert batch.report.deleted == 1 and batch.report.nodes_deleted >= 1
        gone, _, _ = clean_db.execute_query("MATCH (p:Page {key: $k}) RETURN p", k=S["Cassini"],
                                            database_=neo4j_database)
        assert gone == []
        (vault / "wiki" / ".obsidian").mkdir()
        (vault / "wiki" / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
        with pytest.raises(queue.Empty):  # an ignored file triggers no ingest
            batches.get(timeout=3)

        # A folder moved in: one event names the folder, none its page.
        incoming = tmp_path / "incoming"
        incoming.mkdir()
        (incoming / "Moved Topic.md").write_text(
            "---\ntitle: Moved topic\n---\n[[@2018__OSDI__Ray]] を参照。\n", encoding="utf-8")
        incoming.rename(vault / "wiki" / "incoming")
        batch = _next(batches, errors)
        assert [(c.path, c.change) for c in batch.changes] == [("incoming", "added")]
        moved, _, _ = clean_db.execute_query(
            "MATCH (p:Page {key: 'Moved Topic'})-[:LINKS_TO]->(:Page {key: $ray}) "
            "RETURN p.path AS path", ray=S["Ray"], database_=neo4j_database)
        assert [r["path"] for r in moved] == ["incoming/Moved Topic.md"]
        (vault / "wiki" / "incoming" / "figure.png").write_bytes(b"\x89PNG\r\n")
        with pytest.raises(queue.Empty):  # nor does a file that is not a page
            batches.get(timeout=3)
        shutil.rmtree(vault / "wiki" / "incoming")
        batch = _next(batches, errors)
        assert batch.report.deleted == 1
        assert errors == []
    finally:
        stop.set()
        thread.join(timeout=30)
    assert not thread.is_alive(), "the watcher did not stop when asked"
