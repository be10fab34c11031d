"""Ingests in a long-lived process (`IngestSession`, as `vaultkg watch` runs them): told which
paths changed, they read only those, without a walk, and leave the graph as a plain ingest
would; what the session keeps is what Neo4j holds, and is not trusted once anything else wrote.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import neo4j
import pytest

import loaders.files as files_module
from graph.ingest import IngestReport, IngestSession, _previous, ingest
from graph.writer import GraphWriter
from loaders.files import PreviousPage
from loaders.vault import LoadOptions, load_vault
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.vaults import SHARED_EXAMPLE, S

OLD = time.time() - 3600  # stamps of files this old are trusted (see loaders.files.RACY_NS)


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    for path in vault.rglob("*"):
        if path.is_file():
            os.utime(path, (OLD, OLD))
    return vault / "wiki"


@pytest.fixture
def no_walk(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """`allow(False)` makes a walk of the vault fail the test."""
    real = files_module.walk
    allowed = [True]

    def walk(*args: object, **kwargs: object) -> object:
        assert allowed[0], "the vault was walked"
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("loaders.scan.walk", walk)

    def allow(yes: bool) -> None:
        allowed[0] = yes

    yield allow


def _graph_pages(driver: neo4j.Driver, database: str) -> dict[str, PreviousPage]:
    return _previous(GraphWriter(driver, database).previous_pages())


def _write(path: Path, text: str, at: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (at, at))


def _settled(driver: neo4j.Driver, database: str, wiki: Path, session: IngestSession,
             report: IngestReport) -> None:
    """The session holds what the graph holds, a plain load finds nothing left to do, and
    it reports the problems the session's ingest reported."""
    pages = _graph_pages(driver, database)
    assert session.previous == pages
    # The log's entries as kept (read instead of the graph by the next ingest) are the graph's.
    writer = GraphWriter(driver, database)
    assert session.log is not None
    assert session.log.state == writer.log_state(session.log.page)
    assert session.log.signatures == writer.entry_signatures()
    snapshot = load_vault(wiki.parent, LoadOptions(previous=pages, workers=1))
    assert [f.page.key for f in snapshot.facts] == []
    assert snapshot.deleted == () and snapshot.stamps == ()
    assert sorted(report.problems + report.skipped) == sorted(str(p) for p in
                                                              snapshot.problems)


@pytest.mark.parametrize("told", [True, False], ids=["changed-paths", "walks"])
def test_changed_paths_reach_the_graph_without_a_walk(
        clean_db: neo4j.Driver, neo4j_database: str, wiki: Path,
        no_walk: Callable[[bool], None], told: bool) -> None:
    """Told the changed paths, a session's ingest reads only those; not told (the `ingest`
    mutation without `changed`), it walks, and still leaves the graph a plain ingest would."""
    session = IngestSession()
    db = neo4j_database
    first = ingest(clean_db, db, wiki.parent, session=session)
    assert first.parsed == first.pages + 1  # every page and the claim ledger
    _settled(clean_db, db, wiki, session, first)
    at = OLD

    def step(changed: list[str], *, walks: bool = False) -> IngestReport:
        nonlocal at
        no_walk(walks or not told)
        report = ingest(clean_db, db, wiki.parent, session=session,
                        changed=changed if told else None)
        no_walk(True)
        _settled(clean_db, db, wiki, session, report)
        at += 10
        return report

    ray = wiki / "sources" / f"{S['Ray']}.md"
    _write(ray, ray.read_text(encoding="utf-8") + "\nスループットは 3.5 倍。\n", at)
    report = step([f"sources/{S['Ray']}.md"])
    assert (report.parsed, report.deleted) == (1, 0)

    concept = next((wiki / "concepts").glob("*.md"))
    text = concept.read_text(encoding="utf-8")
    _write(concept, text.replace("---\n", f"---\ntitle: {concept.stem} (renamed)\n", 1), at)
    report = step([f"concepts/{concept.name}"])
    assert report.parsed >= 1  # the page, and pages whose mentions its new title changes

    _write(wiki / "concepts" / "Fresh idea.md",
           "---\ntitle: Fresh idea\n---\n[[@2018__OSDI__Ray]] の続き。\n", at)
    report = step(["concepts/Fresh idea.md", "concepts/scratch.png"])
    assert report.parsed >= 1 and report.deleted == 0

    (wiki / "sources" / f"{S['Cassini']}.md").unlink()
    report = step([f"sources/{S['Cassini']}.md"])
    assert report.deleted == 1

    os.utime(ray, (at, at))  # touched, not changed: only its stamp is written
    report = step([f"sources/{S['Ray']}.md"])
    assert report.parsed == 0

    log = wiki / "log.md"  # newest first: the new entry goes on top
    head, first_entry, rest = log.read_text(encoding="utf-8").partition("\n## [")
    _write(log, head + "\n## [2026-12-05] ingest | Fresh idea\n- Pages created: [[Fresh idea]]\n"
           + first_entry + rest, at)
    report = step(["log.md"])
    assert report.parsed >= 1

    (wiki / "concepts" / "Fresh idea.md").rename(wiki / "concepts" / "Fresh idea 2.md")
    report = step(["concepts/Fresh idea.md", "concepts/Fresh idea 2.md"])
    assert report.deleted == 1

    incoming = wiki.parent / "incoming"  # a folder moved in: only the folder has an event
    _write(incoming / "Moved A.md", "---\ntitle: Moved A\n---\n[[Moved B]]\n", at)
    _write(incoming / "sub" / "Moved B.md", "---\ntitle: Moved B\n---\n[[Moved A]]\n", at)
    incoming.rename(wiki / "incoming")
    report = step(["incoming"], walks=True)
    assert report.parsed >= 2

    shutil.rmtree(wiki / "incoming")  # a folder removed, with its pages
    report = step(["incoming"], walks=True)
    assert report.deleted == 2

    incremental = dump(clean_db, db)
    test_db.wipe(clean_db, db)
    ingest(clean_db, db, wiki.parent)
    assert diff(incremental, dump(clean_db, db)) == []


def test_another_writer_makes_the_session_read_the_graph_again(
        clean_db: neo4j.Driver, neo4j_database: str, wiki: Path) -> None:
    """Another ingest changed a page and the file went back: the session's pages say the
    graph has the old text, but the generation tells it to read what the graph has."""
    session = IngestSession()
    ingest(clean_db, neo4j_database, wiki.parent, session=session)
    ray = wiki / "sources" / f"{S['Ray']}.md"
    original = ray.read_text(encoding="utf-8")
    _write(ray, original + "\n別プロセスの追記。\n", OLD + 10)
    ingest(clean_db, neo4j_database, wiki.parent)  # another process, no session
    _write(ray, original, OLD)
    report = ingest(clean_db, neo4j_database, wiki.parent, session=session,
                    changed=[f"sources/{S['Ray']}.md"])
    assert report.parsed == 1
    rows, _, _ = clean_db.execute_query("MATCH (p:Page {key: $k}) RETURN p.body AS body",
                                        k=S["Ray"], database_=neo4j_database)
    assert "別プロセス" not in rows[0]["body"]


def test_a_failed_ingest_leaves_the_session_empty(
        clean_db: neo4j.Driver, neo4j_database: str, wiki: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    session = IngestSession()
    ingest(clean_db, neo4j_database, wiki.parent, session=session)
    assert session.previous is not None and session.scan is not None

    def fails(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected: write failed")

    monkeypatch.setattr(GraphWriter, "write", fails)
    with pytest.raises(RuntimeError, match="injected"):
        ingest(clean_db, neo4j_database, wiki.parent, session=session, changed=[])
    assert session.generation is None
    assert session.previous is None
    assert session.scan is None
    assert session.log is None


def test_a_logged_edit_reads_the_log_state_from_the_session(
        clean_db: neo4j.Driver, neo4j_database: str, wiki: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the session's own ingest, the next one takes the log's entries (lines, prints,
    signatures) from the session, not from Neo4j, and still leaves a plain ingest's graph."""
    session = IngestSession()
    ingest(clean_db, neo4j_database, wiki.parent, session=session)
    log = wiki / "log.md"
    head, first_entry, rest = log.read_text(encoding="utf-8").partition("\n## [")
    _write(log, head + "\n## [2026-12-05] ingest | again\n- Source: [[@2018__OSDI__Ray]]\n"
           + first_entry + rest, OLD + 10)

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("read from the graph")

    monkeypatch.setattr(GraphWriter, "log_state", unread)
    monkeypatch.setattr(GraphWriter, "entry_signatures", unread)
    report = ingest(clean_db, neo4j_database, wiki.parent, session=session, changed=["log.md"])
    assert report.log_lines_moved > 0  # the unchanged entries moved, not rewritten
    monkeypatch.undo()
    incremental = dump(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ingest(clean_db, neo4j_database, wiki.parent)
    assert diff(incremental, dump(clean_db, neo4j_database)) == []
