"""Unit tests of the pure loaders: no database."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from loaders.errors import VaultError
from loaders.frontmatter import split_frontmatter
from loaders.links import body_lines, find_links, mask_code
from loaders.log import parse_log
from loaders.numeric import detect_conflicts, numeric_claims, statements_in
from loaders.records import PageKind
from loaders.resolver import NameIndex, PageHeader
from loaders.vault import load_vault
from tests.vaults import SHARED_EXAMPLE, S


def test_every_obsidian_link_form() -> None:
    line = ("[[Page]] [[Page|text]] [[Page#Heading]] [[Page#^block]] ![[embed.png]] "
            "[[dir/Page.md]] [md](../dir/Other%20Page.md#Sec) [a](<../x/Y Z.md>) "
            "[web](https://e.com/a.md)")
    found = find_links(line)
    assert [(lk.target, lk.display, lk.heading, lk.block, lk.embed, lk.markdown) for lk in found] \
        == [("Page", None, None, None, False, False), ("Page", "text", None, None, False, False),
            ("Page", None, "Heading", None, False, False),
            ("Page", None, None, "block", False, False),
            ("embed.png", None, None, None, True, False),
            ("dir/Page.md", None, None, None, False, False),
            ("../dir/Other Page.md", "md", "Sec", None, False, True),
            ("../x/Y Z.md", "a", None, None, False, True)]


def test_links_in_code_are_not_links() -> None:
    lines = ["text `[[NotALink]]` [[Real]]", "```", "[[InFence]]", "```", "[[After]]"]
    found = [lk.target for _, t in body_lines(lines, 1) for lk in find_links(t)]
    assert found == ["Real", "After"]
    assert "NotALink" not in mask_code("`[[NotALink]]`")


def _index() -> NameIndex:
    return NameIndex.build([
        PageHeader("Raft Consensus", "concepts/Raft Consensus.md", PageKind.CONCEPT,
                   "Raft Consensus", ("Raft",)),
        PageHeader("Patch", "concepts/Patch.md", PageKind.CONCEPT, "Patch"),
        PageHeader("meta/archive/Patch", "meta/archive/Patch.md", PageKind.NOTE, "Patch"),
        PageHeader("Hervé", "entities/Hervé.md", PageKind.PERSON, "Hervé"),
        PageHeader("ｗｉｄｅ", "concepts/ｗｉｄｅ.md", PageKind.CONCEPT, "ｗｉｄｅ"),
    ])


@pytest.mark.parametrize(("written", "expected"), [
    ("Raft Consensus", "Raft Consensus"), ("raft consensus", "Raft Consensus"),
    ("Raft", "Raft Consensus"), ("concepts/Raft Consensus.md", "Raft Consensus"),
    ("Patch", "Patch"), ("meta/archive/Patch", "meta/archive/Patch"),
    ("Herve\u0301", "Hervé"), ("wide", "ｗｉｄｅ"), ("Missing", None),
    ("../../etc/passwd", None), ("/etc/passwd", None),
])
def test_resolution_like_obsidian(written: str, expected: str | None) -> None:
    assert _index().resolve(written, "sources/x.md").target == expected


def test_attachments_are_not_dangling_pages() -> None:
    resolution = _index().resolve("figure.png")
    assert resolution.attachment and resolution.target is None


def test_frontmatter_lines_and_errors() -> None:
    front = split_frontmatter("---\ntitle: T\nbuilds_on:\n  - \"[[A]]\"\n  - \"[[B]]\"\n---\nbody",
                              "p.md")
    assert front.items("builds_on") == [("[[A]]", 4), ("[[B]]", 5)]
    assert front.body_start == 7
    with pytest.raises(VaultError, match=r"p\.md:4: bad YAML"):
        split_frontmatter("---\ntitle: T\nbad: [unclosed\n---\n", "p.md")
    with pytest.raises(VaultError, match="aliases are not allowed"):
        split_frontmatter("---\na: &x [1, 2]\nb: *x\n---\n", "p.md")


def test_log_both_styles_and_order() -> None:
    text = ["## [2026-06-18] ingest | Newer", "- Summary: [[Raft]]", "- Key insight: 2x faster",
            "", "## [2026-06-17] lint | Older", "- Pages updated: [[Patch]]",
            "## [2026-13-40] bad | Bad date", "",
            "- 2026-06-16 — tooling — setup [[Missing]]"]
    parsed = parse_log(list(enumerate(text, 1)), "log.md", _index())
    entries, problems = parsed.entries, parsed.problems
    assert [(e.key, e.op, e.seq) for e in entries] == [
        ("log/2026-06-16/01", "tooling", 1), ("log/2026-06-17/01", "lint", 2),
        ("log/2026-06-18/01", "ingest", 3)]
    assert entries[2].touches[0].page == "Raft Consensus"
    assert entries[2].touches[0].role.value == "summary"
    assert entries[0].style == "bullet" and entries[0].date == dt.date(2026, 6, 16)
    assert [str(p) for p in problems] == ["log.md:7: log entry with a bad date '2026-13-40' "
                                          "skipped"]


def test_numeric_statements_bind_metric_and_bounds() -> None:
    found = statements_in("実メモリ 39% 削減、BF16 比 75% 高速、TTFT を最大 1.75 倍程度削減", 1)
    assert [(s.metric, s.value, s.unit, s.bounded) for s in found] == [
        ("memory", 39.0, "percent", ""), ("speed", 75.0, "percent", ""),
        ("ttft", 1.75, "times", "upper")]
    lower = statements_in("throughput of more than 1.8x", 1)
    assert lower[0].bounded == "lower"


def test_conflicts_need_disagreeing_pages() -> None:
    a = numeric_claims("A", 1, "X cuts TTFT by up to 2x.", [(0, "X")], None)
    b = numeric_claims("B", 1, "X cuts TTFT by up to 1.75x.", [(0, "X")], None)
    c = numeric_claims("C", 1, "X cuts TTFT by 2x or 1.75x.", [(0, "X")], None)
    assert len(detect_conflicts(a + b)) == 1
    assert detect_conflicts(a + c) == []  # C states both values: no disagreement with A
    v1 = numeric_claims("A", 1, "X gives ViT-B/16 2x throughput.", [(0, "X")], None)
    v2 = numeric_claims("B", 1, "X gives ViT-L/14 3x throughput.", [(0, "X")], None)
    assert detect_conflicts(v1 + v2) == []  # different model variants


def test_example_vault_snapshot_without_database() -> None:
    snapshot = load_vault(SHARED_EXAMPLE)
    pages = {f.page.key: f for f in snapshot.facts}
    assert len([k for k, f in pages.items() if f.page.path.endswith(".md")]) == 102
    assert sum(len(f.links) for f in snapshot.facts) == 1316
    assert pages[S["DistServe"]].page.year == 2024
    assert pages[S["DistServe"]].page.venue == "OSDI"
    assert pages["log"].is_log and len(pages["log"].log_entries) == 22


def test_missing_vault_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VaultError, match="no such vault folder"):
        load_vault(tmp_path / "nope")


def test_pathological_lines_stay_bounded() -> None:
    """Lines built to blow up regexes or the claim reader finish and yield nothing odd."""
    from loaders.fold_pages import _int

    assert find_links("[x](" * 4000) == []
    assert statements_in(" ".join(f"{i}.5x faster {i}%" for i in range(20000)), 1) == []
    assert _int("99999999999999999999") is None and _int("16") == 16


def test_read_body_leaves_out_ranges_but_follows_their_headings() -> None:
    from loaders.page_parser import read_body
    from loaders.records import Page

    text = "\n".join(["---", "title: T", "---", "# Top", "a [[Raft]]", "## Skipped section",
                      "b [[Patch]]", "c", "```", "[[InFence]]", "```", "d", "e [[Raft]]"])
    front = split_frontmatter(text, "p.md")
    page = Page(key="p", path="p.md", kind=PageKind.NOTE, title="T", content_hash="h")
    every = read_body(page, front, _index())
    assert [b.number for b in every] == [4, 5, 6, 7, 8, 12, 13]
    kept = read_body(page, front, _index(), [(6, 7), (12, 12)])
    assert [(b.number, b.section) for b in kept] == [
        (4, "Top"), (5, "Top"), (8, "Skipped section"), (13, "Skipped section")]
    assert [lk.target for b in kept for lk in b.links] == ["Raft Consensus", "Raft Consensus"]
