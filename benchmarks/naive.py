"""The naive baseline the batched writer is measured against: the same loader records, written
one auto-commit statement per node and per relationship, in one session.

It writes the graph `graph/writer.py` writes (same labels, properties, relationships and
derived contradictions) for a fresh database, so its element count can be checked against a
batched ingest of the same vault. Labels and types come only from the writer's allow-lists."""

from __future__ import annotations

import time
from typing import Any, LiteralString

import neo4j

from graph.log_update import bullet_rows, touch_props
from graph.schema import ASSERTED_TYPES
from graph.writer import WriteStats, claim_rows, contradiction_row, page_props
from graph.writes import KIND_LABELS
from loaders.numeric import detect_conflicts
from loaders.records import PageFacts, VaultSnapshot


def _page_statement(kind: str) -> LiteralString:
    labels = KIND_LABELS[kind]
    query: LiteralString = "MERGE (p:Page {key: $key}) SET p += $props"
    return query + (", p" + labels if labels else "")


LINK_PAGE: LiteralString = (
    "MATCH (s:Page {key: $source}) MATCH (t:Page {key: $target}) "
    "CREATE (s)-[r:LINKS_TO]->(t) SET r = $props")
LINK_DANGLING: LiteralString = (
    "MATCH (s:Page {key: $source}) MERGE (t:Dangling {name: $target}) "
    "CREATE (s)-[r:LINKS_TO]->(t) SET r = $props")
LINK_ATTACHMENT: LiteralString = (
    "MATCH (s:Page {key: $source}) MERGE (t:Attachment {name: $target}) "
    "CREATE (s)-[r:LINKS_TO]->(t) SET r = $props")
PUBLISHED: LiteralString = (
    "MATCH (p:Page {key: $source}) MERGE (v:Venue {name: $target}) "
    "CREATE (p)-[r:PUBLISHED_IN]->(v) SET r = $props")
LOG_ENTRY: LiteralString = "MERGE (e:LogEntry {key: $key}) SET e = $props"
TOUCH_PAGE: LiteralString = (
    "MATCH (e:LogEntry {key: $entry}) MATCH (p:Page {key: $target}) "
    "CREATE (e)-[r:TOUCHES]->(p) SET r = $props")
TOUCH_DANGLING: LiteralString = (
    "MATCH (e:LogEntry {key: $entry}) MERGE (d:Dangling {name: $target}) "
    "CREATE (e)-[r:TOUCHES]->(d) SET r = $props")
FOLDS: LiteralString = (
    "MATCH (f:Page {key: $source}) MATCH (e:LogEntry {key: $target}) "
    "CREATE (f)-[r:FOLDS]->(e) SET r = $props")
CLAIM: LiteralString = "MERGE (c:Claim {id: $id}) SET c = $props"
STATED_IN: LiteralString = (
    "MATCH (c:Claim {id: $id}) MATCH (p:Page {key: $key}) MERGE (c)-[:STATED_IN]->(p)")
CLAIM_ABOUT: LiteralString = (
    "MATCH (c:Claim {id: $id}) MATCH (p:Page {key: $key}) MERGE (c)-[:CLAIM_ABOUT]->(p)")
CONTRADICTION: LiteralString = "MERGE (x:Contradiction {id: $id}) SET x = $props"
INVOLVES: LiteralString = (
    "MATCH (x:Contradiction {id: $id}) MATCH (c:Claim {id: $claim}) MERGE (x)-[:INVOLVES]->(c)")
CONCERNS: LiteralString = (
    "MATCH (x:Contradiction {id: $id}) MATCH (p:Page {key: $key}) MERGE (x)-[:CONCERNS]->(p)")
INTRODUCED: LiteralString = (
    "MATCH (x:Contradiction {id: $id}) MATCH (e:LogEntry {key: $key}) "
    "MERGE (x)-[:INTRODUCED_BY]->(e)")
HASH: LiteralString = "MATCH (p:Page {key: $key}) SET p.content_hash = $hash"


def _relation(rel_type: LiteralString) -> LiteralString:
    assert rel_type in ASSERTED_TYPES
    return ("MATCH (s:Page {key: $source}) MATCH (t:Page {key: $target}) "
            "CREATE (s)-[r:" + rel_type + "]->(t) SET r = $props")


class NaiveWriter:
    """One statement, one auto-commit transaction, per element."""

    def __init__(self, session: neo4j.Session) -> None:
        self.session = session
        self.stats = WriteStats()

    def run(self, query: LiteralString, **params: Any) -> None:
        self.stats.add(self.session.run(query, params).consume().counters)

    def write(self, snapshot: VaultSnapshot) -> WriteStats:
        facts = list(snapshot.facts)
        for f in facts:
            self.run(_page_statement(f.page.kind.value), key=f.page.key, props=page_props(f))
        for f in facts:
            self._links(f)
            self._relations(f)
        for f in facts:
            self._log(f)
        for f in facts:  # after every log entry exists (the log page is parsed last)
            self._folds(f)
        self._claims(facts)
        for f in facts:
            self.run(HASH, key=f.page.key, hash=f.page.content_hash)
        return self.stats

    def _links(self, f: PageFacts) -> None:
        for link in f.links:
            props = {"asserted_by": link.source, "line": link.line, "raw": link.raw,
                     "display": link.display, "heading": link.heading, "block": link.block,
                     "embed": link.embed, "field": link.field, "section": link.section,
                     "markdown": link.markdown}
            if link.target:
                self.run(LINK_PAGE, source=link.source, target=link.target, props=props)
            elif link.attachment:
                self.run(LINK_ATTACHMENT, source=link.source, target=link.target_name,
                         props=props)
            else:
                self.run(LINK_DANGLING, source=link.source, target=link.target_name,
                         props=props)
        if f.venue:
            self.run(PUBLISHED, source=f.page.key, target=f.venue,
                     props={"asserted_by": f.page.key})

    def _relations(self, f: PageFacts) -> None:
        for a in f.authorships:
            self.run(_relation("AUTHORED_BY"), source=a.paper, target=a.person, props={
                "asserted_by": a.paper, "position": a.position, "line": a.line})
        for r in f.relations:
            rel_type = next(t for t in ASSERTED_TYPES if t == r.type)
            self.run(_relation(rel_type), source=r.source, target=r.target, props={
                "asserted_by": r.source, "field": r.field, "line": r.line})
        for lin in f.lineage:
            rel_type = next(t for t in ASSERTED_TYPES if t == lin.relation.value)
            self.run(_relation(rel_type), source=lin.child, target=lin.parent, props={
                "asserted_by": lin.page, "page": lin.page, "line": lin.line,
                "mechanism": lin.mechanism.value, "introduced_by": lin.introduced_by,
                "text": lin.text})
        for m in f.mentions:
            self.run(_relation("MENTIONS"), source=m.source, target=m.target, props={
                "asserted_by": m.source, "line": m.line, "text": m.text, "linked": False})

    def _folds(self, f: PageFacts) -> None:
        if f.fold is not None:
            for i, key in enumerate(f.fold.entries, start=1):
                self.run(FOLDS, source=f.page.key, target=key,
                         props={"position": i, "asserted_by": f.page.key})

    def _log(self, f: PageFacts) -> None:
        if not f.is_log:
            return
        page = f.page.key
        for e in f.log_entries:
            self.run(LOG_ENTRY, key=e.key, props={
                "key": e.key, "date": e.date, "op": e.op, "title": e.title, "line": e.line,
                "seq": e.seq, "day_seq": e.day_seq, "style": e.style, "text": e.text,
                "page": page, "asserted_by": page, "block_ids": list(e.block_ids),
                "bullets": bullet_rows(e)})
        for e in f.log_entries:
            for t in e.touches:
                props = touch_props(t, page)
                if t.page:
                    self.run(TOUCH_PAGE, entry=e.key, target=t.page, props=props)
                else:
                    self.run(TOUCH_DANGLING, entry=e.key, target=t.name, props=props)

    def _claims(self, facts: list[PageFacts]) -> None:
        claims = [c for f in facts for c in f.claims]
        for row in claim_rows(facts):
            self.run(CLAIM, id=row["id"], props=row["props"])
            if row["page"]:
                self.run(STATED_IN, id=row["id"], key=row["page"])
            if row["subject"]:
                self.run(CLAIM_ABOUT, id=row["id"], key=row["subject"])
        explicit = [(f.page.key, c) for f in facts for c in f.contradictions]
        numeric = [c for c in claims if c.origin == "numeric"]
        detected = detect_conflicts(numeric)
        subjects = {c.subject for _, c in explicit if c.kind == "explicit"}
        rows = [contradiction_row(c, owner) for owner, c in explicit]
        for c in detected:
            row = contradiction_row(c, None)
            row["props"]["marked"] = c.subject in subjects
            rows.append(row)
        for row in rows:
            self.run(CONTRADICTION, id=row["id"], props=row["props"])
            for claim in row["claims"]:
                self.run(INVOLVES, id=row["id"], claim=claim)
            for key in row["pages"]:
                self.run(CONCERNS, id=row["id"], key=key)
            if row["introduced_by"]:
                self.run(INTRODUCED, id=row["id"], key=row["introduced_by"])


def naive_write(driver: neo4j.Driver, database: str, snapshot: VaultSnapshot
                ) -> tuple[WriteStats, float]:
    """Write a snapshot into an empty database the naive way; (stats, seconds)."""
    started = time.perf_counter()
    with driver.session(database=database) as session:
        stats = NaiveWriter(session).write(snapshot)
    return stats, time.perf_counter() - started
