"""A contradiction's long lists are stored with their first items and counts
(`graph.list_heads`): reads that show a few items take them from the head and agree with the
whole lists, a graph without heads reads the same, and every write path keeps them in step."""

from __future__ import annotations

from pathlib import Path

import neo4j
import pytest

from graph.ingest import ingest
from graph.list_heads import HEAD, HEAD_PROPERTIES, list_heads
from queries import contradictions as cq
from queries.base import GraphContext

pytestmark = pytest.mark.integration

SOURCES = 14  # pages stating two figures each: one conflict of 28 lines over 15 pages
CONFLICT = "detected:Widget:throughput:times"
STORED = ("MATCH (x:Contradiction {id: $id}) RETURN x.evidence AS evidence, x.pages AS pages, "
          "x.evidence_head AS evidence_head, x.evidence_count AS evidence_count, "
          "x.pages_head AS pages_head, x.page_count AS page_count")


def _vault(root: Path) -> Path:
    (root / "wiki/concepts").mkdir(parents=True)
    (root / "wiki/sources").mkdir(parents=True)
    (root / "wiki/concepts/Widget.md").write_text(
        "---\ntype: concept\ntitle: Widget\n---\n\n# Widget\n", encoding="utf-8")
    for i in range(SOURCES):
        (root / f"wiki/sources/S{i:02}.md").write_text(
            f"---\ntype: source\ntitle: S{i:02}\n---\n\n# S{i:02}\n\n"
            f"- [[Widget]]: improves throughput by {2 + i}x.\n"
            f"- [[Widget]]: improves throughput by {40 + i}x.\n", encoding="utf-8")
    return root


def _stored(driver: neo4j.Driver, database: str) -> dict[str, object]:
    records, _, _ = driver.execute_query(STORED, id=CONFLICT, database_=database)
    return records[0].data()


def _read(ctx: GraphContext, evidence: int | None, pages: int | None
          ) -> tuple[list[str], int, list[str], int]:
    [x] = cq.contradictions(ctx, subject="Widget", with_claims=False, evidence=evidence,
                            pages=pages).items
    return [e.text for e in x.evidence], x.evidence_count, x.pages, x.page_count


def test_heads_are_stored_read_and_agree_with_the_whole_lists(
        clean_db: neo4j.Driver, neo4j_database: str, tmp_path: Path) -> None:
    ingest(clean_db, neo4j_database, _vault(tmp_path / "vault"))
    stored = _stored(clean_db, neo4j_database)
    evidence, pages = stored["evidence"], stored["pages"]
    assert isinstance(evidence, list) and isinstance(pages, list)
    assert len(evidence) == 2 * SOURCES > HEAD and len(pages) > HEAD
    assert {k: stored[k] for k in ("evidence_head", "evidence_count", "pages_head",
                                   "page_count")} == list_heads(stored)
    assert stored["evidence_head"] == evidence[:HEAD]

    ctx = GraphContext(clean_db, neo4j_database)
    texts = [e.split(": ", 1)[1] for e in evidence]
    cuts = (0, 1, 3, HEAD, HEAD + 1, None)
    expected = {(n, m): (texts[:n], len(texts), pages[:m], len(pages))
                for n in cuts for m in cuts}
    assert {k: _read(ctx, *k) for k in expected} == expected

    # The short cuts come from the heads: a head that said otherwise would be read.
    clean_db.execute_query(
        "MATCH (x:Contradiction {id: $id}) SET x.evidence_head = ['S99:1: - marked'], "
        "x.pages_head = ['marked']", id=CONFLICT, database_=neo4j_database)
    assert _read(ctx, 3, 3)[0::2] == (["- marked"], ["marked"])
    assert _read(ctx, HEAD + 1, HEAD + 1)[0::2] == (texts[:HEAD + 1], pages[:HEAD + 1])

    # A graph written before the heads (none stored) reads the same, from the whole lists.
    clean_db.execute_query(
        "MATCH (x:Contradiction) REMOVE " + ", ".join("x." + p for p in HEAD_PROPERTIES),
        database_=neo4j_database)
    assert {k: _read(ctx, *k) for k in expected} == expected


def test_every_contradiction_of_an_ingest_has_its_heads(
        example_graph: object, neo4j_driver: neo4j.Driver, neo4j_database: str) -> None:
    records, _, _ = neo4j_driver.execute_query(
        "MATCH (x:Contradiction) RETURN x.id AS id, x.evidence AS evidence, x.pages AS pages, "
        "x {.evidence_head, .evidence_count, .pages_head, .page_count} AS heads",
        database_=neo4j_database)
    assert len(records) >= 5
    for r in records:
        assert r["heads"] == list_heads(r.data()), r["id"]
