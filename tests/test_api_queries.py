"""The GraphQL API over HTTP against a real Neo4j holding the example vault: lineage (with
provenance, year order, paths), search in Japanese and English, contradictions with evidence,
the log, lookups, Dataview-style filters, cursors and the Fold type."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any, LiteralString

import neo4j
import pytest

from queries import contradictions as contradiction_queries
from queries.base import GraphContext
from tests.api_server import Api, running, settings_for
from tests.db import TestDatabase
from tests.test_example_graph import LINEAGE
from tests.vaults import S

pytestmark = pytest.mark.integration

EDGE_FIELDS = """relation child { key } parent { key }
  provenance { mechanism line page { key } logEntry { key date } }"""


@pytest.fixture(scope="module")
def api(example_graph: object, test_database: TestDatabase) -> Iterator[Api]:
    with running(settings_for(test_database)) as base:
        yield Api(base)


def parents_of() -> dict[str, set[str]]:
    """The README's lineage table as child -> parents (full keys)."""
    out: dict[str, set[str]] = defaultdict(set)
    for child, parent in LINEAGE:
        out[S[child]].add(S[parent])
    return out


def ancestors(key: str) -> set[str]:
    graph, seen, todo = parents_of(), set(), [key]
    while todo:
        for parent in graph[todo.pop()]:
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


def simple_paths(child: str, parent: str, max_len: int) -> list[list[str]]:
    """Every simple child -> ... -> parent path in the README's table (the test's oracle)."""
    graph, found = parents_of(), []

    def walk(trail: list[str]) -> None:
        if trail[-1] == parent:
            found.append(trail)
            return
        if len(trail) > max_len:
            return
        for nxt in sorted(graph[trail[-1]]):
            if nxt not in trail:
                walk([*trail, nxt])

    walk([child])
    return found


def test_health_and_readiness(api: Api) -> None:
    assert api.http.get("/healthz").json() == {"status": "ok"}
    assert api.http.get("/readyz").json() == {"status": "ready"}


def test_ancestors_of_fftrainer_back_to_gpipe_in_year_order(api: Api) -> None:
    data = api.data("""query($from: String!) { lineage(from: $from) {
        root { key } truncated
        nodes { depth side page { key ... on Work { year } } }
        edges { """ + EDGE_FIELDS + " } } }", **{"from": "@2025__arXiv__FFTrainer"})["lineage"]
    assert data["root"]["key"] == S["FFTrainer"] and data["truncated"] is False
    keys = [n["page"]["key"] for n in data["nodes"]]
    # Year order; within a year, a work after the works it builds on: the arrow chain itself.
    assert keys == [S[k] for k in ("GPipe", "PipeDream", "Megatron", "ZeRO", "DeepSpeed",
                                   "SC21", "FSDP", "FP8", "FFTrainer")]
    years = [n["page"]["year"] for n in data["nodes"]]
    assert years == sorted(years) and years[0] == 2019 and years[-1] == 2025
    assert set(keys[:-1]) == ancestors(S["FFTrainer"])
    assert {n["side"] for n in data["nodes"][:-1]} == {"ANCESTOR"}
    assert data["nodes"][-1]["side"] == "ROOT" and data["nodes"][-1]["depth"] == 0
    # Edges: exactly the README's edges among these works, one per (child, parent).
    got = {(e["child"]["key"], e["parent"]["key"]) for e in data["edges"]}
    inside = set(keys)
    want = {(c, p) for c, ps in parents_of().items() for p in ps if c in inside and p in inside}
    assert got == want and len(got) == len(data["edges"]) == 17
    by_edge = {(e["child"]["key"], e["parent"]["key"]): e for e in data["edges"]}
    arrow = by_edge[(S["FFTrainer"], S["FP8"])]
    assert arrow["relation"] == "BUILDS_ON"
    assert [(p["mechanism"], p["page"]["key"], p["line"]) for p in arrow["provenance"]] == [
        ("arrow", "LLM分散学習", 45)]
    assert arrow["provenance"][0]["logEntry"]["key"].startswith("log/")
    both = by_edge[(S["Megatron"], S["PipeDream"])]
    assert sorted(p["mechanism"] for p in both["provenance"]) == ["arrow", "inline-line"]
    inline = next(p for p in both["provenance"] if p["mechanism"] == "inline-line")
    assert (inline["page"]["key"], inline["line"], inline["logEntry"]["key"]) == (
        S["Megatron"], 56, "log/2026-06-17/03")


def test_lineage_by_short_name_means_the_work(api: Api) -> None:
    """`FFTrainer` is also a product page's name; a lineage question means the paper."""
    data = api.data("""{ lineage(from: "FFTrainer") { root { key } nodes { page { key } } } }""")
    assert data["lineage"]["root"]["key"] == S["FFTrainer"]
    assert S["GPipe"] in {n["page"]["key"] for n in data["lineage"]["nodes"]}
    path = api.data("""{ lineagePath(from: "FP8-LM", to: "GPipe") {
        from { key } to { key } fromIsAncestor } }""")["lineagePath"]
    assert (path["from"]["key"], path["to"]["key"]) == (S["FP8"], S["GPipe"])
    assert path["fromIsAncestor"] is False



def test_a_lineage_of_a_work_takes_one_round_trip(api: Api) -> None:
    """A work's key: the work comes with its reach (its dates included); both directions add
    the other side's reach. `FFTrainer` is a product page's key: the paper it also names is
    found first (the named try, the page, the work by short name), then its reach."""
    query = """query($from: String!, $dir: LineageDirection!) {
        lineage(from: $from, direction: $dir) { root { key created updated } nodes { side } } }"""
    for name, direction, trips in ((S["FFTrainer"], "ANCESTORS", 1),
                                   (S["FFTrainer"], "DESCENDANTS", 1),
                                   (S["FFTrainer"], "BOTH", 2), ("FFTrainer", "ANCESTORS", 4)):
        body = api.post(query, **{"from": name, "dir": direction})
        assert not body.get("errors"), body.get("errors")
        assert body["extensions"]["cost"]["neo4jQueries"] == trips, direction
        root = body["data"]["lineage"]["root"]
        assert root["key"] == S["FFTrainer"] and root["created"] is not None
        assert [n["side"] for n in body["data"]["lineage"]["nodes"]].count("ROOT") == 1

def test_descendants_depth_bound_and_relation_filter(api: Api) -> None:
    q = """query($from: String!, $dir: LineageDirection!, $depth: Int!,
                 $rel: [LineageRelation!]) {
        lineage(from: $from, direction: $dir, maxDepth: $depth, relations: $rel) {
          truncated nodes { side page { key } } edges { child { key } parent { key } } } }"""
    down = api.data(q, **{"from": S["GPipe"], "dir": "DESCENDANTS", "depth": 10})["lineage"]
    found = {n["page"]["key"] for n in down["nodes"] if n["side"] == "DESCENDANT"}
    assert {S["FFTrainer"], S["PipeDream"], S["Titans"], S["Slides"]} <= found
    assert all(S["GPipe"] in ancestors(k) for k in found)
    one = api.data(q, **{"from": S["FFTrainer"], "dir": "ANCESTORS", "depth": 1})["lineage"]
    assert one["truncated"] is True
    assert {n["page"]["key"] for n in one["nodes"]} == {
        S["FFTrainer"], S["FP8"], S["SC21"], S["DeepSpeed"]}
    none = api.data(q, **{"from": S["FFTrainer"], "dir": "BOTH", "depth": 10,
                          "rel": ["EXTENDS"]})["lineage"]
    assert none["edges"] == [] and len(none["nodes"]) == 1
    # A cycle-free answer for a work in the middle, both ways.
    mid = api.data(q, **{"from": S["SC21"], "dir": "BOTH", "depth": 10})["lineage"]
    sides = {n["page"]["key"]: n["side"] for n in mid["nodes"]}
    assert sides[S["GPipe"]] == "ANCESTOR" and sides[S["FFTrainer"]] == "DESCENDANT"
    assert len(sides) == len(mid["nodes"])


def test_path_from_gpipe_to_fp8lm(api: Api) -> None:
    data = api.data("""query($from: String!) {
        lineagePath(from: $from, to: "@2023__arXiv__FP8-LM", first: 100) {
          from { key } to { key } fromIsAncestor truncated
          paths { length nodes { key } edges { child { key } parent { key }
                                               provenance { mechanism } } } } }""",
                    **{"from": "GPipe: Easy Scaling with Micro-Batch Pipeline Parallelism"})
    result = data["lineagePath"]
    assert result["from"]["key"] == S["GPipe"] and result["to"]["key"] == S["FP8"]
    assert result["fromIsAncestor"] is True and result["truncated"] is False
    paths = [[n["key"] for n in p["nodes"]] for p in result["paths"]]
    oracle = [list(reversed(p)) for p in simple_paths(S["FP8"], S["GPipe"], 10)]
    assert sorted(paths) == sorted(oracle) and len(paths) == 16
    lengths = [p["length"] for p in result["paths"]]
    assert lengths == sorted(lengths) and lengths[0] == 2
    assert paths[0] == [S["GPipe"], S["SC21"], S["FP8"]]
    assert [S[k] for k in ("GPipe", "PipeDream", "Megatron", "ZeRO", "DeepSpeed", "SC21",
                           "FSDP", "FP8")] in paths  # the arrow chain
    for p in result["paths"]:  # every edge joins consecutive nodes, child -> parent
        keys = [n["key"] for n in p["nodes"]]
        for i, e in enumerate(p["edges"]):
            assert (e["parent"]["key"], e["child"]["key"]) == (keys[i], keys[i + 1])
            assert e["provenance"]
    back = api.data("""{ lineagePath(from: "@2023__arXiv__FP8-LM", to: "@2019__NeurIPS__GPipe")
        { fromIsAncestor paths { nodes { key } } } }""")["lineagePath"]
    assert back["fromIsAncestor"] is False
    assert [n["key"] for n in back["paths"][0]["nodes"]] == [S["FP8"], S["SC21"], S["GPipe"]]
    unrelated = api.data("""{ lineagePath(from: "@2018__OSDI__Ray", to: "@2019__NeurIPS__GPipe")
        { fromIsAncestor paths { length } } }""")["lineagePath"]
    assert unrelated == {"fromIsAncestor": None, "paths": []}


def test_timeline_of_a_concept_is_in_year_order(api: Api) -> None:
    entries = api.data("""{ timeline(concept: "Tensor Parallelism") {
        year via work { key } } }""")["timeline"]
    keys = [e["work"]["key"] for e in entries]
    assert keys[:3] == [S["Megatron"], S["SC21"], S["MLSys"]] and S["APNet"] in keys
    years = [e["year"] for e in entries]
    assert years == sorted(years)


@pytest.mark.parametrize("text", ["テンソル並列", "tensor parallelism", "Tensor  Parallelism"])
def test_search_finds_the_concept_page(api: Api, text: str) -> None:
    hits = api.data("""query($t: String!) { search(text: $t, first: 5) {
        score nameMatch snippet page { key __typename } } }""", t=text)["search"]
    assert hits[0]["page"] == {"key": "テンソル並列", "__typename": "Concept"}
    assert hits[0]["nameMatch"] is True
    assert [h["score"] for h in hits[1:]] == sorted((h["score"] for h in hits[1:]), reverse=True)


def test_search_treats_text_as_words_not_syntax(api: Api) -> None:
    for text in ['"(((', "AND OR NOT", "title:* ~ ^2 \\", "ZeRO-3 [a TO b]"]:
        body = api.post("query($t: String!) { search(text: $t) { page { key } } }", t=text)
        assert "errors" not in body, (text, body)
    hits = api.data('{ search(text: "pipeline parallelism", kinds: [PAPER]) '
                    "{ page { key kind } } }")["search"]
    assert hits and {h["page"]["kind"] for h in hits} == {"PAPER"}
    assert hits[0]["page"]["key"] == S["GPipe"]


CONTRADICTION_FIELDS = """contradictionId kind status foundBy summary marked line known
  subject { key } page { key } pages { key } introducedBy { key }
  evidence { source line text page { key } }
  claims { claimId value unit metric text page { key } line assessment known }"""


def test_open_contradictions_with_evidence(api: Api) -> None:
    data = api.data("{ contradictions(status: OPEN, first: 50) { totalCount nodes { "
                    + CONTRADICTION_FIELDS + " } } }")["contradictions"]
    found = {(x["foundBy"], x["subject"]["key"]): x for x in data["nodes"]}
    assert set(found) == {("callout", S["FP8"]), ("ledger", S["FP8"]), ("numeric", "Mooncake")}
    assert {x["status"] for x in data["nodes"]} == {"OPEN"}
    detected = found[("numeric", "Mooncake")]
    assert detected["kind"] == "DETECTED" and detected["marked"] is False
    assert {c["value"] for c in detected["claims"]} == {1.75, 2.0}
    assert {c["metric"] for c in detected["claims"]} == {"ttft"}
    # Dated since both figures were on record: each value from its earliest statement.
    known: dict[float, list[str]] = {}
    for c in detected["claims"]:
        known.setdefault(c["value"], []).append(c["known"])
    assert all(all(dates) for dates in known.values())
    assert detected["known"] == max(min(dates) for dates in known.values())
    overview = [e for e in detected["evidence"] if e["source"] == "overview"]
    assert overview and overview[0]["line"] == 31 and "2 倍" in overview[0]["text"]
    assert overview[0]["page"]["key"] == "overview"
    assert any(e["source"] == S["Slides"] and "1.75" in e["text"] for e in detected["evidence"])
    assert {"overview", S["Slides"]} <= {p["key"] for p in detected["pages"]}
    callout = found[("callout", S["FP8"])]
    assert callout["kind"] == "EXPLICIT" and callout["line"] == 31
    assert callout["introducedBy"]["key"] == "log/2026-06-20/01"
    assert [e["line"] for e in callout["evidence"]][:1] == [31]
    ledger = found[("ledger", S["FP8"])]
    assert sorted(c["claimId"] for c in ledger["claims"]) == [
        "clm-fp8lm-v1-figures", "clm-fp8lm-v2-figures"]
    assert {c["assessment"] for c in ledger["claims"]} == {"contested"}
    assert data["totalCount"] is None  # not counted by this list


def test_evidence_shows_the_first_lines_asked_for_and_counts_them_all(
        api: Api, neo4j_driver: neo4j.Driver, neo4j_database: str) -> None:
    """`evidence(first:)` shows the first lines of the full list and `evidenceCount` counts
    them all, through `nodes`, `edges` and fragments; an alias without `first` still gets
    every line; the query layer reads only as many lines as asked for."""
    full = {x["contradictionId"]: x["evidence"] for x in api.data(
        "{ contradictions(first: 50) { nodes { contradictionId evidence { source line text } "
        "} } }")["contradictions"]["nodes"]}
    assert any(len(lines) > 1 for lines in full.values())
    shown = api.data(
        "query($n: Int) { contradictions(first: 50) { edges { node { contradictionId "
        "evidenceCount ...E } } } } "
        "fragment E on Contradiction { evidence(first: $n) { source line text } }",
        n=1)["contradictions"]["edges"]
    assert {e["node"]["contradictionId"]: (e["node"]["evidence"], e["node"]["evidenceCount"])
            for e in shown} == {i: (lines[:1], len(lines)) for i, lines in full.items()}
    both = api.data("{ contradictions(first: 50) { nodes { contradictionId "
                    "one: evidence(first: 1) { text } all: evidence { text } "
                    "none: evidence(first: 0) { text } } } }")["contradictions"]["nodes"]
    for x in both:
        lines = [{"text": e["text"]} for e in full[x["contradictionId"]]]
        assert (x["one"], x["all"], x["none"]) == (lines[:1], lines, [])
    bad = api.post("{ contradictions { nodes { evidence(first: -1) { text } } } }")
    assert bad["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "Traceback" not in str(bad)

    ctx = GraphContext(neo4j_driver, neo4j_database)
    for n in (0, 1, None):
        records = contradiction_queries.contradictions(ctx, first=50, with_claims=False,
                                                       evidence=n)
        assert {x.id: ([e.text for e in x.evidence], x.evidence_count) for x in records.items} \
            == {i: ([e["text"] for e in lines][:n], len(lines)) for i, lines in full.items()}


def test_page_keys_show_the_first_pages_asked_for_and_count_them_all(api: Api) -> None:
    """`pageKeys(first:)` and `pages(first:)` show the first of every page involved and
    `pageCount` counts them all; without `first`, all of them."""
    nodes = api.data(
        "query($n: Int) { contradictions(first: 50) { nodes { contradictionId pageCount "
        "all: pageKeys some: pageKeys(first: $n) pages(first: $n) { key } "
        "none: pageKeys(first: 0) } } }", n=1)["contradictions"]["nodes"]
    assert any(len(x["all"]) > 1 for x in nodes)
    for x in nodes:
        assert x["pageCount"] == len(x["all"]) >= 1
        assert (x["some"], [p["key"] for p in x["pages"]], x["none"]) == (x["all"][:1],) * 2 + ([],)
    for field in ("pageKeys(first: -1)", "pages(first: -2) { key }"):
        bad = api.post("{ contradictions { nodes { " + field + " } } }")
        assert bad["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
        assert "cannot be negative" in bad["errors"][0]["message"]


def test_claims_are_read_only_when_asked_and_in_one_round_trip(api: Api) -> None:
    """A list of contradictions reads no claims unless the query selects them; then all of the
    page's claims come in one more round trip, the same claims a direct read returns."""
    bare = api.post("{ contradictions(first: 50) { nodes { contradictionId } } }")
    full = api.post("{ contradictions(first: 50) { nodes { contradictionId "
                    "claims { claimId value } } } }")
    assert not bare.get("errors") and not full.get("errors")
    cost = (bare["extensions"]["cost"], full["extensions"]["cost"])
    assert cost[1]["neo4jQueries"] == cost[0]["neo4jQueries"] + 1
    nodes = full["data"]["contradictions"]["nodes"]
    assert len(nodes) >= 3 and sum(len(x["claims"]) for x in nodes) >= 4
    assert cost[1]["objects"] == cost[0]["objects"] + sum(len(x["claims"]) for x in nodes)
    by_id = {x["contradictionId"]: sorted(c["claimId"] for c in x["claims"]) for x in nodes}
    one = api.data("query($id: ID!) { node(id: $id) { ... on Contradiction { contradictionId "
                   "claims { claimId } } } }", id=api.data(
                       "{ contradictions(first: 1) { nodes { id } } }")["contradictions"][
                           "nodes"][0]["id"])["node"]
    assert sorted(c["claimId"] for c in one["claims"]) == by_id[one["contradictionId"]]


def test_contradiction_filters_and_cursor(api: Api) -> None:
    q = """query($s: String, $k: ContradictionKind, $st: ContradictionStatus, $after: String) {
        contradictions(subject: $s, kind: $k, status: $st, first: 2, after: $after) {
          pageInfo { hasNextPage endCursor } nodes { contradictionId status kind } } }"""
    mooncake = api.data(q, s="mooncake")["contradictions"]["nodes"]
    assert [x["kind"] for x in mooncake] == ["DETECTED"]
    resolved = api.data(q, st="RESOLVED", s="@2019__arXiv__Megatron-LM")["contradictions"]
    assert len(resolved["nodes"]) == 2 and {x["status"] for x in resolved["nodes"]} == {
        "RESOLVED"}
    seen: list[str] = []
    after = None
    while True:
        page = api.data(q, after=after)["contradictions"]
        seen += [x["contradictionId"] for x in page["nodes"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) == 5 and seen == sorted(seen)


def test_log_entries_by_range_op_and_cursor(api: Api) -> None:
    q = """query($from: Date, $to: Date, $op: String, $first: Int!, $after: String,
                 $newest: Boolean!) {
        logEntries(from: $from, to: $to, op: $op, first: $first, after: $after,
                   newestFirst: $newest) {
          pageInfo { hasNextPage endCursor }
          nodes { key date op title seq bullets { label line } touches { role page { key } } }
        } }"""
    fold_range = api.data(q, **{"from": "2026-06-17", "to": "2026-06-18", "first": 100,
                                "newest": False})["logEntries"]
    assert len(fold_range["nodes"]) == 16 and not fold_range["pageInfo"]["hasNextPage"]
    assert [e["seq"] for e in fold_range["nodes"]] == list(range(2, 18))
    lint = api.data(q, op="lint", first=10, newest=False)["logEntries"]["nodes"]
    assert [(e["date"], e["op"]) for e in lint] == [("2026-06-19", "lint")]
    assert len(api.data(q, op="ingest", first=100, newest=False)["logEntries"]["nodes"]) == 18
    first = api.data(q, first=5, newest=True)["logEntries"]
    second = api.data(q, first=5, newest=True, after=first["pageInfo"]["endCursor"])[
        "logEntries"]
    seqs = [e["seq"] for e in first["nodes"] + second["nodes"]]
    assert seqs == list(range(22, 12, -1))
    ray = fold_range["nodes"][0]
    assert ray["title"] == "Ray" and ray["bullets"][0]["label"] == "Source"
    assert {"summary", "created"} <= {t["role"] for t in ray["touches"]}


def test_page_lookup_by_stem_title_alias_and_node(api: Api) -> None:
    q = "query($k: String!) { page(key: $k) { id key __typename title } }"
    by_stem = api.data(q, k=S["FP8"])["page"]
    assert by_stem["__typename"] == "Paper"
    for name in ("@2023__arXiv__FP8-LM", "FP8-LM: Training FP8 Large Language Models",
                 "[[@2023__arXiv__FP8-LM|FP8-LM]]", "@2023__arxiv__fp8-lm"):
        assert api.data(q, k=name)["page"]["key"] == S["FP8"], name
    assert api.data(q, k="no such page")["page"] is None
    node = api.data("query($id: ID!) { node(id: $id) { id ... on Page { key } } }",
                    id=by_stem["id"])["node"]
    assert node == {"id": by_stem["id"], "key": S["FP8"]}
    ids = api.data("""{ logEntries(first: 1) { nodes { id key } }
        contradictions(first: 1) { nodes { id contradictionId claims { id claimId } } }
        venues { id name } }""")
    for obj, field in ((ids["logEntries"]["nodes"][0], "key"),
                       (ids["contradictions"]["nodes"][0], "contradictionId"),
                       (ids["venues"][0], "name")):
        got = api.data("""query($id: ID!) { node(id: $id) { id ... on LogEntry { key }
            ... on Contradiction { contradictionId } ... on Venue { name } } }""",
                       id=obj["id"])["node"]
        assert got[field] == obj[field]
    assert api.error_codes('{ node(id: "bm9wZQ") { id } }') == ["BAD_USER_INPUT"]


def all_pages(api: Api, field: str, args: str, sort: str = "",
              fields: str = "key title ... on Work { year }") -> list[dict[str, Any]]:
    """Walk a connection with small pages; check cursors neither skip nor repeat."""
    out: list[dict[str, Any]] = []
    after = None
    while True:
        q = (f"query($after: String) {{ {field}(first: 4, after: $after {args} {sort}) {{ "
             f"pageInfo {{ hasNextPage endCursor }} nodes {{ {fields} }} }} }}")
        page = api.data(q, after=after)[field]
        out += page["nodes"]
        if not page["pageInfo"]["hasNextPage"]:
            return out
        after = page["pageInfo"]["endCursor"]


def test_dataview_filters_sorting_and_cursors(api: Api) -> None:
    papers = all_pages(api, "papers", "", "sort: {field: YEAR, direction: DESC}")
    assert len(papers) == len({p["key"] for p in papers}) == 17
    years = [p["year"] for p in papers]
    assert years == sorted(years, reverse=True)
    titles = [p["title"].lower() for p in all_pages(api, "concepts", "", "sort: {field: TITLE}",
                                                        "key title")]
    assert titles == sorted(titles) and len(titles) == 25

    def keys(filter_: str, field: str = "pages") -> set[str]:
        return {p["key"] for p in all_pages(api, field, f", filter: {filter_}")}

    assert keys('{yearFrom: 2023, yearTo: 2023}', "papers") == {
        S[k] for k in ("FSDP", "MLSys", "FP8", "Paged")}
    assert keys('{venue: "osdi"}', "works") == {S["Ray"], S["HiveD"], S["DistServe"]}
    assert keys('{author: "Hao Zhang"}') == {S["DistServe"], S["Paged"]}
    assert keys('{concept: "テンソル並列"}') == {S["Megatron"], S["SC21"], S["MLSys"],
                                               S["APNet"]}
    assert keys('{author: "Hao Zhang", concept: "テンソル並列"}') == set()
    assert keys('{author: "Hao Zhang", yearFrom: 2024}') == {S["DistServe"]}
    assert keys('{concept: "テンソル並列", yearTo: 2020}') == {S["Megatron"]}
    assert keys('{author: "Nobody At All"}') == keys('{concept: "Nothing Here"}') == set()
    dangling = keys("{hasDangling: true}")
    assert S["ZeRO"] in dangling and "log" in dangling and len(dangling) == 2
    assert keys('{tag: "#パイプライン並列", kinds: [PAPER]}') >= {S["GPipe"], S["PipeDream"]}
    recent = keys('{updatedSince: "2026-06-21"}')
    assert S["Paged"] in recent and S["GPipe"] not in recent
    count = api.data('{ people(first: 1) { totalCount } pages(first: 1, filter: {kinds: '
                     "[ORGANIZATION, PRODUCT]}) { totalCount } }")
    assert count == {"people": {"totalCount": 27}, "pages": {"totalCount": 27}}
    assert api.error_codes("{ papers(filter: {yearFrom: 2024, yearTo: 2020}) { totalCount } }"
                           ) == ["BAD_USER_INPUT"]
    for bad_cursor in ("not a cursor", "eyJ4IjogMX0"):
        assert api.error_codes('query($a: String) { papers(after: $a) { totalCount } }',
                               a=bad_cursor) == ["BAD_USER_INPUT"]


def test_nested_types_fold_people_organizations(api: Api) -> None:
    fold = api.data("""{ folds { nodes { __typename foldId level entryCount rangeFrom rangeTo
        childKeys entries { key seq } } } }""")["folds"]["nodes"]
    assert len(fold) == 1 and fold[0]["__typename"] == "Fold"
    f = fold[0]
    assert (f["foldId"], f["level"], f["entryCount"], f["rangeFrom"], f["rangeTo"]) == (
        "fold-k4-from-2026-06-17-to-2026-06-18-n16", 4, 16, "2026-06-17", "2026-06-18")
    assert [e["seq"] for e in f["entries"]] == list(range(2, 18))
    paged = api.data("""query($k: String!) { page(key: $k) { ... on Paper {
        venue { name } concepts { key }
        authors { key affiliations { key } works { key } }
        buildsOn { parent { key } } builtUponBy { child { key } } } } }""",
                     k="@2023__SOSP__PagedAttention")["page"]
    assert paged["venue"] == {"name": "SOSP"}
    assert [a["key"] for a in paged["authors"]] == ["Woosuk Kwon", "Hao Zhang", "Ion Stoica"]
    hao = paged["authors"][1]
    assert hao["affiliations"] == [{"key": "UC San Diego"}]
    assert {w["key"] for w in hao["works"]} == {S["DistServe"], S["Paged"]}
    assert [e["parent"]["key"] for e in paged["buildsOn"]] == [S["Megatron"]]
    assert [e["child"]["key"] for e in paged["builtUponBy"]] == [S["DistServe"]]
    ising = api.data('{ page(key: "iSING Lab") { ... on Organization { partOf { key } } } }')
    assert ising["page"]["partOf"] == [{"key": "HKUST"}]
    hist = api.data('{ page(key: "ZeRO-Infinity") { key } '
                    'zero: page(key: "@2020__SC__ZeRO") { dangling history { role entry { key } '
                    "} linksTo { key } } }")
    assert hist["page"] is None
    assert hist["zero"]["dangling"] == ["ZeRO-Infinity"]
    assert hist["zero"]["history"][0]["role"] == "summary"


def _label_scan_rows(plan: dict[str, Any]) -> int:
    """Rows the plan's all-pages scans produced (PROFILE)."""
    own = plan.get("rows", 0) if plan["operatorType"].startswith("NodeByLabelScan") else 0
    return own + sum(_label_scan_rows(child) for child in plan.get("children", []))


@pytest.mark.parametrize("named", [{"author": "Hao Zhang"}, {"concept": "テンソル並列"}])
def test_a_filter_by_author_or_concept_reads_their_works_not_every_page(
        example_graph: object, neo4j_driver: neo4j.Driver, neo4j_database: str,
        named: dict[str, str]) -> None:
    from queries.pages import COUNT_PAGES, LIST_PAGES, PageFilter, SortField

    def scanned(where: PageFilter, query: LiteralString) -> int:
        params = {**where.params(), "nulls": None, "after_value": None, "after_key": None,
                  "limit": 5}
        with neo4j_driver.session(database=neo4j_database) as session:
            summary = session.run("PROFILE " + query, params).consume()
        assert summary.profile is not None
        return _label_scan_rows(summary.profile)

    for query in (LIST_PAGES[(SortField.YEAR, True)], COUNT_PAGES):
        assert scanned(PageFilter(**named), query) == 0
        assert scanned(PageFilter(year_from=2000), query) > 50  # the scan is there otherwise
