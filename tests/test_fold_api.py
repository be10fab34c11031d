"""The fold fields of the GraphQL API over HTTP, on the example vault (read-only)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import neo4j
import pytest

from queries import fold_resolver as resolver
from queries.base import GraphContext
from queries.fold_render import render
from tests.api_server import Api, running, settings_for
from tests.db import TestDatabase
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration

FOLD_ID = "fold-k4-from-2026-06-17-to-2026-06-18-n16"
DIGEST = """foldId level entryCount rangeFrom rangeTo asOf childKeys markdown
  children { childKey date op title summary pages { link key state page { key } }
             entry { key seq } }
  outcomes { text childKey numbers }
  themes { concept support } dominantThemes
  contradictions { id subject timing date affects }
  childPages { key state } related { target note }"""


@pytest.fixture(scope="module")
def api(example_graph: object, test_database: TestDatabase) -> Iterator[Api]:
    with running(settings_for(test_database)) as base:
        yield Api(base)


def test_fold_field_matches_the_resolver(api: Api, neo4j_driver: neo4j.Driver,
                                         neo4j_database: str) -> None:
    data = api.data(f"""query {{ fold(from: "2026-06-17", to: "2026-06-18") {{ {DIGEST} }} }}""")
    fold = data["fold"]
    assert fold["foldId"] == FOLD_ID and fold["entryCount"] == 16 and fold["asOf"] is None
    assert fold["children"][2]["childKey"] == "log-20260617-003"
    assert fold["children"][2]["entry"]["key"] == "log/2026-06-17/03"
    assert fold["children"][2]["pages"][0]["page"]["key"] == S["Megatron"]
    assert {x["timing"] for x in fold["contradictions"]} == {"later"}
    ctx = GraphContext(neo4j_driver, neo4j_database)
    expected = render(resolver.fold_range(ctx, dt.date(2026, 6, 17), dt.date(2026, 6, 18)))
    assert fold["markdown"] == expected


def test_as_of_and_other_ranges(api: Api) -> None:
    data = api.data("""query {
      asOf: fold(from: "2026-06-17", to: "2026-06-18", asOf: "2026-06-18") {
        contradictions { id } markdown }
      ending: foldEnding(level: 4, ending: "2026-06-18") { foldId }
      folds: foldsByLevel(level: 4) { key foldId level entryCount entries { key } }
      none: foldsByLevel(level: 5) { key }
    }""")
    assert data["asOf"]["contradictions"] == []
    assert "- None detected." in data["asOf"]["markdown"]
    assert data["ending"]["foldId"] == FOLD_ID
    [fold] = data["folds"]
    assert fold["foldId"] == FOLD_ID and len(fold["entries"]) == 16
    assert data["none"] == []


def test_check_fold_field(api: Api) -> None:
    hand = (SHARED_EXAMPLE / "wiki" / "folds" / f"{FOLD_ID}.md").read_text(encoding="utf-8")
    query = """query($md: String!) { checkFold(markdown: $md) {
        ok foldId checks { name ok problems } } }"""
    good = api.data(query, md=hand)["checkFold"]
    assert good["ok"] and good["foldId"] == FOLD_ID
    bad = api.data(query, md=hand.replace("JCT 1.6 倍改善", "JCT 2.6 倍改善"))["checkFold"]
    assert not bad["ok"]
    assert [c["name"] for c in bad["checks"] if not c["ok"]] == ["numeric_traceability"]


def test_bad_fold_requests_have_codes(api: Api) -> None:
    assert api.error_codes(
        'query { fold(from: "2026-06-18", to: "2026-06-17") { foldId } }') == ["BAD_USER_INPUT"]
    assert api.error_codes(
        'query { fold(from: "2030-01-01", to: "2030-01-02") { foldId } }') == ["NOT_FOUND"]
    assert api.error_codes(
        'query { foldEnding(level: 5, ending: "2026-06-18") { foldId } }') == ["BAD_USER_INPUT"]
    assert api.error_codes(f'query {{ foldOfFolds(left: "{FOLD_ID}", right: "{FOLD_ID}") '
                           '{ foldId } }') == ["BAD_USER_INPUT"]
