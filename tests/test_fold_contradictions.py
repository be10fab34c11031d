"""Which contradictions a fold reads (queries/folds.py `contradictions_touching`): those an
entry introduced, those whose subject is one of the pages, and those concerning one of the pages.
The query is three index seeks UNIONed; each path alone must find what it should, and a
contradiction reached by several comes once. Checked against the plain definition (a filter over
every contradiction) on a small vault and on the example vault. Real Neo4j."""

from __future__ import annotations

import datetime as dt
import json

import neo4j
import pytest

from graph.ingest import ingest
from queries import folds as q
from queries.base import GraphContext
from queries.contradictions import ContradictionRecord, contradictions
from tests import db as test_db
from tests.vaults import SHARED_EXAMPLE

pytestmark = pytest.mark.integration

LOG = """---
type: meta
title: "Operation Log"
---

# Operation Log

## [2026-01-02] lint | Index count fixed
- Pages updated: [[index]]
- Correction: the index listed five pages, not six.

## [2026-01-01] ingest | Alpha
- Summary: [[Alpha]]
- Key insight: Alpha is fast.
"""
DELTA = """---
type: concept
title: Delta
---

# Delta

> [!contradiction] Delta disagrees with Epsilon
> Epsilon reports a different number: [[Epsilon]].
"""
LEDGER = {"claims": [
    {"id": "c1", "claim": "Gamma is 5.", "subject": "[[Gamma]]", "pages": ["[[Beta]]"],
     "assessment": "contested", "contradicted_by": ["c2"]},
    {"id": "c2", "claim": "Gamma is 6.", "subject": "[[Gamma]]", "pages": ["[[Beta]]"],
     "assessment": "contested", "contradicted_by": []}]}
LEDGER_ID = "ledger:c1|c2"


def _page(name: str, kind: str = "concept") -> str:
    return f"---\ntype: {kind}\ntitle: {name}\n---\n\n# {name}\n\nAbout {name}.\n"


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory, neo4j_driver: neo4j.Driver,
          neo4j_database: str) -> GraphContext:
    wiki = tmp_path_factory.mktemp("touching") / "vault" / "wiki"
    (wiki / "meta" / "ledgers").mkdir(parents=True)
    (wiki / "log.md").write_text(LOG, encoding="utf-8")
    (wiki / "index.md").write_text(_page("index", "meta"), encoding="utf-8")
    (wiki / "Delta.md").write_text(DELTA, encoding="utf-8")
    for name in ("Alpha", "Beta", "Gamma", "Epsilon"):
        (wiki / f"{name}.md").write_text(_page(name), encoding="utf-8")
    (wiki / "meta" / "ledgers" / "claim-ledger.json").write_text(json.dumps(LEDGER),
                                                                   encoding="utf-8")
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, wiki.parent)
    return GraphContext(neo4j_driver, neo4j_database, timeout_s=60)


def _all(ctx: GraphContext) -> list[ContradictionRecord]:
    out: list[ContradictionRecord] = []
    after = None
    while True:
        page = contradictions(ctx, first=100, after=after)
        out += page.items
        if not page.has_next:
            return out
        after = page.cursors[-1]


def _expected(every: list[ContradictionRecord], entry_keys: list[str],
              pages: list[str]) -> list[str]:
    """The definition: introduced by one of the entries, or subject or a page among `pages`."""
    return sorted(x.id for x in every if x.introduced_by in entry_keys
                  or x.subject in pages or any(p in pages for p in x.pages))


def _ids(ctx: GraphContext, entry_keys: list[str], pages: list[str]) -> list[str]:
    return [x.id for x in q.contradictions_touching(ctx, entry_keys, pages)]


def test_each_path_alone_finds_its_contradiction(small: GraphContext) -> None:
    lint_entry = q.range_keys(small, dt.date(2026, 1, 2), dt.date(2026, 1, 2))
    assert len(lint_entry) == 1
    every = {x.id: x for x in _all(small)}
    lint = next(x for x in every.values() if x.origin == "lint")
    callout = next(x for x in every.values() if x.origin == "callout")
    # The shapes each path relies on (if ingest changes them, this test must change too).
    assert lint.introduced_by == lint_entry[0] and lint.pages == ["index"]
    assert every[LEDGER_ID].subject == "Gamma" and every[LEDGER_ID].pages == ["Beta"]
    assert callout.subject == "Delta" and callout.pages == ["Delta", "Epsilon"]
    assert len(every) == 3

    assert _ids(small, lint_entry, []) == [lint.id]  # introduced_by only
    assert _ids(small, [], ["Gamma"]) == [LEDGER_ID]  # subject only
    assert _ids(small, [], ["Epsilon"]) == [callout.id]  # pages only
    assert _ids(small, [], ["Beta"]) == [LEDGER_ID]  # pages only
    assert _ids(small, [], ["Alpha"]) == []
    assert _ids(small, [], []) == []


def test_a_contradiction_reached_by_every_path_comes_once(small: GraphContext) -> None:
    entry_keys = q.range_keys(small, dt.date(2026, 1, 1), dt.date(2026, 1, 2))
    pages = ["Alpha", "Beta", "Delta", "Epsilon", "Gamma", "index"]
    found = q.contradictions_touching(small, entry_keys, pages)
    ids = [x.id for x in found]
    assert ids == sorted(set(ids))
    assert ids == _expected(_all(small), entry_keys, pages)
    assert len(ids) == 3
    callout = next(x for x in found if x.origin == "callout")
    assert callout.pages == ("Delta", "Epsilon") and callout.subject == "Delta"


def test_matches_the_definition_on_the_example_vault(neo4j_driver: neo4j.Driver,
                                                     neo4j_database: str) -> None:
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)
    ctx = GraphContext(neo4j_driver, neo4j_database, timeout_s=60)
    every = _all(ctx)
    entries = q.range_keys(ctx, dt.date(1900, 1, 1), dt.date(2999, 12, 31))
    named = sorted({p for x in every for p in [*x.pages, x.subject] if p})
    # A fold asks only about keys of pages the graph has (links it could resolve).
    pages = [p for p, key in q.resolve_names(ctx, named).items() if key == p]
    assert entries and pages and len(every) >= 3
    introducing = sorted({x.introduced_by for x in every if x.introduced_by in entries})
    assert introducing  # the vault has contradictions introduced by log entries
    cases: list[tuple[list[str], list[str]]] = [(entries, []), ([], pages), (entries, pages)]
    cases += [([key], []) for key in introducing]
    cases += [([], [page]) for page in pages]
    cases += [(entries[i::7], pages[i::5]) for i in range(5)]
    for entry_keys, wanted in cases:
        assert _ids(ctx, entry_keys, wanted) == _expected(every, entry_keys, wanted), \
            (entry_keys, wanted)
