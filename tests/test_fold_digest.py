"""The pure fold builder and renderer: child keys, page column, missing pages, outcomes,
themes, contradiction dating, determinism, folds of folds."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

import pytest

from queries.fold_digest import FoldError, build_digest, child_entry, fold_of_folds
from queries.fold_models import ClaimFacts, ContradictionFacts, EntryFacts, FoldDigest
from queries.fold_render import render
from queries.fold_text import ceil_log2, numbers, split_citation
from tests.fold_fixtures import D1, D2, D3, entry, paper, touch

INSIGHTS = [
    "Scheduling first. Cuts latency by 40% and raises throughput 2.5× on 8 GPUs.",
    "A survey of designs without measurements.",
    "Uses 1.5× less memory than the baseline.",
    "Compression reaches 10× on logs and 3× on tables at 95% accuracy.",
    "Shows 7 cases; speedup 1.2×.",
    "Speeds up reads by 30%.",
    "Reduces tail latency 4× under load.",
    "Handles 100 tenants. Improves fairness by 12%.",
    "Builds on prior work in 2019.",
]


def _entries() -> list[EntryFacts]:
    about = [("Scheduling", "Memory"), ("Memory",), ("Memory", "Scheduling"), ("Compression",),
             ("Scheduling",), ("Compression",), (), ("Fairness",), ("Fairness",)]
    days = [D1, D1, D1, D2, D2, D2, D3, D3, D3]
    return [paper(seq, days[i], f"P{i + 1}", INSIGHTS[i], about[i])
            for i, seq in enumerate(range(11, 20))]


def _digest(entries: list[EntryFacts] | None = None, **kw: Any) -> FoldDigest:
    return build_digest(entries or _entries(), base_seq=11, **kw)


def test_text_helpers() -> None:
    assert ceil_log2(1) == 0 and ceil_log2(2) == 1 and ceil_log2(16) == 4 and ceil_log2(17) == 5
    assert numbers("2.0 and 06 and 1.75×") == ["2", "6", "1.75"]
    assert split_citation("A (x) b (from log-20260501-001: T (v2))") == (
        "A (x) b", "from log-20260501-001: T (v2)")
    assert split_citation("no citation here") == ("no citation here", None)
    assert split_citation("文（2026-06-17 GPipe エントリ）") == ("文", "2026-06-17 GPipe エントリ")


def test_identity_and_child_keys_count_positions_within_the_date_range() -> None:
    entries = _entries()[1:]  # starts with the 2nd entry of D1 (seq 12)
    d = build_digest(entries, base_seq=11)
    assert d.fold_id == "fold-k3-from-2026-05-01-to-2026-05-03-n8"
    assert (d.level, d.entry_count, d.range_from, d.range_to) == (3, 8, D1, D3)
    assert d.child_keys[:3] == ["log-20260501-002", "log-20260501-003", "log-20260502-004"]
    assert d.child_keys[-1] == "log-20260503-009"


def test_page_column_is_the_summary_link_as_written_and_summary_the_key_insight() -> None:
    e = paper(1, D1, "Alpha", "Faster by 2×. ^blk-1", ("Scheduling",), created=("Scheduling",))
    c = child_entry(e, 1, None)
    assert [(r.link, r.key, r.state) for r in c.pages] == [
        ("@2024__Venue__Alpha", "@2024__Venue__Alpha Long Title", "present")]
    assert c.summary == "Faster by 2×." and c.summary_label == "Key insight"
    assert [r.key for r in c.linked_pages] == ["@2024__Venue__Alpha Long Title", "Scheduling"]
    assert c.about == ("Scheduling",)


def test_page_column_falls_back_to_created_pages_and_marks_missing_ones() -> None:
    e = entry(3, D2, "Query", [("Pages created", "[[New Page]]"),
                               ("Deferred", "[[Nowhere]] later"),
                               ("Answer", "Nothing changes. More text.")],
              [touch("New Page", "created", kind="Note", created=D3),
               touch("Nowhere", "deferred", dangling=True)], op="query")
    now = child_entry(e, 1, None)
    assert [(r.key, r.state) for r in now.pages] == [("New Page", "present")]
    assert [(r.key, r.state) for r in now.linked_pages] == [
        ("New Page", "present"), ("Nowhere", "missing")]
    assert now.summary == "Nothing changes." and now.summary_label == "Answer"
    assert now.about == ()  # no Summary: bullet, no theme support
    then = child_entry(e, 1, D2)  # the page was created on D3
    assert [(r.key, r.state) for r in then.pages] == [("New Page", "missing")]


def test_outcomes_are_extractive_cite_their_entry_and_prefer_measured_results() -> None:
    d = _digest()
    assert 3 <= len(d.outcomes) <= 7
    by_key = {c.child_key: c for c in d.children}
    for o in d.outcomes:
        child = by_key[o.child_key]
        assert o.text in child.summary
        assert set(o.numbers) <= set(numbers(child.text))
    texts = [o.text for o in d.outcomes]
    assert "Cuts latency by 40% and raises throughput 2.5× on 8 GPUs." in texts
    assert not any("survey" in t for t in texts)  # no figure, and 7 others have one
    assert not any("2019" in t for t in texts)  # a year is not a measured result
    assert [o.child_key for o in d.outcomes] == sorted(o.child_key for o in d.outcomes)


def test_themes_need_two_supporting_entries_and_dominant_ones_cover_most() -> None:
    d = _digest()
    themes = {t.concept: t.support for t in d.themes}
    assert set(themes) == {"Scheduling", "Memory", "Compression", "Fairness"}
    assert themes["Scheduling"] == ("log-20260501-001", "log-20260501-003", "log-20260502-005")
    # greedy cover: Memory and Scheduling both cover 3 (name breaks the tie), then the two
    # themes that each cover 2 new entries; Scheduling would add only one
    assert d.dominant_themes == ("Memory", "Compression", "Fairness")
    single = _digest([paper(11, D1, "Solo", "x", ("Lonely",)),
                      paper(12, D1, "Two", "y", ("Other",))])
    assert single.themes == () and single.dominant_themes == ()
    assert "No cross-entry theme detected" in render(single)


def _contradictions() -> list[ContradictionFacts]:
    subject = "@2024__Venue__P1 Long Title"
    return [
        ContradictionFacts(id="later", kind="explicit", status="resolved", origin="lint",
                           summary="P1 figure corrected", subject=subject, pages=(subject,),
                           introduced_by="log/2026-05-09/01", introduced=dt.date(2026, 5, 9)),
        ContradictionFacts(id="inside", kind="explicit", status="open", origin="callout",
                           subject="@2024__Venue__P4 Long Title", introduced=D2),
        ContradictionFacts(id="numeric", kind="detected", status="open", origin="numeric",
                           subject="@2024__Venue__P3 Long Title", claims=(
                               ClaimFacts(id="a", value=1.5, log_date=D1),
                               ClaimFacts(id="b", value=2.0, page_updated=dt.date(2026, 5, 7),
                                          page_created=D1),
                               ClaimFacts(id="c", value=2.0, page_updated=dt.date(2026, 5, 8)))),
        ContradictionFacts(id="undated", kind="detected", status="open", origin="numeric",
                           subject="@2024__Venue__P2 Long Title", claims=(
                               ClaimFacts(id="d", value=1.0), ClaimFacts(id="e", value=3.0))),
    ]


def test_contradictions_are_dated_and_placed_relative_to_the_range() -> None:
    d = _digest(contradictions=_contradictions())
    got = {x.id: (x.date, x.date_basis, x.timing, x.affects) for x in d.contradictions}
    assert got["later"] == (dt.date(2026, 5, 9), "introduced_by", "later", ("log-20260501-001",))
    assert got["inside"][2] == "in range" and got["inside"][3] == ("log-20260502-004",)
    # both values on record: 1.5 on D1, 2.0 first on 05-07 -> known on 05-07
    assert got["numeric"][:3] == (dt.date(2026, 5, 7), "claims", "later")
    assert got["undated"][2] == "undated"
    assert [x.id for x in d.contradictions] == ["inside", "numeric", "later", "undated"]
    page = render(d)
    assert "- Later correction (2026-05-09; lint explicit; resolved" in page
    assert "see the later correction below" in page  # P1's outcome is flagged


def test_as_of_keeps_only_what_was_known_then() -> None:
    d = _digest(contradictions=_contradictions(), as_of=D3)
    assert [x.id for x in d.contradictions] == ["inside"]
    none = _digest(contradictions=_contradictions()[2:], as_of=D3)
    assert none.contradictions == ()
    assert "## Contradictions or Corrections\n\n- None detected.\n" in render(none)
    assert 'as_of: "2026-05-03"' in render(none)


def test_render_is_byte_identical_whatever_the_input_order() -> None:
    entries = _entries()
    first = render(_digest(entries, contradictions=_contradictions()))
    rng = random.Random(7)
    for _ in range(5):
        shuffled = [e.model_copy(update={"touches": tuple(rng.sample(e.touches, len(e.touches)))})
                    for e in rng.sample(entries, len(entries))]
        again = render(_digest(shuffled, contradictions=list(reversed(_contradictions()))))
        assert again.encode() == first.encode()


def test_render_follows_the_template() -> None:
    page = render(_digest())
    headings = [line for line in page.split("\n") if line.startswith("## ")]
    assert headings == ["## Child Entries", "## Key Outcomes", "## Cross-entry Themes",
                        "## Contradictions or Corrections", "## Child Pages", "## Related"]
    rows = [line for line in page.split("\n") if line.startswith("| 2026-")]
    assert [r.split(" | ")[0] for r in rows] == ["| 2026-05-03"] * 3 + ["| 2026-05-02"] * 3 \
        + ["| 2026-05-01"] * 3  # newest first
    assert page.startswith("---\ntype: fold\n") and page.endswith("\n")
    piped = entry(11, D1, "A | B", [("Key insight", "x|y 2×")], [])
    assert "| A \\| B | — | x\\|y 2× |" in render(build_digest([piped], base_seq=11))


def test_fold_of_two_folds_equals_the_fold_of_their_entries() -> None:
    entries = _entries()[:8]  # seq 11..18: two level-2 folds of 4
    left = build_digest(entries[:4], base_seq=11)
    right = build_digest(entries[4:], base_seq=14)  # D2 starts at seq 14
    assert right.child_keys[0] == "log-20260502-002"  # position within its own range
    both = fold_of_folds(right, left)  # order of arguments does not matter
    flat = build_digest(entries, base_seq=11)
    assert both.fold_id == flat.fold_id == "fold-k3-from-2026-05-01-to-2026-05-03-n8"
    for part in ("children", "outcomes", "themes", "dominant_themes", "child_pages",
                 "contradictions"):
        assert getattr(both, part) == getattr(flat, part), part
    assert both.child_keys[4] == "log-20260502-005"  # renumbered within the level-3 range
    assert both.child_folds == (left.fold_id, right.fold_id)
    assert f"Built from [[{left.fold_id}]] and [[{right.fold_id}]]." in render(both)
    assert "Fairness" not in {t.concept for t in left.themes}


def test_fold_of_folds_refuses_gaps_levels_and_partial_folds() -> None:
    entries = _entries()
    a = build_digest(entries[:2], base_seq=11)
    gap = build_digest(entries[3:5], base_seq=14)
    with pytest.raises(FoldError, match="not adjacent"):
        fold_of_folds(a, gap)
    with pytest.raises(FoldError, match="full level"):
        fold_of_folds(a, build_digest(entries[2:5], base_seq=11))
    with pytest.raises(FoldError, match="same date"):
        fold_of_folds(a, build_digest(entries[2:4], base_seq=11, as_of=D3))
    with pytest.raises(FoldError):
        build_digest([], base_seq=1)
