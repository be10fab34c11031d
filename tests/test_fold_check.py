"""The fold checker: generated pages pass, the hand-made example fold pages pass, and each
template check fails on the defect it is about."""

from __future__ import annotations

from pathlib import Path

import pytest

from queries.fold_check import (
    _cited_entries,
    check_fold,
    context_of,
    parse_fold,
    resolve_citation,
)
from queries.fold_digest import build_digest
from queries.fold_models import FoldCheck, FoldDigest
from queries.fold_render import render
from tests.fold_fixtures import D1, D2, entry, paper, touch
from tests.vaults import DEMO, SHARED_EXAMPLE

DT_FOLD = SHARED_EXAMPLE / "wiki/folds/fold-k4-from-2026-06-17-to-2026-06-18-n16.md"
EXAMPLE_FOLD = DEMO / "wiki/folds/fold-k3-from-2026-03-03-to-2026-03-04-n8.md"


def _digest() -> FoldDigest:
    entries = [
        paper(1, D1, "Alpha", "Alpha cuts latency by 40% on 8 GPUs.", ("Scheduling",)),
        paper(2, D1, "Beta", "Beta is 2.5× faster. It needs 3 nodes.", ("Scheduling",)),
        paper(3, D2, "Gamma", "Gamma saves 30% memory.", ("Memory",)),
        entry(4, D2, "Deferred work", [("Pages created", "[[Memo]]"),
                                       ("Deferred", "[[Missing Thing]]"),
                                       ("Key insight", "Two pages were left for later.")],
              [touch("Memo", "created", kind="Note"),
               touch("Missing Thing", "deferred", dangling=True)], op="query"),
    ]
    return build_digest(entries, base_seq=1)


def _failed(result: FoldCheck) -> set[str]:
    return {c.name for c in result.checks if not c.ok}


@pytest.fixture
def page() -> tuple[str, FoldDigest]:
    d = _digest()
    return render(d), d


def test_generated_page_passes_with_and_without_context(page: tuple[str, FoldDigest]) -> None:
    text, d = page
    with_ctx = check_fold(text, f"{d.fold_id}.md", context_of(d))
    assert with_ctx.ok, with_ctx
    assert {c.name for c in with_ctx.checks} == {
        "sections", "frontmatter", "entry_count", "child_keys", "numeric_traceability",
        "themes", "missing_pages", "child_pages"}
    assert check_fold(text, f"{d.fold_id}.md").ok
    assert "[[Missing Thing]] (missing)" in text


@pytest.mark.parametrize(("old", "new", "failing"), [
    ("Alpha cuts latency by 40% on 8 GPUs. (from", "Alpha cuts latency by 45% on 8 GPUs. (from",
     {"numeric_traceability"}),
    ("(from log-20260501-002 Beta)", "(as seen)", {"numeric_traceability"}),
    ("supported by: log-20260501-001 Alpha, log-20260501-002 Beta",
     "supported by: log-20260501-001 Alpha", {"themes"}),
    ('batch_exponent: 2', 'batch_exponent: 3', {"entry_count", "frontmatter"}),
    ('fold_id: "fold-k2-from-2026-05-01-to-2026-05-02-n4"',
     'fold_id: "fold-k2-from-2026-05-01-to-2026-05-02-n5"', {"frontmatter"}),
    ('  - "log-20260502-004"\n', '', {"entry_count", "child_keys"}),
    ('"log-20260501-002"', '"log-20260502-002"',
     {"child_keys", "numeric_traceability", "themes"}),  # citations of 002 now point nowhere
    ("| Deferred work |", "| Deferred works |", {"child_keys"}),
    ("[[Missing Thing]] (missing)", "[[Missing Thing]]", {"missing_pages"}),
    ("- [[Memo]]\n", "", {"child_pages"}),
    ("## Cross-entry Themes", "## Themes", {"sections"}),
])
def test_each_defect_fails_its_check(page: tuple[str, FoldDigest], old: str, new: str,
                                     failing: set[str]) -> None:
    text, d = page
    assert old in text
    broken = text.replace(old, new, 1)
    result = check_fold(broken, f"{d.fold_id}.md", context_of(d))
    assert not result.ok
    assert _failed(result) == failing, result


def test_a_row_without_page_must_say_so(page: tuple[str, FoldDigest]) -> None:
    text, d = page
    row = next(line for line in text.split("\n") if "| Deferred work |" in line)
    blank = row.replace("[[Memo]]", "—")
    assert not check_fold(text.replace(row, blank), f"{d.fold_id}.md").ok
    marked = row.replace("[[Memo]]", "ソース欠落")
    assert check_fold(text.replace(row, marked), f"{d.fold_id}.md").ok


def test_file_name_must_be_the_fold_id(page: tuple[str, FoldDigest]) -> None:
    text, _ = page
    assert _failed(check_fold(text, "wiki/folds/other.md")) == {"frontmatter"}
    assert _failed(check_fold("---\ntype: fold\n: [\n---\n", "x.md")) == {"frontmatter"}


@pytest.mark.parametrize("path", [DT_FOLD, EXAMPLE_FOLD], ids=["distributed-training", "example"])
def test_hand_made_fold_pages_pass(path: Path) -> None:
    result = check_fold(path.read_text(encoding="utf-8"), str(path))
    assert result.ok, result
    assert len(parse_fold(path.read_text(encoding="utf-8")).rows) in (8, 16)


@pytest.mark.parametrize(("old", "new"), [
    ("Mooncake Store の KV Cache Reuse が TTFT を最大 1.75 倍削減",
     "Mooncake Store の KV Cache Reuse が TTFT を最大 2 倍削減"),
    ("の 7 年間の分散学習進化系譜", "の 8 年間の分散学習進化系譜"),
    ("（2026-06-17 HiveD, Cassini エントリ）", "（2026-06-17 HiveD エントリ）"),
])
def test_hand_made_page_with_an_untraceable_number_fails(old: str, new: str) -> None:
    text = DT_FOLD.read_text(encoding="utf-8")
    assert old in text
    result = check_fold(text.replace(old, new), str(DT_FOLD))
    assert _failed(result) == {"numeric_traceability"}, result


def test_citations_resolve_by_child_key_or_by_date_and_name() -> None:
    parsed = parse_fold(DT_FOLD.read_text(encoding="utf-8"))
    entries = _cited_entries(parsed, None)
    titles = [e.title for e in resolve_citation("2026-06-17 HiveD, Cassini エントリ", entries)]
    assert sorted(titles) == ["Cassini", "HiveD"]
    fallback = resolve_citation("2026-06-18 DistServe + 推論基盤最適化エントリ", entries)
    assert len(fallback) == 2  # an unmatched name stands for the whole date
    keyed = resolve_citation("from log-20260617-003: x", entries)
    assert [e.title for e in keyed] == ["Megatron-LM テンソル並列"]
