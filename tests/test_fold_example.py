"""The fold resolver on the example vault (distributed-training): it rebuilds the hand-made
level-4 fold, dates the later corrections, and writes pages idempotently. Real Neo4j."""

from __future__ import annotations

import datetime as dt
import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import neo4j
import pytest

from graph.ingest import ingest
from loaders.links import find_links
from queries import fold_resolver as resolver
from queries.base import GraphContext
from queries.fold_check import parse_fold
from queries.fold_render import render
from tests import db as test_db
from tests.fold_fixtures import cli_runner, fold_snapshot
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration

FOLD_ID = "fold-k4-from-2026-06-17-to-2026-06-18-n16"
HAND_MADE = SHARED_EXAMPLE / "wiki" / "folds" / f"{FOLD_ID}.md"
JUNE_17, JUNE_18 = dt.date(2026, 6, 17), dt.date(2026, 6, 18)


@pytest.fixture(scope="module")
def ctx(neo4j_driver: neo4j.Driver, neo4j_database: str) -> GraphContext:
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)
    return GraphContext(neo4j_driver, neo4j_database, timeout_s=60)


@pytest.fixture
def cli(ctx: GraphContext) -> Callable[..., Any]:
    return cli_runner()


def test_digest_rebuilds_the_hand_made_table(ctx: GraphContext) -> None:
    d = resolver.fold_range(ctx, JUNE_17, JUNE_18)
    assert d.fold_id == FOLD_ID
    assert (d.level, d.entry_count) == (4, 16)
    hand = parse_fold(HAND_MADE.read_text(encoding="utf-8"))
    assert d.child_keys == hand.front["child_keys"]
    ours = [(c.date.isoformat(), c.op, c.title, ", ".join(f"[[{r.link}]]" for r in c.pages))
            for c in reversed(d.children)]
    theirs = [(r.cells["date"], r.cells["op"], r.cells["title"], r.cells["page"])
              for r in hand.rows]
    assert ours == theirs
    assert [c.summary for c in reversed(d.children)] == [r.cells["summary"] for r in hand.rows]
    assert all(r.state == "present" for c in d.children for r in c.pages)


def test_child_pages_are_the_hand_made_set(ctx: GraphContext) -> None:
    d = resolver.fold_range(ctx, JUNE_17, JUNE_18)
    hand = parse_fold(HAND_MADE.read_text(encoding="utf-8"))
    listed = {lk.target for _, b in hand.bullets("pages") for lk in find_links(b)}
    assert len(listed) == 85
    assert {r.key for r in d.child_pages} == listed
    assert [r.key for r in d.child_pages[:17]] == [
        # the 17 source pages first, newest entry first, as in the hand-made list
        lk.target for _, b in hand.bullets("pages")[:17] for lk in find_links(b)]


def test_themes_name_the_hand_made_topics(ctx: GraphContext) -> None:
    d = resolver.fold_range(ctx, JUNE_17, JUNE_18)
    themes = {t.concept: len(t.support) for t in d.themes}
    assert themes["LLM分散学習"] == 8
    assert themes["GPUクラスタスケジューリング"] == 2 and themes["LLM推論"] == 2
    assert all(n >= 2 for n in themes.values())
    assert d.dominant_themes[0] == "LLM分散学習"


def test_as_of_the_fold_date_nothing_contradicts(ctx: GraphContext) -> None:
    d = resolver.fold_range(ctx, JUNE_17, JUNE_18, as_of=JUNE_18)
    assert d.contradictions == ()
    assert "## Contradictions or Corrections\n\n- None detected.\n" in render(d)


def test_without_as_of_the_corrections_come_later(ctx: GraphContext) -> None:
    d = resolver.fold_range(ctx, JUNE_17, JUNE_18)
    later = [x for x in d.contradictions if x.timing == "later"]
    assert {x.timing for x in d.contradictions} == {"later"}
    by_subject = {x.subject: x for x in later if x.kind == "explicit"}
    assert set(by_subject) == {S["Megatron"], S["FP8"]}
    assert by_subject[S["Megatron"]].date == dt.date(2026, 6, 19)
    assert by_subject[S["Megatron"]].affects == ("log-20260617-003",)
    assert by_subject[S["FP8"]].date == dt.date(2026, 6, 20)
    assert by_subject[S["FP8"]].affects == ("log-20260617-009",)
    mooncake = next(x for x in later if x.kind == "detected")  # 1.75x vs overview's 2x
    assert mooncake.affects == ("log-20260618-015",) and mooncake.date_basis == "claims"
    page = render(d)
    assert page.count("- Later correction (") == 4
    assert f"[[{S['Megatron']}]]; affects log-20260617-003" in page
    as_of_19 = resolver.fold_range(ctx, JUNE_17, JUNE_18, as_of=dt.date(2026, 6, 19))
    assert {x.subject for x in as_of_19.contradictions} == {S["Megatron"]}


def test_same_graph_same_bytes(ctx: GraphContext, cli: Callable[..., Any]) -> None:
    first = render(resolver.fold_range(ctx, JUNE_17, JUNE_18))
    assert render(resolver.fold_range(ctx, JUNE_17, JUNE_18)).encode() == first.encode()
    assert render(resolver.fold_ending(ctx, 4, JUNE_18)).encode() == first.encode()
    assert render(resolver.fold_by_id(ctx, FOLD_ID)).encode() == first.encode()
    runs = [cli("fold", "--from", "2026-06-17", "--to", "2026-06-18") for _ in range(2)]
    assert runs[0].exit_code == 0, runs[0].output
    assert runs[0].output == runs[1].output == first


def test_check_passes_on_generated_and_hand_made_pages(ctx: GraphContext,
                                                       cli: Callable[..., Any]) -> None:
    generated = cli("fold", "--from", "2026-06-17", "--to", "2026-06-18", "--check")
    assert generated.exit_code == 0, generated.output
    assert "passes" in generated.output and "numeric_traceability" in generated.output
    hand = cli("fold", "--check", str(HAND_MADE))
    assert hand.exit_code == 0, hand.output
    result = resolver.check_markdown(ctx, HAND_MADE.read_text(encoding="utf-8"), str(HAND_MADE))
    assert result.ok and "child_pages" in {c.name for c in result.checks}


def test_check_against_the_log_catches_a_wrong_title(ctx: GraphContext, tmp_path: Path,
                                                     cli: Callable[..., Any]) -> None:
    text = HAND_MADE.read_text(encoding="utf-8").replace("| ingest-paper | HiveD |",
                                                         "| ingest-paper | HiveD v2 |")
    bad = tmp_path / f"{FOLD_ID}.md"
    bad.write_text(text, encoding="utf-8")
    result = cli("fold", "--check", str(bad))
    assert result.exit_code == 4
    assert "FAIL child_keys" in result.output and "HiveD v2" in result.output


def test_folds_lists_the_existing_fold(ctx: GraphContext, cli: Callable[..., Any]) -> None:
    [fold] = resolver.folds(ctx, 4)
    assert (fold.fold_id, fold.entries, fold.range_from) == (FOLD_ID, 16, JUNE_17)
    assert resolver.folds(ctx, 5) == []
    listed = cli("folds", "--level", "4", "--json")
    assert listed.exit_code == 0 and FOLD_ID in listed.output


def test_bad_requests_are_refused(ctx: GraphContext, cli: Callable[..., Any]) -> None:
    assert cli("fold", "--from", "2026-06-18", "--to", "2026-06-17").exit_code == 1
    assert cli("fold", "--from", "2026-06-17").exit_code == 1
    assert cli("fold", "--level", "5", "--ending", "2026-06-18").exit_code == 1  # 17 < 32
    assert cli("fold", "--from", "2030-01-01", "--to", "2030-01-02").exit_code == 1
    assert cli("fold", "--from", "2026-06-17", "--to", "2026-06-18", "--write").exit_code == 1


def _hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_write_twice_makes_one_file_and_one_node(ctx: GraphContext, tmp_path: Path,
                                                 cli: Callable[..., Any]) -> None:
    """Last in this module: it adds a page to the graph."""
    vault = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, vault)
    before = _hashes(vault)
    args = ("fold", "--from", "2026-06-19", "--to", "2026-06-22", "--write", "--vault",
            str(vault))
    first, second = cli(*args), cli(*args)
    assert first.exit_code == 0, first.output
    assert "recorded Fold fold-k3-from-2026-06-19-to-2026-06-22-n5 (5 FOLDS edges)" in \
        first.output
    assert second.exit_code == 0 and "nothing written" in second.output
    after = _hashes(vault)
    new = sorted(set(after) - set(before))
    assert new == ["wiki/folds/fold-k3-from-2026-06-19-to-2026-06-22-n5.md"]
    assert {k: v for k, v in after.items() if k in before} == before  # nothing else changed
    written = (vault / new[0]).read_text(encoding="utf-8")
    d = resolver.fold_range(ctx, dt.date(2026, 6, 19), dt.date(2026, 6, 22))
    assert written == render(d)
    assert "[[Alpa]] (missing)" in written  # the dangling Deferred link, said explicitly
    assert resolver.check_markdown(ctx, written, new[0]).ok
    snapshot = fold_snapshot(ctx.driver, ctx.database)
    assert [s["fold_id"] for s in snapshot] == [
        "fold-k3-from-2026-06-19-to-2026-06-22-n5", FOLD_ID]
    ours = snapshot[0]
    assert ours["labels"] == ["Fold", "Page"] and ours["key"] == ours["fold_id"]
    assert [f[0] for f in ours["folds"]] == [1, 2, 3, 4, 5]
    # the hand-made fold id is not written again, even with a different range spelling
    same = cli("fold", "--level", "4", "--ending", "2026-06-18", "--write", "--vault", str(vault))
    assert same.exit_code == 0 and "nothing written" in same.output
    # ingesting the vault with the written page converges on the same node and edges
    ingest(ctx.driver, ctx.database, vault)
    assert fold_snapshot(ctx.driver, ctx.database) == snapshot
