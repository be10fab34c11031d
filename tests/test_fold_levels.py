"""Folds of folds on tests/vaults/fold-32 (35 log entries): two level-4 folds, their level-5
fold, the numbers of EXPECTED.md, writing all three pages and converging with ingest. Real
Neo4j."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import neo4j
import pytest

from graph.ingest import ingest
from loaders.errors import BadUserInput, NotFound
from queries import fold_resolver as resolver
from queries import folds as q
from queries.base import GraphContext
from queries.fold_check import check_fold, context_of
from queries.fold_models import FoldDigest
from queries.fold_render import render
from queries.fold_text import numbers
from tests import db as test_db
from tests.fold_fixtures import cli_runner, fold_snapshot
from tests.vaults import FOLD_32

pytestmark = pytest.mark.integration

A = "fold-k4-from-2026-08-01-to-2026-08-05-n16"
B = "fold-k4-from-2026-08-06-to-2026-08-09-n16"
AB = "fold-k5-from-2026-08-01-to-2026-08-09-n32"
# EXPECTED.md, "Cross-entry themes": concept -> supporting entries (n = position from oldest)
THEMES_A = {"B-tree": [2, 3, 8, 10, 13], "Read Amplification": [2, 11],
            "LSM-tree": [4, 5, 6, 12, 14, 15], "Write Amplification": [4, 11, 12, 13, 15],
            "Compaction": [4, 5, 15], "Bloom Filter": [5, 6, 14], "In-Memory Index": [8, 9, 10]}
THEMES_B = {"B-tree": [19, 21, 27], "LSM-tree": [17, 18, 26, 29, 30],
            "Write Amplification": [18, 22, 26, 27], "Compaction": [17, 18, 23, 26, 30, 31],
            "Bloom Filter": [26, 29], "Space Amplification": [17, 30, 31],
            "Learned Index": [19, 24, 25]}
THEMES_AB = {"B-tree": [2, 3, 8, 10, 13, 19, 21, 27], "Read Amplification": [2, 11],
             "LSM-tree": [4, 5, 6, 12, 14, 15, 17, 18, 26, 29, 30],
             "Write Amplification": [4, 11, 12, 13, 15, 18, 22, 26, 27],
             "Compaction": [4, 5, 15, 17, 18, 23, 26, 30, 31], "Bloom Filter": [5, 6, 14, 26, 29],
             "Tail Latency": [6, 23], "In-Memory Index": [8, 9, 10, 21],
             "Space Amplification": [11, 17, 30, 31], "Key-Value Separation": [12, 22],
             "Learned Index": [19, 24, 25]}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("fold32") / "fold-32"
    shutil.copytree(FOLD_32, copy)
    return copy


@pytest.fixture(scope="module")
def ctx(vault: Path, neo4j_driver: neo4j.Driver, neo4j_database: str) -> GraphContext:
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, vault)
    return GraphContext(neo4j_driver, neo4j_database, timeout_s=60)


@pytest.fixture
def cli(ctx: GraphContext) -> Callable[..., Any]:
    return cli_runner()


def _supports(d: FoldDigest, offset: int) -> dict[str, list[int]]:
    """Themes as concept -> n (position from the vault's oldest entry)."""
    seq = {c.child_key: c.seq for c in d.children}
    return {t.concept: [seq[k] - offset for k in t.support] for t in d.themes}


def _expected_pages(fold: str) -> set[str]:
    text = (FOLD_32 / "EXPECTED.md").read_text(encoding="utf-8")
    line = next(ln for ln in text.split("\n") if ln.startswith(f"**Child Pages of fold {fold}:**"))
    return set(re.findall(r"`([^`]+)`", line))


def test_level_4_folds_are_the_expected_ones(ctx: GraphContext) -> None:
    a = resolver.fold_range(ctx, dt.date(2026, 8, 1), dt.date(2026, 8, 5))
    b = resolver.fold_range(ctx, dt.date(2026, 8, 6), dt.date(2026, 8, 9))
    assert (a.fold_id, b.fold_id) == (A, B)
    assert a.child_keys[0] == "log-20260801-001" and a.child_keys[-1] == "log-20260805-016"
    assert b.child_keys[0] == "log-20260806-001" and b.child_keys[-1] == "log-20260809-016"
    assert _supports(a, 0) == THEMES_A and _supports(b, 0) == THEMES_B
    assert {r.key for r in a.child_pages} == _expected_pages("A")
    assert len(a.child_pages) == 39
    # EXPECTED.md lists 31 for fold B but misses the two pages only the n 28 lint entry links
    # ("Pages updated: [[Niv Dayan]], [[Remzi Arpaci-Dusseau]], [[index]]", log.md line 65)
    assert {r.key for r in b.child_pages} == _expected_pages("B") | {
        "Remzi Arpaci-Dusseau", "index"}
    assert len(b.child_pages) == 33
    assert a.contradictions == () == b.contradictions
    for d in (a, b):
        for o in d.outcomes:
            child = next(c for c in d.children if c.child_key == o.child_key)
            assert o.text in child.summary and set(numbers(o.text)) <= set(numbers(child.text))


def test_level_5_fold_of_the_two_level_4_folds(ctx: GraphContext) -> None:
    ab = resolver.fold_of_fold_ids(ctx, A, B)
    assert ab.fold_id == AB and (ab.level, ab.entry_count) == (5, 32)
    assert ab.child_folds == (A, B)
    assert ab.child_keys[16] == "log-20260806-017"  # renumbered within the level-5 range
    assert _supports(ab, 0) == THEMES_AB
    # themes only the level-5 fold can name: one supporting entry in each level-4 fold
    assert set(THEMES_AB) - set(THEMES_A) - set(THEMES_B) == {"Tail Latency",
                                                             "Key-Value Separation"}
    leaf = resolver.fold_ending(ctx, 5, dt.date(2026, 8, 9))
    for part in ("children", "outcomes", "themes", "child_pages", "contradictions"):
        assert getattr(ab, part) == getattr(leaf, part), part
    page = render(ab)
    assert f"Built from [[{A}]] and [[{B}]]." in page
    assert check_fold(page, f"{AB}.md", context_of(ab)).ok
    assert resolver.check_markdown(ctx, page, f"{AB}.md").ok


def test_folds_that_cannot_stack_are_refused(ctx: GraphContext) -> None:
    with pytest.raises(BadUserInput, match="not adjacent"):
        resolver.fold_of_fold_ids(ctx, A, A)
    with pytest.raises(NotFound, match="holds 15 log entries, not 16"):
        resolver.fold_of_fold_ids(ctx, A, "fold-k4-from-2026-08-07-to-2026-08-10-n16")
    with pytest.raises(BadUserInput, match="needs 64 log entries; only 35"):
        resolver.fold_ending(ctx, 6, dt.date(2026, 8, 10))


def test_write_all_three_levels_and_ingest_converges(ctx: GraphContext, vault: Path,
                                                     cli: Callable[..., Any]) -> None:
    for args in (("--from", "2026-08-01", "--to", "2026-08-05"),
                 ("--from", "2026-08-06", "--to", "2026-08-09"),
                 ("--of", A, "--of", B),
                 ("--level", "3", "--ending", "2026-08-03")):  # starts mid-day (n 3 to 10)
        result = cli("fold", *args, "--write", "--vault", str(vault))
        assert result.exit_code == 0, result.output
        assert "recorded Fold" in result.output
    assert [f.fold_id for f in resolver.folds(ctx, 4)] == [A, B]
    assert [f.fold_id for f in resolver.folds(ctx, 5)] == [AB]
    [mid] = resolver.folds(ctx, 3)
    assert mid.child_keys[0] == "log-20260801-003" and mid.entries == 8
    for fold in (A, B, AB, mid.fold_id):
        page = vault / "wiki" / "folds" / f"{fold}.md"
        checked = cli("fold", "--check", str(page))
        assert checked.exit_code == 0, checked.output
    before = fold_snapshot(ctx.driver, ctx.database)
    assert len(before) == 4 and all(len(s["folds"]) == s["entry_count"] for s in before)
    ingest(ctx.driver, ctx.database, vault)
    assert fold_snapshot(ctx.driver, ctx.database) == before
    rerun = cli("fold", "--of", A, "--of", B, "--write", "--vault", str(vault))
    assert rerun.exit_code == 0 and "nothing written" in rerun.output
    assert fold_snapshot(ctx.driver, ctx.database) == before


def test_entries_ending_are_the_newest_dated_on_or_before(ctx: GraphContext) -> None:
    """The seek from the date index matches the definition: of every entry dated on or before
    the end (and `as_of`), the `count` newest, oldest first, for ends on each day, between
    days and beyond both ends of the log."""
    every = q.entries_in_range(ctx, dt.date(2000, 1, 1), dt.date(2100, 1, 1))
    days = sorted({e.date for e in every})
    probes = [days[0] - dt.timedelta(days=1), *days, days[-1] + dt.timedelta(days=30),
              *(d + dt.timedelta(days=1) for d in days)]
    seen = 0
    for ending in probes:
        for as_of in (None, days[len(days) // 2]):
            bound = min(ending, as_of) if as_of else ending
            dated = [e for e in every if e.date <= bound]
            for count in (1, 5, 16, 64):
                got = q.entries_ending(ctx, count, ending, as_of)
                assert [e.key for e in got] == [e.key for e in dated[-count:]], (ending, count)
                seen += len(got)
    assert seen > 0 and [e.seq for e in every] == sorted(e.seq for e in every)
