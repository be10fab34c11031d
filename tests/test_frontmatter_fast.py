"""The fast frontmatter reader gives exactly what PyYAML gives, or nothing (PyYAML then reads
the block): on every page of the test, example and benchmark vaults, and on generated blocks
full of YAML's corner cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate
from loaders.errors import VaultError
from loaders.frontmatter import pyyaml_frontmatter, split_frontmatter
from loaders.frontmatter_fast import fast_frontmatter

ROOT = Path(__file__).resolve().parents[1]
VAULTS = [ROOT / "tests" / "vaults", ROOT / "examples", ROOT.parent / "shared" / "vaults"]


def _blocks(folder: Path) -> list[tuple[str, list[str]]]:
    """(file, frontmatter lines) of every markdown file under folder that has frontmatter."""
    out: list[tuple[str, list[str]]] = []
    for path in sorted(folder.rglob("*.md")):
        lines = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n").split("\n")
        if not lines or lines[0].strip() != "---":
            continue
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")),
                   None)
        if end is not None:
            out.append((str(path), lines[1:end]))
    return out


def _same_as_pyyaml(lines: list[str]) -> bool:
    """Whether the fast reader read the block; if it did, it must agree with PyYAML exactly
    (`repr` tells 1 from 1.0 from True, and a date from a datetime)."""
    fast = fast_frontmatter(lines)
    if fast is None:
        return False
    reference: tuple[Any, list[tuple[int, str]]] = pyyaml_frontmatter("\n".join(lines), "p.md")
    data, bad = reference
    assert repr(fast) == repr((data if data is not None else {}, bad)), lines
    return True


def test_every_vault_page_reads_as_pyyaml_reads_it(tmp_path: Path) -> None:
    blocks = [b for folder in VAULTS if folder.is_dir() for b in _blocks(folder)]
    blocks += _blocks(generate(400, tmp_path / "bench", seed=5))
    read = [name for name, lines in blocks if _same_as_pyyaml(lines)]
    assert len(blocks) > 500
    # The point is speed: the pages vaults are made of must take the fast path.
    assert len(read) >= 0.9 * len(blocks), sorted(
        {name for name, _ in blocks} - set(read))[:20]


TRICKY = ["2024", "2024-05-01", "2026-13-45", "2026-07-01 25:61:00", "2026-07-01T10:00:00Z",
          "yes", "No", "on", "OFF", "true", "null", "~", "Null", "nan", ".nan", ".inf", "-.inf",
          "1e3", "1.5", "1_000", "0x1F", "0o17", "017", "12:30:00", "+1", "-1", "=", "<<",
          "1,000", "3.", "y", "n", "True!", "[[Page]]", "\"[[Page]]\"", "'it''s'", "'q'",
          "\"a\\\"b\"", "\"tab\\t\"", "a: b", "a #c", "a#c", "C#", "x:", "x:y", "R&D", "*x",
          "&a x", "!!str 3", "|", ">", "@x", "`x`", "%x", "? x", "- x", "-x", ", x", "{a: 1}",
          "[1, 2]", "ﾃｽﾄ", "日本語 テキスト", "a\u3000b", "a\xa0", "a\x85b", "a\u2028b", "\ufeffa",
          "a\tb", "a  b", "\"\"", "''", "\"", "'", "https://x.org/a?b=c#d", "v1.2.3", "O'Neil",
          "2001:db8::1", "0.5x faster", "1:2", "[a, b]", "[a,b,]", "[ ]", "[]",
          "[a, 'b', \"c\"]", "[\"a, b\", c]", "[a b, 2024]", "[yes, null, ~]", "[#a]", "[a #b]",
          "[- a]", "[a:b]", "[a, [b]]", "[,]", "[a,,b]", "[ a ]", "[2026-13-45]", "[a]]", "[[a]",
          "[a, b] c", "[@a]", "[a\tb]", "[日本, 語]"]
VALUE = st.one_of(st.sampled_from(TRICKY),
                  st.text(alphabet="ab1 :#-[]{},\"'\\&*!|>%@`~.+=<?\t\xa0日\u2028", max_size=8))
KEY = st.sampled_from(["title", "tags", "year", "yes", "null", "on", "key-x", "_k", "Title", "n",
                       "created", "2024", "a b", "日本", "k"])


@st.composite
def _line(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["key", "key", "empty-key", "item", "item", "blank", "other"]))
    spaces = " " * draw(st.integers(0, 2))
    if kind == "key":
        return f"{draw(KEY)}:{spaces or ' '}{draw(VALUE)}{' ' * draw(st.integers(0, 1))}"
    if kind == "empty-key":
        return f"{draw(KEY)}:{spaces}"
    if kind == "item":
        return f"{' ' * draw(st.sampled_from([0, 2, 2, 4]))}-{spaces or ' '}{draw(VALUE)}"
    if kind == "blank":
        return spaces
    return draw(st.sampled_from(["# comment", "  nested: 1", "-", "  - ", "\tx: 1", "key:value",
                                 "  continued text", "...x", "- - a"]))


@settings(max_examples=3000, deadline=None)
@given(st.lists(_line(), min_size=1, max_size=8))
def test_generated_blocks_read_as_pyyaml_reads_them(lines: list[str]) -> None:
    fast = fast_frontmatter(lines)
    try:
        reference = pyyaml_frontmatter("\n".join(lines), "p.md")
    except VaultError:
        assert fast is None, lines  # PyYAML refuses it: so must the fast reader
        return
    if fast is not None:
        data, bad = reference
        assert repr(fast) == repr((data if data is not None else {}, bad)), lines


def test_the_common_shapes_take_the_fast_path() -> None:
    lines = ['title: "DistServe: Disaggregating Prefill"', "year: 2024", "created: 2024-05-01",
             "aliases:", '  - "@2024__OSDI__DistServe"', "tags:", "- paper", "- 分散推論",
             "status: mature", "draft: false", "empty:", "url: https://x.org/a#b",
             "topics: [a, 'b c', 2024]", "sources: []"]
    assert _same_as_pyyaml(lines)
    data, _ = fast_frontmatter(lines) or ({}, [])
    assert data["year"] == 2024 and data["draft"] is False and data["empty"] is None
    assert data["tags"] == ["paper", "分散推論"]
    assert data["topics"] == ["a", "b c", 2024] and data["sources"] == []


@pytest.mark.parametrize("lines", [["tags: [[a], b]"], ["tags: [a, {b: 1}]"],
                                   ["x: |", "  text"], ["a:", "  b: 1"],
                                   ["t: a", "  continued"], ["# comment", "t: a"],
                                   ["t: 'it''s'"], ['t: "a\\nb"'], ["t: *ref"]])
def test_other_shapes_are_left_to_pyyaml(lines: list[str]) -> None:
    assert fast_frontmatter(lines) is None


def test_a_bad_value_is_kept_as_text_with_its_line_either_way() -> None:
    front = split_frontmatter("---\ntitle: T\ncreated: 2026-13-45\n---\nbody", "p.md")
    assert front.data["created"] == "2026-13-45"
    assert [line for line, _ in front.warnings] == [3]
    assert "kept as text" in front.warnings[0][1]
