"""Streamed ingest: pages are parsed and written chunk by chunk. The chunking changes nothing in
the graph; a run that dies between chunks leaves a graph the next run completes; the parallel
parse stays a bounded distance ahead of the writer; the chunks are the whole load, in order."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import neo4j
import pytest

from graph.ingest import ingest
from loaders import vault as lv
from loaders.files import VaultFile
from loaders.parallel import CHUNK, ordered_imap
from tests import db as test_db
from tests.graph_dump import diff, dump
from tests.vaults import ENGLISH_LAB, SHARED_EXAMPLE

# ---- the loader's side ------------------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2])
def test_the_chunks_are_the_whole_load_in_order(workers: int) -> None:
    whole = lv.load_vault(SHARED_EXAMPLE, lv.LoadOptions(workers=1))
    stream = lv.stream_vault(SHARED_EXAMPLE, lv.LoadOptions(workers=workers), chunk_pages=7)
    assert stream.todo == tuple(f.page.key for f in whole.facts)
    chunks = list(stream.chunks)
    assert [len(c) for c in chunks[:-1]] == [7] * (len(chunks) - 1) and 0 < len(chunks[-1]) <= 7
    assert tuple(f for c in chunks for f in c) == whole.facts
    assert tuple(stream.problems) == whole.problems


def _touch(item: tuple[str, int]) -> int:
    """Leaves a file behind for each item computed, so the parent can count them."""
    folder, number = item
    Path(folder, str(number)).touch()
    return number


def test_workers_stay_a_bounded_distance_ahead(tmp_path: Path) -> None:
    """While the reader holds back, at most about `ahead` items (rounded to whole worker
    chunks, at least two per worker) are computed; then the rest come, in order."""
    items = [(str(tmp_path), n) for n in range(40 * CHUNK)]
    results = ordered_imap(_touch, items, workers=2, ahead=2 * CHUNK)
    assert next(results) == 0
    time.sleep(1.0)  # unbounded, 2 workers would have touched all 4,000 files by now
    ahead = len(os.listdir(tmp_path))
    assert 1 <= ahead <= 5 * CHUNK, ahead  # 4 chunks in flight, plus the one being read
    assert [next(results) for _ in range(10)] == list(range(1, 11))
    assert list(results) == list(range(11, len(items)))
    assert len(os.listdir(tmp_path)) == len(items)


def _heavy_or_waiting(item: tuple[str, int]) -> str:
    """The last item (heavy) says it started; item 0 waits (up to 10 s) to see that."""
    folder, number = item
    flag = Path(folder, "heavy-started")
    if number == HEAVY:
        flag.touch()
        return "heavy"
    if number == 0:
        deadline = time.monotonic() + 10
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return "saw heavy start" if flag.exists() else "heavy had not started"
    return "light"


HEAVY = 10 * CHUNK - 1


def test_a_heavy_last_item_starts_first_and_comes_last(tmp_path: Path) -> None:
    """The log (heavy) is worked on from the start, beside the pages, yet comes in its
    place: last."""
    items = [(str(tmp_path), n) for n in range(HEAVY + 1)]
    out = list(ordered_imap(_heavy_or_waiting, items, workers=2, ahead=CHUNK, heavy_last=True))
    assert out[0] == "saw heavy start" and out[-1] == "heavy"
    assert out[1:-1] == ["light"] * (HEAVY - 1)


# ---- the writer's side (Neo4j) ----------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("vault", [SHARED_EXAMPLE, ENGLISH_LAB], ids=["shared", "english"])
def test_small_chunks_write_the_graph_one_chunk_writes(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """A page in one chunk links, mentions, claims about and folds what later chunks hold:
    chunks of one page must still give the graph that one chunk gives."""
    ingest(clean_db, neo4j_database, vault, chunk_pages=1)
    one_by_one = dump(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ingest(clean_db, neo4j_database, vault, chunk_pages=10_000)
    assert diff(one_by_one, dump(clean_db, neo4j_database)) == []


@pytest.mark.integration
def test_a_run_that_dies_between_chunks_is_completed_by_the_next(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The parse fails in the fourth chunk: three chunks are in the graph, with no hash (and
    the pages still to come exist, without one either). The next run redoes exactly those
    pages and the graph is then the one a clean run gives."""
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    parsed: list[str] = []
    real = lv._page_facts

    def dies_on_the_31st(f: VaultFile, *args: object, **kwargs: object) -> object:
        if len(parsed) == 30:
            raise RuntimeError("injected: parse failed")
        parsed.append(f.header.key)
        return real(f, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(lv, "_page_facts", dies_on_the_31st)
    with pytest.raises(RuntimeError, match="injected"):
        ingest(clean_db, neo4j_database, vault, chunk_pages=10)
    monkeypatch.undo()
    records, _, _ = clean_db.execute_query(
        "MATCH (p:Page) RETURN count(p) AS pages, count(p.content_hash) AS hashed, "
        "count(p.path) AS written", database_=neo4j_database)
    counts = records[0].data()
    assert counts["hashed"] == 0 and 30 <= counts["written"] < counts["pages"], counts

    report = ingest(clean_db, neo4j_database, vault)
    assert report.parsed == counts["pages"] and report.unchanged == 0  # none had a hash
    assert report.problems == []
    recovered = dump(clean_db, neo4j_database)
    test_db.wipe(clean_db, neo4j_database)
    ingest(clean_db, neo4j_database, vault)
    assert diff(recovered, dump(clean_db, neo4j_database)) == []
