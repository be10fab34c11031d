"""Provenance after a log edit: a fact's `introduced_by` depends on the log entries touching its
page, so an entry added, changed or removed re-parses the pages it touches (and the claim
ledger), even when their files did not change; the incremental graph equals a clean one."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path
from random import Random

import neo4j
import pytest

from graph.ingest import ingest
from loaders.provenance import EntryTexts, changed_entries, newest_mentions
from loaders.records import LogEntry, LogTouch, TouchRole
from tests.log_edits import add_on_top, equals_clean, log_of
from tests.vaults import SHARED_EXAMPLE, S

PIPEDREAM = "@2019__SOSP__PipeDream Generalized Pipeline Parallelism for DNN Training"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    out = tmp_path / "vault"
    shutil.copytree(SHARED_EXAMPLE, out)
    return out


def _introduced_by(driver: neo4j.Driver, database: str) -> str | None:
    rows, _, _ = driver.execute_query(
        "MATCH (:Page {key: $child})-[r:BUILDS_ON {asserted_by: $child}]->() "
        "RETURN r.introduced_by AS by", child=PIPEDREAM, database_=database)
    return rows[0]["by"] if rows else None


def test_an_entry_touching_an_unchanged_page_re_attributes_its_facts(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    ingest(clean_db, neo4j_database, vault)
    before = _introduced_by(clean_db, neo4j_database)
    add_on_top(vault, "## [2026-06-23] lint | PipeDream の系譜を確認\n"
                       "- Pages updated: [[@2019__SOSP__PipeDream]]\n"
                       "- Key insight: PipeDream は GPipe の系譜 builds_on を持つ。\n")
    report = ingest(clean_db, neo4j_database, vault)
    assert report.parsed == 3  # the log, the page it touches, the claim ledger
    assert before != "log/2026-06-23/01" == _introduced_by(clean_db, neo4j_database)
    equals_clean(clean_db, neo4j_database, vault)


def test_a_log_whose_order_flips_renumbers_and_re_parses(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """A newer entry at the bottom of a newest-first log: read as oldest first now, every
    day's entries are numbered the other way."""
    ingest(clean_db, neo4j_database, vault)
    log = log_of(vault)
    log.write_text(log.read_text(encoding="utf-8") +
                   f"\n## [2026-12-05] ingest | X\n- Pages updated: [[{S['Ray']}]]\n",
                   encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    equals_clean(clean_db, neo4j_database, vault)


def test_an_entry_removed_from_a_folds_range_re_parses_the_fold(
        clean_db: neo4j.Driver, neo4j_database: str, vault: Path) -> None:
    """A fold page folds the entries of its range by position: when one of them goes, the
    fold's FOLDS are read again (they named the entries of a log that is no more)."""
    ingest(clean_db, neo4j_database, vault)
    log = log_of(vault)
    text = log.read_text(encoding="utf-8")
    start = text.rindex("## [2026-06-17]")  # the range's oldest: every later one moves up
    log.write_text(text[:start] + text[text.index("## [", start + 1):], encoding="utf-8")
    ingest(clean_db, neo4j_database, vault)
    equals_clean(clean_db, neo4j_database, vault)


def _entry(key: str, line: int, *pages: str) -> LogEntry:
    return LogEntry(key=key, date=dt.date(2026, 6, 17), op="lint", title="t", line=line, seq=1,
                    day_seq=1, text="words",
                    touches=tuple(LogTouch(page=p, name=p, role=TouchRole.UPDATED, offset=0)
                                  for p in pages))


def test_signatures_ignore_lines_and_see_touches() -> None:
    a, b = _entry("log/a", 10, "P"), _entry("log/b", 20, "Q")
    before = {e.key: e.signature for e in (a, b)}
    moved = [_entry("log/a", 15, "P"), _entry("log/b", 25, "Q")]  # an entry added above
    assert changed_entries(before, moved) == (set(), [])
    retouched = [a, _entry("log/b", 20, "Q", "R"), _entry("log/c", 1, "S")]
    gone, fresh = changed_entries(before, retouched)
    assert gone == {"log/b"} and [e.key for e in fresh] == ["log/b", "log/c"]
    assert changed_entries({"log/a": None}, [a]) == ({"log/a"}, [a])  # written before them


def test_newest_mentions_is_the_newest_entry_holding_each_id() -> None:
    """Against the plain definition (`id in text`, newest entry first), on random texts and
    ids: ASCII ids, ids inside other ids, ids with other characters, ids found nowhere."""
    rng = Random(5)
    alphabet = ["clm-", "a", "b", "1", "-", " ", "訂正", ".", "x"]
    entries = [LogEntry(key=f"log/{i}", date=dt.date(2026, 1, 1), op="lint", title="t",
                        line=i, seq=i, day_seq=i,
                        text="".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))))
               for i in range(300)]
    for _ in range(200):
        ids = {"".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
               for _ in range(rng.randint(0, 8))}
        expected = {}
        for i in ids:
            where = [p for p, e in enumerate(entries) if i in e.text]
            if where:
                expected[i] = where[-1]
        assert newest_mentions(EntryTexts(entries), ids) == expected
