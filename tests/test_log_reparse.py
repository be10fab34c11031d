"""A log parsed again from its previous parse (`parse_log(..., previous)`) gives exactly what a
fresh parse gives: entries (keys, order, lines, bullets, touches, signatures) and problems,
for random edits anywhere in logs of both entry styles, with fences, headings and bad dates."""

from __future__ import annotations

import random

import pytest

from loaders.links import body_lines
from loaders.log import LogParse, parse_log
from loaders.records import PageKind
from loaders.resolver import NameIndex, PageHeader

PAGES = ["Raft Consensus", "Patch", "GPipe", "Ray", "ZeRO"]


def _index(pages: list[str]) -> NameIndex:
    return NameIndex.build([PageHeader(p, f"concepts/{p}.md", PageKind.CONCEPT, p)
                            for p in pages])


def _entry_lines(rng: random.Random, day: int) -> list[str]:
    """One entry, as a heading with bullets or as a dated bullet, now and then with a
    continuation line, a fence, a stray heading or a bad date."""
    page = rng.choice([*PAGES, "Missing"])
    date = f"2026-{1 + day // 28:02d}-{1 + day % 28:02d}"
    if rng.random() < 0.05:
        date = "2026-13-40"
    if rng.random() < 0.3:
        return [f"- {date} — lint — checked [[{page}]] ^b{day}"]
    out = [f"## [{date}] {rng.choice(['ingest', 'lint', 'query'])} | about [[{page}]]",
           f"- Source: [[{page}]]", f"- Key insight: {rng.randint(1, 9)}x faster"]
    if rng.random() < 0.2:
        out.append("  continued on a second line")
    if rng.random() < 0.1:
        out += ["```", f"## [{date}] fenced | not an entry", "```"]
    if rng.random() < 0.1:
        out.append("# A section")
    return [*out, ""]


def _log(rng: random.Random, entries: int) -> list[str]:
    lines = ["---", "title: Log", "---", "# Log", "Newest first.", ""]
    for day in range(entries, 0, -1):
        lines += _entry_lines(rng, day)
    return lines


def _edit(rng: random.Random, lines: list[str]) -> list[str]:
    lines = list(lines)
    kind = rng.choice(["top", "top", "line", "delete", "insert", "fence", "front", "end"])
    body = 4 + next(i for i, t in enumerate(lines[4:]) if t.startswith(("##", "- 2026")))
    at = rng.randrange(body, len(lines))
    if kind == "top":
        lines[body:body] = _entry_lines(rng, 400 + rng.randrange(50))
    elif kind == "line":
        lines[at] = rng.choice(["- Pages updated: [[Ray]]", "", "## [2026-03-03] x | y",
                                "- 2026-02-02 — fold — [[GPipe]]", "  more text", "# Heading"])
    elif kind == "delete":
        del lines[at:at + rng.randint(1, 6)]
    elif kind == "insert":
        lines[at:at] = _entry_lines(rng, rng.randrange(300))
    elif kind == "fence":
        lines.insert(at, "```")
    elif kind == "front":
        lines[1:1] = ["updated: 2026-12-06"] * rng.randint(1, 3)
    else:
        lines += _entry_lines(rng, 0)
    return lines


def _parse(lines: list[str], index: NameIndex, previous: LogParse | None = None) -> LogParse:
    return parse_log(body_lines(lines, 4, mask=False), "log.md", index, previous)


def _same(again: LogParse, fresh: LogParse) -> None:
    assert again.entries == fresh.entries
    assert [e.signature for e in again.entries] == [e.signature for e in fresh.entries]
    assert [e.model_dump() for e in again.entries] == [e.model_dump() for e in fresh.entries]
    assert [str(p) for p in again.problems] == [str(p) for p in fresh.problems]


@pytest.mark.parametrize("seed", range(12))
def test_a_log_parsed_again_equals_a_fresh_parse(seed: int) -> None:
    rng = random.Random(seed)
    index = _index(PAGES)
    lines = _log(rng, 60)
    parsed = _parse(lines, index)
    for _ in range(15):
        lines = _edit(rng, lines)
        # Now and then a page is added: the same lines resolve with another index.
        if rng.random() < 0.2:
            index = _index([*PAGES, f"New {rng.randrange(99)}", "Missing"])
        again = _parse(lines, index, parsed)
        _same(again, _parse(lines, index))
        parsed = again


def test_an_entry_on_top_moves_the_others_without_parsing_them_again() -> None:
    rng = random.Random(7)
    index = _index(PAGES)
    lines = _log(rng, 40)
    before = _parse(lines, index)
    lines[6:6] = ["## [2026-12-06] ingest | new", "- Source: [[Ray]]", ""]
    after = _parse(lines, index, before)
    _same(after, _parse(lines, index))
    kept = {e.key: e for e in before.entries}
    moved = [e for e in after.entries if e.key in kept]
    assert len(moved) == len(before.entries) and len(after.entries) == len(moved) + 1
    # The moved entries share their bullets and touches with the previous parse's.
    assert all(e.line == kept[e.key].line + 3 and e.bullets is kept[e.key].bullets
               and e.touches is kept[e.key].touches for e in moved)
