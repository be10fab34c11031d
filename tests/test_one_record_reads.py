"""The API's list reads send their rows as one record (`GraphContext.read_rows`): the list of
contradictions, search hits and pages. Each must send exactly one record however many rows
match (none too), and keep its order, which now comes from the `WITH ... ORDER BY` before
`collect` rather than from the `RETURN`'s own ORDER BY: checked here against the order each
read promises, over every sort, direction and page size."""

from __future__ import annotations

from typing import Any

import neo4j
import pytest

from queries import contradictions as cq
from queries import pages as pq
from queries import search as sq
from queries.base import GraphContext
from queries.common import PageRecord, folded, name_term

pytestmark = pytest.mark.integration

TEXTS = ["pipeline", "ZeRO", "パイプライン", "GPipe", "memory", "Key insight", "no-such-word-here"]


@pytest.fixture(scope="module")
def ctx(example_graph: object, neo4j_driver: neo4j.Driver, neo4j_database: str) -> GraphContext:
    return GraphContext(neo4j_driver, neo4j_database)


def contradiction_params(subject: str | None) -> dict[str, Any]:
    params = {"status": None, "kind": None, "after": None, "limit": 50, "evidence": 5,
              "pages": 5}
    return params if subject is None else {**params, "subject": name_term(folded(subject))}


def test_each_list_read_sends_one_record_with_rows_or_none(ctx: GraphContext) -> None:
    hub = ctx.read("MATCH (x:Contradiction) WHERE x.subject IS NOT NULL RETURN x.subject AS s, "
                   "count(*) AS n ORDER BY n DESC, s LIMIT 1")[0]["s"]
    sent = []
    for (by_subject, claims), query in cq.LIST_QUERIES.items():
        for subject in (hub, "no such subject") if by_subject else (None,):
            sent.append((f"contradictions {subject} {claims}", query,
                         contradiction_params(subject)))
    for text in TEXTS:
        sent.append((f"search {text}", sq.SEARCH, {
            "lucene": sq.lucene_query(text), "name": name_term(folded(text)), "kinds": None,
            "first": 10, "pool": 100, **sq._cut(text)}))
    sent.append(("name only", sq.NAME_ONLY, {"name": name_term(folded("GPipe")), "kinds": None,
                                             "first": 10, **sq._cut("GPipe")}))
    for (sort, descending), query in pq.LIST_PAGES.items():
        for where in (pq.PageFilter(), pq.PageFilter(tag="no-such-tag")):
            sent.append((f"pages {sort} {descending} {where.tag}", query, {
                **where.params(), "nulls": pq.NULLS.get(sort, (None, None))[descending],
                "after_value": None, "after_key": None, "limit": 25}))
    sizes = []
    for name, query, params in sent:
        got = ctx.read(query, **params)  # a row per record sent
        assert len(got) == 1 and list(got[0]) == ["rows"], name
        sizes.append(len(got[0]["rows"]))
    assert 0 in sizes and max(sizes) >= 10  # lists of none and of many rows were sent


def hit_order(hit: sq.SearchHit) -> tuple[bool, float, str]:
    return (not hit.name_match, -hit.score, hit.page.key)


def test_search_hits_come_best_first(ctx: GraphContext) -> None:
    seen = 0
    for text in TEXTS:
        for first in (1, 3, 10, 50):
            hits = sq.search(ctx, text, first=first)
            assert hits == sorted(hits, key=hit_order), (text, first)
            assert len({h.page.key for h in hits}) == len(hits) <= first
            seen += len(hits) > 1
    assert seen > 5


def sort_value(page: PageRecord, sort: pq.SortField, descending: bool) -> Any:
    """A page's value for `sort` as the read compares it: nulls last either way."""
    value = {pq.SortField.KEY: page.key,
             pq.SortField.TITLE: (page.title or page.key).lower(),
             pq.SortField.YEAR: page.year,
             pq.SortField.CREATED: page.created,
             pq.SortField.UPDATED: page.updated}[sort]
    if value is None:
        value = pq.NULLS[sort][descending]
    return value


def paged(ctx: GraphContext, sort: pq.SortField, descending: bool,
          first: int) -> list[PageRecord]:
    """Every page, `first` at a time, following the cursors."""
    out: list[PageRecord] = []
    after = None
    while True:
        part = pq.list_pages(ctx, pq.PageFilter(), sort, descending, first=first, after=after)
        out += part.items
        if not part.has_next:
            return out
        after = part.cursors[-1]


@pytest.mark.parametrize("sort", list(pq.SortField))
@pytest.mark.parametrize("descending", [False, True])
def test_pages_come_sorted_and_page_through_every_match(ctx: GraphContext, sort: pq.SortField,
                                                         descending: bool) -> None:
    every = paged(ctx, sort, descending, 100)
    total = ctx.read("MATCH (p:Page) RETURN count(p) AS n")[0]["n"]
    assert len(every) == len({p.key for p in every}) == total > 40
    keys = [(sort_value(p, sort, descending), p.key) for p in every]
    assert keys == sorted(keys, reverse=descending)
    assert [p.key for p in paged(ctx, sort, descending, 7)] == [p.key for p in every]


class RecordCounter:
    """Counts the records each read sends, at the driver (`graph.connection.value_rows` and
    `data_rows`, which every read's records pass through)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import graph.connection as connection

        self.sent: list[int] = []
        for name in ("value_rows", "data_rows"):
            original = getattr(connection, name)
            monkeypatch.setattr(connection, name, self._counting(original))

    def _counting(self, original: Any) -> Any:
        def rows(keys: Any, records: Any) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = original(keys, records)
            self.sent.append(len(out))
            return out
        return rows


def test_batch_reads_send_one_record_and_answer_key_by_key(
        ctx: GraphContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch reads behind nested fields, for many keys at once, against the same read of
    one key at a time: the same answer, and one record sent per read whatever the keys."""
    from queries import lineage as lq
    from queries import log as lg

    pages = [r["key"] for r in ctx.read("MATCH (p:Page) RETURN p.key AS key ORDER BY key")]
    entries = [r["key"] for r in ctx.read("MATCH (e:LogEntry) RETURN e.key AS key ORDER BY key")]
    ids = [r["id"] for r in ctx.read("MATCH (x:Contradiction) RETURN x.id AS id ORDER BY id")]
    claims = [r["id"] for r in ctx.read("MATCH (:Contradiction)-[:INVOLVES]->(c:Claim) "
                                        "RETURN DISTINCT c.id AS id ORDER BY id")]
    venues = [v.name for v in pq.venues(ctx)]
    assert len(pages) > 40 and len(entries) > 10 and ids and claims and venues
    reads: list[tuple[Any, list[str]]] = [
        (pq.pages_by_keys, pages), (pq.bodies, pages), (pq.venues_of, pages),
        (pq.venue_papers, venues), (lg.entries_by_keys, entries), (lg.touches, entries),
        (lg.page_history, pages), (lg.fold_entries, pages),
        (cq.contradictions_by_ids, ids), (cq.claims_of_contradictions, ids),
        (cq.claims_by_ids, claims), (cq.contradictions_of_claims, claims),
        *[(lambda c, keys, up=up: lq.edges_of(c, keys, up), pages) for up in (True, False)],
        *[(lambda c, keys, rel=rel: pq.related(c, rel, keys), pages) for rel in pq.Relation]]
    counter = RecordCounter(monkeypatch)
    answers = 0
    for read, keys in reads:
        counter.sent.clear()
        together = read(ctx, [*keys, "no such key"])
        assert counter.sent == [1], read
        one_by_one: dict[str, Any] = {}
        for key in keys:
            one_by_one.update(read(ctx, [key]))
        assert together == one_by_one, read
        answers += len(together)
    assert answers > 500
