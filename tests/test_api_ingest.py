"""The `ingest` mutation keeps a session per folder: told which files changed it reads only
those (no walk), not told it walks and finds every change, and either way the graph ends as a
clean ingest leaves it. Over HTTP, against a real Neo4j."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

import loaders.files as files_module
from api.ingest_sessions import IngestSessions, changed_paths
from graph.ingest import ingest
from loaders.errors import BadUserInput
from tests import db as test_db
from tests.api_server import API_KEY, Api, running, settings_for
from tests.db import TestDatabase
from tests.graph_dump import diff, dump
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration

INGEST = """mutation($p: String!, $c: [String!]) {
  ingest(path: $p, changed: $c) { parsed deleted changed problems } }"""
BODY = 'query($k: String!) { page(key: $k) { body } }'
OLD = time.time() - 3600  # stamps this old are trusted (loaders.files.RACY_NS)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    copy = tmp_path / "roots" / "vault"
    shutil.copytree(SHARED_EXAMPLE, copy)
    for path in copy.rglob("*"):
        if path.is_file():
            os.utime(path, (OLD, OLD))
    return copy


@pytest.fixture
def walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a vault was walked (the server runs in this process)."""
    count = [0]
    real = files_module.walk

    def counted(*args: object, **kwargs: object) -> object:
        count[0] += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("loaders.scan.walk", counted)
    return count


@pytest.fixture
def api(clean_db: neo4j.Driver, test_database: TestDatabase, vault: Path) -> Iterator[Api]:
    settings = settings_for(test_database, VAULTKG_API_KEY=API_KEY,
                            VAULTKG_VAULT_ROOTS=[vault.parent])
    with running(settings) as base:
        yield Api(base, API_KEY)


def _append(path: Path, text: str, at: float) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")
    os.utime(path, (at, at))


def test_the_mutation_reads_what_it_is_told_changed(
        api: Api, vault: Path, walks: list[int], clean_db: neo4j.Driver,
        neo4j_database: str) -> None:
    first = api.data(INGEST, p=str(vault))["ingest"]
    assert first["changed"] and first["parsed"] > 100 and walks[0] == 1

    ray = vault / "wiki" / "sources" / f"{S['Ray']}.md"
    _append(ray, "\n追記その一。\n", OLD + 10)
    told = api.data(INGEST, p=str(vault), c=[f"wiki/sources/{ray.name}"])["ingest"]
    assert (told["parsed"], told["deleted"], walks[0]) == (1, 0, 1)  # no walk
    assert "追記その一" in api.data(BODY, k=S["Ray"])["page"]["body"]

    # A change left out of `changed` is not read then, and is found by a walk later.
    gpipe = vault / "wiki" / "sources" / f"{S['GPipe']}.md"
    _append(gpipe, "\n追記その二。\n", OLD + 20)
    assert api.data(INGEST, p=str(vault), c=[])["ingest"]["parsed"] == 0
    assert "追記その二" not in api.data(BODY, k=S["GPipe"])["page"]["body"]
    walked = api.data(INGEST, p=str(vault))["ingest"]
    assert walked["parsed"] == 1 and walks[0] == 2
    assert "追記その二" in api.data(BODY, k=S["GPipe"])["page"]["body"]

    # Absolute paths are taken too; a deleted page is deleted (and is no unknown path).
    ray.unlink()
    gone = api.data(INGEST, p=str(vault), c=[str(ray)])["ingest"]
    assert gone["deleted"] == 1 and walks[0] == 2
    assert not any("named in `changed`" in p for p in gone["problems"])

    # A path that names no file, now or at the last ingest, is said back.
    typo = api.data(INGEST, p=str(vault), c=["wiki/sources/Nonexistent paper.md"])["ingest"]
    assert typo["parsed"] == 0 and walks[0] == 2
    assert typo["problems"] == [
        "sources/Nonexistent paper.md: named in `changed`, but there is no such file, nor "
        "was there at the last ingest; nothing read"]

    body = api.post(INGEST, p=str(vault), c=["../elsewhere/x.md"])
    (error,) = body["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "'../elsewhere/x.md' is outside the folder being ingested" in error["message"]

    incremental = dump(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ingest(clean_db, neo4j_database, vault)
    assert diff(incremental, dump(clean_db, neo4j_database)) == []


def test_changed_paths_are_taken_relative_to_the_folder_read(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "wiki" / "sources").mkdir(parents=True)
    assert changed_paths(vault, ["wiki/sources/a.md", str(vault / "wiki" / "b.md"),
                                 ".raw/paper.pdf", "wiki/./c/../d.md"]) == [
        "sources/a.md", "b.md", "d.md"]
    flat = tmp_path / "flat"
    flat.mkdir()
    assert changed_paths(flat, ["x.md"]) == ["x.md"]
    with pytest.raises(BadUserInput, match="outside the folder"):
        changed_paths(vault, ["/etc/passwd"])


def test_sessions_are_kept_for_the_last_folders_only(tmp_path: Path) -> None:
    sessions = IngestSessions(size=2)
    for name in ("a", "b", "a", "c"):
        with sessions.session(tmp_path / name) as session:
            session.generation = name
    assert len(sessions) == 2
    with sessions.session(tmp_path / "a") as session:
        assert session.generation == "a"  # kept: used more recently than b
    with sessions.session(tmp_path / "b") as session:
        assert session.generation is None  # dropped
