"""The example vault's graph says exactly what ../shared/vaults/README.md says it must: counts,
lineage with provenance, contradictions (including the unmarked numeric one), dangling links,
authors and affiliations. Against a real Neo4j."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any, LiteralString

import neo4j
import pytest

from graph.ingest import IngestReport, ingest
from tests import db as test_db
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration

# The 25 edges of README's lineage table: (child, parent) -> mechanisms asserting it.
LINEAGE: dict[tuple[str, str], list[str]] = {
    ("PipeDream", "GPipe"): ["arrow", "prose"],
    ("Megatron", "PipeDream"): ["arrow", "inline-line"],
    ("ZeRO", "Megatron"): ["arrow", "frontmatter"],
    ("DeepSpeed", "ZeRO"): ["arrow", "inline-line"],
    ("SC21", "DeepSpeed"): ["arrow", "frontmatter"],
    ("FSDP", "SC21"): ["arrow", "prose"],
    ("FP8", "FSDP"): ["arrow"],
    ("FFTrainer", "FP8"): ["arrow"],
    ("Megatron", "GPipe"): ["prose"],
    ("SC21", "Megatron"): ["frontmatter"],
    ("SC21", "PipeDream"): ["frontmatter"],
    ("SC21", "GPipe"): ["frontmatter"],
    ("MLSys", "SC21"): ["inline-line"],
    ("MLSys", "GPipe"): ["prose"],
    ("FSDP", "ZeRO"): ["frontmatter"],
    ("FP8", "SC21"): ["inline-line"],
    ("FP8", "ZeRO"): ["inline-line"],
    ("FFTrainer", "SC21"): ["frontmatter"],
    ("FFTrainer", "DeepSpeed"): ["frontmatter"],
    ("APNet", "SC21"): ["inline-bracket"],
    ("Cassini", "HiveD"): ["prose"],
    ("DistServe", "Paged"): ["frontmatter", "prose"],
    ("Titans", "DistServe"): ["prose"],
    ("Slides", "DistServe"): ["prose"],
    ("Paged", "Megatron"): ["prose"],
}


@pytest.fixture(scope="module")
def example(neo4j_driver: neo4j.Driver, neo4j_database: str) -> Iterator[IngestReport]:
    test_db.wipe(neo4j_driver, neo4j_database)
    yield ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)


def rows(driver: neo4j.Driver, database: str, query: LiteralString,
         **params: Any) -> list[dict[str, Any]]:
    records, _, _ = driver.execute_query(query, params, database_=database)
    return [r.data() for r in records]


def test_counts_match_the_vault_readme(example: IngestReport) -> None:
    assert (example.pages, example.links, example.dangling, example.log_entries) == (
        102, 1316, 2, 22)
    assert example.problems == [] and example.skipped == []


def test_page_kinds(example: IngestReport, neo4j_driver: neo4j.Driver,
                    neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (p:Page) WHERE p.path ENDS WITH '.md' RETURN p.kind AS kind, count(*) AS n")
    kinds = {r["kind"]: r["n"] for r in found}
    assert kinds == {"Paper": 17, "Source": 1, "Person": 27, "Organization": 13,
                     "Product": 14, "Concept": 25, "Fold": 1, "Meta": 4}
    papers = rows(neo4j_driver, neo4j_database,
                  "MATCH (p:Paper)-[:PUBLISHED_IN]->(v:Venue) RETURN p.key AS key, p.year AS "
                  "year, v.name AS venue")
    by_key = {r["key"]: (r["year"], r["venue"]) for r in papers}
    assert by_key[S["DistServe"]] == (2024, "OSDI")
    assert by_key[S["Megatron"]] == (2019, "arXiv")


def test_second_run_changes_nothing(example: IngestReport, neo4j_driver: neo4j.Driver,
                                    neo4j_database: str) -> None:
    again = ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)
    assert not again.changed
    assert again.parsed == 0
    assert (again.nodes, again.relationships) == (example.nodes, example.relationships)


def test_lineage_edges_and_assertions(example: IngestReport, neo4j_driver: neo4j.Driver,
                                      neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (c:Page)-[r:BUILDS_ON]->(p:Page) RETURN c.key AS child, p.key AS parent, "
                 "r.mechanism AS mechanism, r.page AS page, r.line AS line")
    short = {v: k for k, v in S.items()}
    got: dict[tuple[str, str], list[str]] = {}
    for r in found:
        got.setdefault((short[r["child"]], short[r["parent"]]), []).append(r["mechanism"])
    assert {k: sorted(v) for k, v in got.items()} == {k: sorted(v) for k, v in LINEAGE.items()}
    assert len(found) == 32
    assert Counter(r["mechanism"] for r in found) == {
        "arrow": 8, "frontmatter": 9, "inline-line": 5, "inline-bracket": 1, "prose": 9}
    # No edge from GPipe to Ray; Ray, GPipe, HiveD assert no lineage of their own.
    assert all(r["child"] not in (S["Ray"], S["GPipe"], S["HiveD"]) for r in found)
    assert rows(neo4j_driver, neo4j_database, "MATCH (:Page)-[r:COMPARES_WITH]->() "
                "RETURN count(r) AS n")[0]["n"] == 0


def test_lineage_provenance(example: IngestReport, neo4j_driver: neo4j.Driver,
                            neo4j_database: str) -> None:
    arrow = rows(neo4j_driver, neo4j_database,
                 "MATCH (c:Page {key: $child})-[r:BUILDS_ON {mechanism: 'arrow'}]->(:Page) "
                 "RETURN r.page AS page, r.line AS line, r.introduced_by AS entry",
                 child=S["FFTrainer"])
    assert arrow == [{"page": "LLM分散学習", "line": 45, "entry": arrow[0]["entry"]}]
    inline = rows(neo4j_driver, neo4j_database,
                  "MATCH (:Page {key: $child})-[r:BUILDS_ON {mechanism: 'inline-line'}]->"
                  "(:Page {key: $parent}) RETURN r.page AS page, r.line AS line, "
                  "r.introduced_by AS entry",
                  child=S["Megatron"], parent=S["PipeDream"])
    assert inline == [{"page": S["Megatron"], "line": 56, "entry": "log/2026-06-17/03"}]
    bracket = rows(neo4j_driver, neo4j_database,
                   "MATCH (:Page {key: $child})-[r:BUILDS_ON {mechanism: 'inline-bracket'}]->"
                   "(p:Page) RETURN p.key AS parent, r.line AS line", child=S["APNet"])
    assert bracket == [{"parent": S["SC21"], "line": 48}]
    # The DistServe -> PagedAttention assertions were added by the 2026-06-21 entry.
    paged = rows(neo4j_driver, neo4j_database,
                 "MATCH (:Page {key: $child})-[r:BUILDS_ON]->(:Page {key: $parent}) "
                 "RETURN DISTINCT r.introduced_by AS entry", child=S["DistServe"],
                 parent=S["Paged"])
    assert paged == [{"entry": "log/2026-06-21/01"}]


def test_dangling_links_are_exactly_two(example: IngestReport, neo4j_driver: neo4j.Driver,
                                        neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (p:Page)-[r:LINKS_TO]->(d:Dangling) RETURN p.key AS page, d.name AS name, "
                 "r.line AS line ORDER BY name")
    assert found == [{"page": "log", "name": "Alpa", "line": 32},
                     {"page": S["ZeRO"], "name": "ZeRO-Infinity", "line": 50}]
    attachments = rows(neo4j_driver, neo4j_database,
                       "MATCH (a:Attachment) RETURN a.name AS name ORDER BY name")
    assert [a["name"] for a in attachments] == [
        "cassini-affinity-graph.png", "gpipe-pipeline-bubble.png",
        "megatron-mlp-column-row-split.png", "sakura-pd-itl-tail.png"]


def test_authors_in_paper_order(example: IngestReport, neo4j_driver: neo4j.Driver,
                                neo4j_database: str) -> None:
    def authors(paper: str) -> list[str]:
        return [r["name"] for r in rows(
            neo4j_driver, neo4j_database,
            "MATCH (:Paper {key: $key})-[r:AUTHORED_BY]->(a:Person) "
            "RETURN a.key AS name ORDER BY r.position", key=paper)]

    assert authors(S["Cassini"]) == ["Sudarsanan Rajasekaran", "Manya Ghobadi", "Aditya Akella"]
    assert authors(S["DistServe"]) == ["Yinmin Zhong", "Xin Jin", "Hao Zhang"]
    assert authors(S["Paged"]) == ["Woosuk Kwon", "Hao Zhang", "Ion Stoica"]
    assert authors(S["FFTrainer"]) == ["Bohan Zhao", "Wei Xu"]
    assert authors(S["Titans"]) == []
    multi = rows(neo4j_driver, neo4j_database,
                 "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Person {key: 'Hao Zhang'}) "
                 "RETURN p.key AS key ORDER BY key")
    assert [m["key"] for m in multi] == [S["Paged"], S["DistServe"]]


def test_affiliations_and_part_of(example: IngestReport, neo4j_driver: neo4j.Driver,
                                  neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (p:Person) OPTIONAL MATCH (p)-[:AFFILIATED_WITH]->(o:Organization) "
                 "RETURN p.key AS person, collect(o.key) AS orgs")
    table = {r["person"]: r["orgs"] for r in found}
    assert len(table) == 27
    assert table["Aditya Akella"] == ["UT Austin"]
    assert table["道下幹也"] == ["SAKURA Internet"]
    assert table["Bohan Zhao"] == [] and table["Wei Xu"] == []
    assert table["Kai Chen (HKUST)"] == ["iSING Lab"]
    assert sum(1 for orgs in table.values() if orgs) == 25
    two_hops = rows(neo4j_driver, neo4j_database,
                    "MATCH (:Person {key: 'Kai Chen (HKUST)'})-[:AFFILIATED_WITH]->(:Organization)"
                    "-[:PART_OF]->(o:Organization) RETURN o.key AS org")
    assert two_hops == [{"org": "HKUST"}]
    kai = rows(neo4j_driver, neo4j_database,
               "MATCH (p:Person) WHERE p.key STARTS WITH 'Kai Chen' RETURN p.key AS key")
    assert kai == [{"key": "Kai Chen (HKUST)"}]


def test_explicit_contradictions(example: IngestReport, neo4j_driver: neo4j.Driver,
                                 neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (x:Contradiction {kind: 'explicit'}) RETURN x.origin AS origin, "
                 "x.subject AS subject, x.status AS status, x.introduced_by AS entry, "
                 "x.line AS line ORDER BY origin, subject")
    got = {(r["origin"], r["subject"]): (r["status"], r["entry"], r["line"]) for r in found}
    assert got == {
        ("callout", S["Megatron"]): ("resolved", "log/2026-06-19/02", 32),
        ("callout", S["FP8"]): ("open", "log/2026-06-20/01", 31),
        ("ledger", S["FP8"]): ("open", "log/2026-06-20/01", got[("ledger", S["FP8"])][2]),
        ("lint", S["Megatron"]): ("resolved", "log/2026-06-19/02", 54),
    }
    ledger = rows(neo4j_driver, neo4j_database,
                  "MATCH (x:Contradiction {origin: 'ledger'})-[:INVOLVES]->(c:Claim) "
                  "RETURN c.id AS id, c.assessment AS a ORDER BY id")
    assert ledger == [{"id": "clm-fp8lm-v1-figures", "a": "contested"},
                      {"id": "clm-fp8lm-v2-figures", "a": "contested"}]
    assessments = rows(neo4j_driver, neo4j_database,
                       "MATCH (c:Claim {origin: 'ledger'}) RETURN c.assessment AS a, count(*) AS n")
    assert {r["a"]: r["n"] for r in assessments} == {"accepted": 2, "contested": 2,
                                                     "provisional": 1}


def test_unmarked_numeric_conflict_is_detected(example: IngestReport,
                                               neo4j_driver: neo4j.Driver,
                                               neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (x:Contradiction {kind: 'detected'}) RETURN x.subject AS subject, "
                 "x.pages AS pages, x.evidence AS evidence, x.marked AS marked, "
                 "x.status AS status")
    assert len(found) == 1, found
    conflict = found[0]
    assert conflict["subject"] == "Mooncake"
    assert {"overview", S["Slides"]} <= set(conflict["pages"])
    assert conflict["marked"] is False and conflict["status"] == "open"
    evidence = "\n".join(conflict["evidence"])
    assert "overview:31:" in evidence and "最大 2 倍" in evidence
    assert f"{S['Slides']}:39:" in evidence and "1.75" in evidence
    values = rows(neo4j_driver, neo4j_database,
                  "MATCH (:Contradiction {kind: 'detected'})-[:INVOLVES]->(c:Claim) "
                  "RETURN DISTINCT c.value AS v, c.metric AS m ORDER BY v")
    assert values == [{"v": 1.75, "m": "ttft"}, {"v": 2.0, "m": "ttft"}]


def test_near_misses_are_not_contradictions(example: IngestReport, neo4j_driver: neo4j.Driver,
                                            neo4j_database: str) -> None:
    subjects = {r["s"] for r in rows(neo4j_driver, neo4j_database,
                                     "MATCH (x:Contradiction) RETURN x.subject AS s")}
    for near_miss in ("Ray", "GPipe", S["Ray"], S["GPipe"], S["ZeRO"]):
        assert near_miss not in subjects


def test_log_entries_touch_pages_with_roles(example: IngestReport, neo4j_driver: neo4j.Driver,
                                            neo4j_database: str) -> None:
    ops = rows(neo4j_driver, neo4j_database,
               "MATCH (e:LogEntry) RETURN e.op AS op, count(*) AS n")
    assert {r["op"]: r["n"] for r in ops} == {"ingest-paper": 17, "ingest-slides": 1,
                                             "tooling": 1, "fold": 1, "lint": 1, "query": 1}
    deferred = rows(neo4j_driver, neo4j_database,
                    "MATCH (e:LogEntry)-[r:TOUCHES {role: 'deferred'}]->(d:Dangling) "
                    "RETURN e.date AS date, d.name AS name")
    assert [(str(r["date"]), r["name"]) for r in deferred] == [("2026-06-22", "Alpa")]
    oldest = rows(neo4j_driver, neo4j_database,
                  "MATCH (e:LogEntry {seq: 2})-[:TOUCHES {role: 'summary'}]->(p:Page) "
                  "RETURN e.title AS title, p.key AS page")
    assert oldest == [{"title": "Ray", "page": S["Ray"]}]


def test_fold_page_folds_its_sixteen_entries(example: IngestReport, neo4j_driver: neo4j.Driver,
                                             neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (f:Fold)-[r:FOLDS]->(e:LogEntry) RETURN f.fold_id AS id, "
                 "e.title AS title, r.position AS pos ORDER BY pos")
    assert len(found) == 16
    assert found[0]["title"] == "Ray"
    assert found[-1]["title"] == "LLM inference serving: DistServe + Taming the Titans"


def test_unlinked_mentions_in_both_languages(example: IngestReport, neo4j_driver: neo4j.Driver,
                                             neo4j_database: str) -> None:
    found = rows(neo4j_driver, neo4j_database,
                 "MATCH (s:Page)-[m:MENTIONS]->(t:Page) RETURN s.key AS source, t.key AS target, "
                 "m.line AS line, m.linked AS linked")
    pairs = {(r["source"], r["target"]) for r in found}
    assert all(r["linked"] is False for r in found)
    # "Mooncake Store ..." on the slides page, line 39, links nothing.
    assert (S["Slides"], "Mooncake") in pairs
    # Plain-text "Megatron-LM（2019）" in the SC21 lineage section is a mention, not lineage.
    assert (S["SC21"], "Megatron-LM") in pairs
    # Japanese: the hot page names 並列化 concepts in prose.
    assert any(target == "テンソル並列" for _, target in pairs)


@pytest.mark.parametrize("text", ["訂正", "PagedAttention", "GPU", "pipeline nothing-such"])
def test_snippets_of_long_bodies_are_cut_in_the_database_as_from_the_whole_body(
        example: IngestReport, neo4j_driver: neo4j.Driver, neo4j_database: str, text: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A long body whose opening holds the text is not sent whole for a snippet: only a
    window, cut in Cypher; the snippet is the one the whole body gives (the log's hits come
    from its entries: the next test)."""
    from queries import search as search_module
    from queries.base import GraphContext
    from queries.common import folded, name_term
    from queries.pages import bodies

    ctx = GraphContext(neo4j_driver, neo4j_database)
    monkeypatch.setattr(search_module, "WHOLE_BODY_CHARS", 500)  # most pages are longer
    monkeypatch.setattr(search_module, "OPENING_CHARS", 3000)  # and hold the text later
    hits = [h for h in search_module.search(ctx, text) if h.page.key != "log"]
    whole = bodies(ctx, [h.page.key for h in hits])
    assert hits and any(len(whole[h.page.key]) > 500 for h in hits)
    assert [h.snippet for h in hits] == [search_module.snippet(whole[h.page.key], text)
                                         for h in hits]
    sent = ctx.read_rows(search_module.SEARCH, lucene=search_module.lucene_query(text),
                         name=name_term(folded(text)), kinds=None, first=10, pool=100,
                         **search_module._cut(text))
    cut = [r for r in sent if r["body"] and r["page"]["key"] != "log"
           and len(r["body"]) < len(whole[r["page"]["key"]])]
    if "nothing-such" not in text:  # the text itself is in no page: every body sent whole
        assert cut and any(h.snippet for h in hits)


@pytest.mark.parametrize("text", ["Key insight", "Pages updated", "ingest-paper", "訂正",
                                  "PagedAttention"])
def test_the_log_is_found_through_its_entries(example: IngestReport, neo4j_driver: neo4j.Driver,
                                              neo4j_database: str, text: str) -> None:
    """The log page's body is out of the index of bodies (`log_body`, so that a new entry
    does not index the whole log again); its entries are indexed, each a document: a search
    that matches one finds the log page, with a snippet of the best entry, and never sends
    the log's body. The body itself is still the page's (`Page.body`)."""
    from queries import search as search_module
    from queries.base import GraphContext
    from queries.common import folded, name_term
    from queries.pages import bodies

    ctx = GraphContext(neo4j_driver, neo4j_database)
    log_file = SHARED_EXAMPLE / "wiki" / "log.md"
    whole = bodies(ctx, ["log"])["log"]
    assert whole and whole in log_file.read_text(encoding="utf-8")
    stored = rows(neo4j_driver, neo4j_database,
                  "MATCH (p:Page {key: 'log'}) RETURN p.body AS body, size(p.log_body) AS n")
    assert stored == [{"body": None, "n": len(whole)}]
    hit = next(h for h in search_module.search(ctx, text) if h.page.key == "log")
    assert hit.snippet and text.casefold() in hit.snippet.casefold()
    entries = [r["t"] for r in rows(neo4j_driver, neo4j_database,
                                    "MATCH (e:LogEntry) RETURN e.search_text AS t")]
    assert any(search_module.snippet(t, text) == hit.snippet for t in entries)
    sent = ctx.read_rows(search_module.SEARCH, lucene=search_module.lucene_query(text),
                         name=name_term(folded(text)), kinds=None, first=10, pool=100,
                         **search_module._cut(text))
    log_row = next(r for r in sent if r["page"]["key"] == "log")
    assert log_row["body"] in entries and len(log_row["body"]) < 2000
