"""A changed log moves the facts of its unchanged entries instead of rewriting them
(`graph.log_update`): after any edit of the log the graph equals a clean ingest's, and an entry
added on top of a newest-first log writes that entry's facts only."""

from __future__ import annotations

import datetime as dt
import re
import shutil
from pathlib import Path
from random import Random

import neo4j
import pytest

from graph import log_update
from graph.ingest import ingest
from loaders.log_segments import LogState, reusable, segment_prints
from loaders.records import LogEntry, LogTouch, TouchRole
from queries.common import stored_bullets
from queries.log import ENTRY_PROJECTION, PAGE_HISTORY, TOUCHES, LogEntryRecord, TouchRecord
from tests.log_edits import add_on_top, equals_clean, log_of
from tests.vaults import ENGLISH_LAB, SHARED_EXAMPLE, S

LOG_FACTS = (
    "CALL () { MATCH ()-[r]->() WHERE r.asserted_by = 'log' RETURN count(r) AS rels } "
    "CALL () { MATCH (c:Claim|Contradiction) WHERE c.asserted_by = 'log' "
    "          RETURN count(c) AS nodes } "
    "RETURN rels + nodes AS n")


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    out = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, out)
    return out


def _count(driver: neo4j.Driver, database: str, query: str) -> int:
    rows, _, _ = driver.execute_query(query, database_=database)
    return int(rows[0]["n"])


NEW_ENTRY = ("## [2026-06-23] ingest-paper | Megatron の再確認\n"
             f"- Summary: [[{S['SC21']}]]\n"
             "- Pages updated: [[PTD-P]], [[NVIDIA]]\n"
             "- Key insight: PTD-P は 3072 GPU で 52% の利用率、スループット 502 PFLOP/s。\n\n")


PROBE = (  # marks the log's facts as they are now: a fact moved keeps its mark
    "CALL () { MATCH ()-[r]->() WHERE r.asserted_by = 'log' SET r.probe = true } "
    "CALL () { MATCH (e:LogEntry)-[t:TOUCHES]->() SET t.probe = true } "
    "CALL () { MATCH (c:Claim|Contradiction|LogEntry) WHERE c.asserted_by = 'log' "
    "          SET c.probe = true }")
PROBED = (
    "CALL () { MATCH ()-[r {probe: true}]->() REMOVE r.probe RETURN count(r) AS rels } "
    "CALL () { MATCH (c {probe: true}) REMOVE c.probe RETURN count(c) AS nodes } "
    "RETURN rels + nodes AS n")


def test_an_entry_on_top_writes_its_own_facts_and_moves_the_rest(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    ingest(clean_db, neo4j_database, vault)
    log_facts = _count(clean_db, neo4j_database, LOG_FACTS)
    clean_db.execute_query(PROBE, database_=neo4j_database)
    marked = _count(clean_db, neo4j_database,
                    "CALL () { MATCH ()-[r {probe: true}]->() RETURN count(r) AS rels } "
                    "CALL () { MATCH (n {probe: true}) RETURN count(n) AS nodes } "
                    "RETURN rels + nodes AS n")
    add_on_top(vault, NEW_ENTRY)
    report = ingest(clean_db, neo4j_database, vault)
    lines = log_of(vault).read_text(encoding="utf-8").count("\n")
    assert report.changed and lines - 40 < report.log_lines_moved < lines
    # The other 22 entries' facts stay where they are, renumbered; only the preamble's few
    # (frontmatter and navigation links) are written again. Rewritten whole, none would stay.
    kept = _count(clean_db, neo4j_database, PROBED)
    assert log_facts > 200 and marked - 12 <= kept < marked
    assert _count(clean_db, neo4j_database, LOG_FACTS) > log_facts
    rows, _, _ = clean_db.execute_query(
        "MATCH (e:LogEntry {key: 'log/2026-06-22/01'}) RETURN " + ENTRY_PROJECTION + " AS e",
        database_=neo4j_database)
    moved = LogEntryRecord.from_row(rows[0]["e"])
    assert moved.line == 26 + 1 + NEW_ENTRY.count("\n")  # `add_on_top` adds a line
    text = log_of(vault).read_text(encoding="utf-8").split("\n")
    assert moved.bullets and all(text[b.line - 1].startswith(f"- {b.label}")
                                 for b in moved.bullets if b.line)
    # Its touches (stored as offsets from the entry, not moved) read as their lines now.
    rows, _, _ = clean_db.execute_query(TOUCHES, keys=[moved.key], database_=neo4j_database)
    touches = [TouchRecord.model_validate(t) for t in rows[0]["rows"][0]["touches"]]
    assert touches and all(t.line and moved.line < t.line <= moved.line + len(moved.bullets)
                           and "[[" in text[t.line - 1] for t in touches)
    rows, _, _ = clean_db.execute_query(PAGE_HISTORY, keys=[S["SC21"]], database_=neo4j_database)
    summary = text.index(NEW_ENTRY.split("\n")[0]) + 2  # the new entry's Summary, 1-based
    assert [i["line"] for i in rows[0]["rows"][0]["items"]][-1] == summary
    equals_clean(clean_db, neo4j_database, vault)


def test_moved_claims_keep_their_conflicts(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """A figure in an old entry that disagrees with a page: its claim moves, and the detected
    conflict lists its new id and line."""
    log = log_of(vault)
    text = log.read_text(encoding="utf-8")
    text = text.replace("- Key insight: KV キャッシュを OS",
                        "- Benchmark: [[Megatron-LM]] のスループットは 9.9 倍。\n"
                        "- Key insight: KV キャッシュを OS", 1)
    log.write_text(text, encoding="utf-8")
    page = vault / "wiki" / "entities" / "Megatron-LM.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nスループットは 1.5 倍。\n",
                    encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    involving = ("MATCH (x:Contradiction {kind: 'detected'})-[:INVOLVES]->(c:Claim) "
                 "WHERE c.asserted_by = 'log' RETURN x.evidence AS evidence")
    before, _, _ = clean_db.execute_query(involving, database_=neo4j_database)
    assert before, "the log's figure should conflict with the page's"
    add_on_top(vault, NEW_ENTRY)
    ingest(clean_db, neo4j_database, vault)
    after, _, _ = clean_db.execute_query(involving, database_=neo4j_database)
    assert [r["evidence"] for r in after] != [r["evidence"] for r in before]
    equals_clean(clean_db, neo4j_database, vault)


@pytest.mark.parametrize("renames", ["in order", "through moving ids"])
def test_a_moved_claim_may_take_the_id_another_one_held(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path, renames: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two entries alike, line for line: moved down by one entry's length, the upper one's
    claim takes the id (page, line, subject, metric, value) the lower one's had. Both ways of
    renaming (the second is taken when lines move both ways)."""
    if renames != "in order":
        monkeypatch.setattr(log_update, "one_way", lambda deltas: False)
    def alike(day: int) -> str:
        return (f"## [2026-07-{day:02d}] lint | 確認\n"
                f"- Pages updated: [[{S['Ray']}]]\n"
                f"- Key insight: [[{S['Ray']}]] のスループットは 3 倍。\n\n")

    add_on_top(vault, alike(1))
    add_on_top(vault, alike(2))
    ingest(clean_db, neo4j_database, vault)
    claims = "MATCH (c:Claim) WHERE c.asserted_by = 'log' AND c.text CONTAINS 'は 3 倍' " \
        "RETURN c.line AS line ORDER BY line"
    before = [r["line"] for r in clean_db.execute_query(claims, database_=neo4j_database)[0]]
    add_on_top(vault, alike(3))  # five lines: each entry moves onto the next one's lines
    ingest(clean_db, neo4j_database, vault)
    after = [r["line"] for r in clean_db.execute_query(claims, database_=neo4j_database)[0]]
    assert len(before) == 2 and after[1:] == [line + 5 for line in before]
    assert after[1] == before[1]  # the upper claim now stands where the lower one stood
    equals_clean(clean_db, neo4j_database, vault)


def test_entries_that_swap_places_reorder_their_conflicts(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """Two entries with figures in one conflict swap places: the conflict lists its claims
    and evidence in the new line order (moved in place, they would keep the old one)."""
    def figure(day: int, value: str) -> str:
        return (f"## [2026-07-{day:02d}] lint | 確認 {day}\n"
                f"- Key insight: [[Megatron-LM]] のスループットは {value} 倍。\n\n")

    page = vault / "wiki" / "entities" / "Megatron-LM.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nスループットは 1.5 倍。\n",
                    encoding="utf-8")
    add_on_top(vault, figure(1, "9.9"))
    add_on_top(vault, figure(2, "8.8"))
    ingest(clean_db, neo4j_database, vault)
    evidence = ("MATCH (x:Contradiction {kind: 'detected'})-[:INVOLVES]->(c:Claim) "
                "WHERE c.asserted_by = 'log' AND c.text CONTAINS 'は 8.8 倍' "
                "RETURN x.evidence AS evidence")
    before = clean_db.execute_query(evidence, database_=neo4j_database)[0][0]["evidence"]
    log = log_of(vault)
    text = log.read_text(encoding="utf-8")
    one, two = figure(1, "9.9"), figure(2, "8.8")
    log.write_text(text.replace(two + "\n" + one, one + "\n" + two, 1), encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    after = clean_db.execute_query(evidence, database_=neo4j_database)[0][0]["evidence"]
    def of_log(lines: list[str]) -> list[str]:
        return [e.split(": ", 1)[1] for e in lines if e.startswith("log:")]

    assert len(of_log(before)) == 2 and of_log(after) == of_log(before)[::-1]
    equals_clean(clean_db, neo4j_database, vault)


def _entries(text: str) -> list[tuple[int, int]]:
    """(start, end) character spans of the log's heading entries."""
    starts = [m.start() for m in re.finditer(r"^## \[", text, re.M)]
    return [(s, starts[i + 1] if i + 1 < len(starts) else len(text))
            for i, s in enumerate(starts)]


def _random_edit(text: str, rng: Random, n: int) -> str:
    spans = _entries(text)
    start, end = spans[rng.randrange(len(spans))]
    choice = rng.randrange(7)
    if choice == 0:  # a new entry on top
        return text[:spans[0][0]] + NEW_ENTRY.replace("2026-06-23", f"2026-07-{n % 28 + 1:02d}") \
            + text[spans[0][0]:]
    if choice == 1:  # an entry removed
        return text[:start] + text[end:]
    if choice == 2:  # a bullet added to an entry, with a figure and a link
        return text[:end] + f"- Note {n}: [[{S['Ray']}]] のスループットは 3.{n} 倍。\n" + text[end:]
    if choice == 3:  # a word changed inside an entry
        return text[:start] + text[start:end].replace("の", "の 、", 1) + text[end:]
    if choice == 4:  # lines added to the preamble
        return text.replace("Append-only.", "Append-only.\n\nNew entries on top.\n", 1)
    if choice == 5:  # two entries swap places
        if len(spans) < 2:
            return text
        (a0, a1), (b0, b1) = spans[0], spans[1]
        return text[:a0] + text[b0:b1] + text[a0:a1] + text[b1:]
    # an entry's title changed (its key stays, its words do not)
    return text[:start] + re.sub(r"\| (.*)", rf"| \1 ({n})", text[start:end], count=1) \
        + text[end:]


@pytest.mark.parametrize("max_runs", [log_update.MAX_RUNS, 0])
def test_random_log_edits_give_the_clean_graph(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path, max_runs: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Also with the moves sent line by line (past `MAX_RUNS` runs) instead of as runs."""
    monkeypatch.setattr(log_update, "MAX_RUNS", max_runs)
    rng = Random(20261206)
    ingest(clean_db, neo4j_database, vault)
    log = log_of(vault)
    for n in range(8):
        log.write_text(_random_edit(log.read_text(encoding="utf-8"), rng, n), encoding="utf-8")
        ingest(clean_db, neo4j_database, vault)
        equals_clean(clean_db, neo4j_database, vault, f"edit {n}")


def test_a_new_page_re_parses_the_entries_that_name_it(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """`[[Alpa]]` in an old entry dangles until a page Alpa is made: that entry's lines are
    parsed again (its print is unchanged, a name in it is not), the others are moved."""
    ingest(clean_db, neo4j_database, vault)
    (vault / "wiki" / "entities" / "Alpa.md").write_text(
        "---\ntype: entity\nentity_type: product\ntitle: Alpa\n---\n# Alpa\n", encoding="utf-8")
    add_on_top(vault, NEW_ENTRY)
    ingest(clean_db, neo4j_database, vault)
    rows, _, _ = clean_db.execute_query(
        "MATCH (:LogEntry {key: 'log/2026-06-22/01'})-[t:TOUCHES]->(n) WHERE t.role = 'deferred' "
        "RETURN labels(n) AS labels", database_=neo4j_database)
    assert [r["labels"] for r in rows] == [["Page", "Product"]]
    equals_clean(clean_db, neo4j_database, vault)


POOL = (
    "## [2026-07-{d:02d}] lint | Fuzz {n}",
    "- Pages updated: [[{page}]]",
    "- Key insight: [[{page}]] のスループットは {n}.5 倍。",
    "- Key insight: [[{page}]] throughput is {n}.5x higher than [[{other}]].",
    "- 2026-07-{d:02d} — note — checked [[{page}]] {n}",
    "  - Pages updated: [[{other}]]",
    "### Notes {n}",
    "> [!contradiction] [[{page}]] vs [[{other}]]",
    "> [[{page}]] builds_on [[{other}]] ^fuzz-{n}",
    "- Correction: [[{page}]] stated {n}% before",
    "",
)


def _fuzz(lines: list[str], rng: Random, n: int, pages: list[str]) -> list[str]:
    """One random line inserted, removed or replaced in the body (past the frontmatter)."""
    body = lines.index("---", 1) + 1
    at = rng.randrange(body, len(lines) + 1)
    line = rng.choice(POOL).format(d=rng.randrange(1, 29), n=n, page=rng.choice(pages),
                                   other=rng.choice(pages))
    choice = rng.randrange(4)
    if choice == 0 and at < len(lines):
        return lines[:at] + lines[at + 1:]
    if choice == 1 and at < len(lines):
        return [*lines[:at], line, *lines[at + 1:]]
    return [*lines[:at], line, *lines[at:]]


@pytest.mark.parametrize("which", ["shared", "english-lab"])
def test_fuzzed_logs_give_the_clean_graph(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path, which: str) -> None:
    """Random lines (entries of both styles, bullets, figures, headings, callouts, block ids,
    corrections) inserted, removed and replaced anywhere in the log; after each ingest the
    graph is a clean ingest's."""
    vault = tmp_path / which
    shutil.copytree(SHARED_EXAMPLE if which == "shared" else ENGLISH_LAB, vault)
    pages = sorted(p.stem for p in (vault / "wiki").rglob("*.md"))[:40]
    rng = Random(which)
    ingest(clean_db, neo4j_database, vault)
    log = log_of(vault)
    for n in range(10):
        lines = log.read_text(encoding="utf-8").split("\n")
        for _ in range(rng.randrange(1, 4)):
            lines = _fuzz(lines, rng, n, pages)
        log.write_text("\n".join(lines), encoding="utf-8")
        ingest(clean_db, neo4j_database, vault)
        equals_clean(clean_db, neo4j_database, vault, f"edit {n}")


def test_a_graph_without_prints_rewrites_the_log(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """Entries written before prints existed: the log is rewritten whole once, and prints are
    written for the next edit."""
    ingest(clean_db, neo4j_database, vault)
    clean_db.execute_query("MATCH (e:LogEntry) REMOVE e.segment_print", database_=neo4j_database)
    clean_db.execute_query(PROBE, database_=neo4j_database)
    add_on_top(vault, NEW_ENTRY)
    ingest(clean_db, neo4j_database, vault)
    assert _count(clean_db, neo4j_database, PROBED) == 0  # every fact written again
    assert _count(clean_db, neo4j_database, "MATCH (e:LogEntry) WHERE e.segment_print IS NOT "
                  "NULL RETURN count(e) AS n") == 23
    equals_clean(clean_db, neo4j_database, vault)


def _entry(line: int, page: str | None = "A", style: str = "heading") -> LogEntry:
    return LogEntry(key="log/2026-06-17/01", date=dt.date(2026, 6, 17), op="lint", title="t",
                    line=line, seq=1, day_seq=1, style=style,
                    touches=(LogTouch(page=page, name="A", role=TouchRole.UPDATED, offset=1),))


BODY = ["## [2026-06-17] lint | t", "- Pages updated: [[A]]"]


def test_a_segment_print_ignores_where_the_entry_stands() -> None:
    at_3 = segment_prints([_entry(3)], ["x", "y", *BODY], 1)
    at_9 = segment_prints([_entry(9)], [*(["x"] * 8), *BODY], 1)
    assert (at_3[0].start, at_3[0].end, at_9[0].start, at_9[0].end) == (3, 4, 9, 10)
    assert at_3[0].print == at_9[0].print
    worded = segment_prints([_entry(9)], [*(["x"] * 8), BODY[0], BODY[1] + " "], 1)
    dangling = segment_prints([_entry(9, page=None)], [*(["x"] * 8), *BODY], 1)
    assert len({at_9[0].print, worded[0].print, dangling[0].print}) == 3


def test_a_bullet_entry_print_holds_the_section_it_opens_in() -> None:
    bullet = ["- 2026-06-17 — lint — t", "  - Pages updated: [[A]]"]
    july = segment_prints([_entry(3, style="bullet")], ["## July", "", *bullet], 1)
    june = segment_prints([_entry(3, style="bullet")], ["## June", "", *bullet], 1)
    assert july[0].print != june[0].print


def test_reusable_needs_the_same_context_and_no_changed_name() -> None:
    lines = [*(["x"] * 8), *BODY]
    now = segment_prints([_entry(9)], lines, 1)
    state = LogState("ctx", {"log/2026-06-17/01": (3, now[0].print)})
    assert reusable(now, "ctx", state, lines, set())[0].old_start == 3
    assert reusable(now, "other", state, lines, set())[0].old_start is None
    assert reusable(now, "ctx", state, lines, {"a"})[0].old_start is None  # [[A]] is in it
    assert reusable(now, "ctx", state, lines, {"zz"})[0].old_start == 3


def test_stored_bullets_read_offsets_and_older_lines() -> None:
    assert stored_bullets(['{"label": "a", "text": "t", "offset": 2}',
                           '{"label": "b", "text": "u", "line": 9}'], 40) == [
        {"label": "a", "text": "t", "line": 42}, {"label": "b", "text": "u", "line": 9}]


def test_touches_read_offsets_and_older_lines(
        clean_db: neo4j.Driver, neo4j_database: str) -> None:
    """A touch stores its line as an offset from its entry's; a graph written before stored
    the line itself. Both read as the line."""
    clean_db.execute_query(
        "CREATE (e:LogEntry {key: 'log/x', line: 40})-[:TOUCHES {role: 'source', offset: 2}]->"
        "(:Page {key: 'a'}), (e)-[:TOUCHES {role: 'updated', line: 9}]->(:Page {key: 'b'})",
        database_=neo4j_database)
    rows, _, _ = clean_db.execute_query(TOUCHES, keys=["log/x"], database_=neo4j_database)
    touches = rows[0]["rows"][0]["touches"]
    assert [(t["page"], t["line"]) for t in touches] == [("b", 9), ("a", 42)]


def test_a_graph_with_the_log_body_indexed_is_rewritten_to_entries(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A graph written before the log's entries were indexed one by one (its body in `body`,
    in the index of bodies; entries without `search_text`) still finds the log; the next
    change of the log rewrites it whole (its format changed), so every entry is searchable and
    the body is no longer in the index of bodies."""
    from loaders import log_segments
    from queries.base import GraphContext
    from queries.search import search

    with monkeypatch.context() as before:
        before.setattr(log_segments, "LOG_FORMAT", "entry-offsets")  # the format it had
        ingest(clean_db, neo4j_database, vault)
    entries = _count(clean_db, neo4j_database, "MATCH (e:LogEntry) RETURN count(e) AS n")
    clean_db.execute_query(
        "MATCH (p:Page) WHERE p.log_body IS NOT NULL SET p.body = p.log_body REMOVE p.log_body "
        "WITH 1 AS done MATCH (e:LogEntry) REMOVE e.search_text", database_=neo4j_database)
    ctx = GraphContext(clean_db, neo4j_database)
    word = "Key insight"
    assert any(h.page.key == "log" for h in search(ctx, word, 30))  # through `page_text`
    add_on_top(vault, NEW_ENTRY)
    ingest(clean_db, neo4j_database, vault)
    assert _count(clean_db, neo4j_database, "MATCH (p:Page) WHERE p.log_body IS NOT NULL "
                  "AND p.body IS NULL RETURN count(p) AS n") == 1
    assert _count(clean_db, neo4j_database, "MATCH (e:LogEntry) WHERE e.search_text IS NULL "
                  "RETURN count(e) AS n") == 0 < entries
    assert any(h.page.key == "log" for h in search(ctx, word, 30))
    equals_clean(clean_db, neo4j_database, vault)
