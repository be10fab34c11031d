"""The writer's page-and-facts pass (`GraphWriter.begin` and its chunks) for an empty database,
written as import rows instead of statements. Every statement that pass sends is interpreted
here as Neo4j would run it on a database that holds nothing yet; any other raises, so the two
paths cannot drift apart unnoticed. What comes after the chunks (`GraphWriter.finish`: folds,
contradictions, conflicts, hashes) runs in Neo4j once the files are imported.

The rows are written where the page was parsed (`PageSink`, in a worker process), and what the
importing process must know of them travels back as events (`graph.bulk_index`)."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, LiteralString, cast

import neo4j

from graph import writes as w
from graph.bulk_csv import ATTACHMENT, CLAIM, DANGLING, ENTRY, PAGE, VENUE, CsvFiles, IdSpace
from graph.bulk_index import BulkIndex, PageRows, page_rows
from graph.errors import GraphError
from graph.schema import ASSERTED_TYPES
from graph.writer import Deferred, GraphWriter, WritePass
from loaders.records import PageFacts

_Handler = Callable[..., None]


def _labels(kind: str) -> tuple[str, ...]:
    return ("Page", *(label for label in w.KIND_LABELS[kind].split(":") if label))


class PageSink:
    """Rows written by one process, and the events the importing process replays
    (`BulkIndex.take`). Which nodes exist: those this sink wrote, and those `known` had when
    the worker was forked (every page, made before the first chunk)."""

    def __init__(self, files: CsvFiles, known: BulkIndex) -> None:
        self.files = files
        self.known = known
        self.events: list[tuple[Any, ...]] = []
        self.relationships = 0
        self._local: dict[IdSpace, set[str]] = defaultdict(set)

    def has(self, space: IdSpace, ident: str) -> bool:
        return ident in self._local[space] or self.known.has(space, ident)

    def merge(self, space: IdSpace, ident: str) -> None:
        if ident not in self._local[space]:
            self._local[space].add(ident)
            self.events.append(("merge", space, ident))

    def node(self, space: IdSpace, labels: tuple[str, ...], ident: str,
             props: dict[str, Any]) -> None:
        """`MERGE (n:Label {id}) SET n = props` (labels set as these)."""
        if props.get(space.prop) != ident:
            raise GraphError(f"a {space.label} row's {space.prop} is not its id {ident!r}")
        values = {k: v for k, v in props.items() if k != space.prop}
        path, row = self.files.row("node", ":".join(labels), (
            (space.prop, f"ID({space.label})"),), [ident], values)
        self._local[space].add(ident)
        self.events.append(("node", space, ident, path, row))

    def relationship(self, rel_type: str, start: tuple[IdSpace, str],
                     end: tuple[IdSpace, str], props: dict[str, Any]) -> tuple[str, int]:
        """`CREATE` between nodes the caller knows exist."""
        path, row = self.files.row("rel", rel_type, (
            ("", f"START_ID({start[0].label})"), ("", f"END_ID({end[0].label})")),
            [start[1], end[1]], props)
        self.relationships += 1
        return path, row

    def claim(self, ident: str, props: dict[str, Any], links: list[tuple[str, str]]) -> None:
        """A claim and its `MERGE`d links to pages (`links`: type, page key); a claim id
        stated again keeps the links of the first statement too (`BulkIndex` drops a
        repeated link)."""
        self.node(CLAIM, ("Claim",), ident, props)
        for rel_type, target in links:
            path, row = self.relationship(rel_type, (CLAIM, ident), (PAGE, target), {})
            self.events.append(("link", ident, rel_type, target, path, row))

    def take(self) -> tuple[list[tuple[Any, ...]], int]:
        """The events and relationship count since the last call."""
        events, count = self.events, self.relationships
        self.events, self.relationships = [], 0
        return events, count


class BulkWriter(GraphWriter):
    """`GraphWriter` whose statements become rows in `sink`; it never reaches a database."""

    def __init__(self, sink: PageSink, batch_size: int) -> None:
        # No driver: `run` and `read` below are the only ways out, and neither uses one.
        super().__init__(cast(neo4j.Driver, None), "", batch_size=batch_size)
        self.sink = sink
        self._log_pages: set[str] = set()
        self._handlers: dict[str, _Handler] = {
            w.ADD_PAGES: self._add_pages,
            w.LINK_TO_PAGE: self._page_rows("LINKS_TO"),
            w.LINK_TO_DANGLING: self._named_rows("LINKS_TO", PAGE, "source", DANGLING),
            w.LINK_TO_ATTACHMENT: self._named_rows("LINKS_TO", PAGE, "source", ATTACHMENT),
            w.PUBLISHED_IN: self._named_rows("PUBLISHED_IN", PAGE, "source", VENUE),
            w.DELETE_LOG_TOUCHES: self._fresh_log,
            w.DELETE_STALE_LOG_ENTRIES: self._fresh_log,
            w.UPSERT_LOG_ENTRIES: self._entries,
            w.TOUCH_PAGE: self._touches,
            w.TOUCH_DANGLING: self._named_rows("TOUCHES", ENTRY, "entry", DANGLING),
            w.UPSERT_CLAIMS: self._claims_rows,
        }
        for kind in w.KIND_LABELS:
            self._handlers[w.upsert_pages(kind)] = self._pages_of(_labels(kind))
        for rel_type in ASSERTED_TYPES:
            self._handlers.setdefault(w.page_relation(rel_type), self._page_rows(rel_type))

    def run(self, query: LiteralString, **params: Any) -> None:
        handler = self._handlers.get(query)
        if handler is None:
            raise GraphError("the offline import cannot write this statement: "
                             + " ".join(query.split())[:120])
        handler(**params)
        self.stats.statements += 1

    def read(self, query: LiteralString, **params: Any) -> list[dict[str, Any]]:
        """The reads of `begin`, answered as an empty database answers them."""
        if query == w.EXISTING_PAGES:
            return []
        if query == w.PAGE_COUNT:
            return [{"n": 0}]
        raise GraphError("the offline import cannot read: " + " ".join(query.split())[:120])

    def run_together(self, statements: list[tuple[LiteralString, dict[str, Any]]]) -> None:
        for query, params in statements:
            self.run(query, **params)

    # -- statements, as Neo4j runs them on an empty database --------------------------------

    def _add_pages(self, keys: list[str]) -> None:
        for key in keys:
            self.sink.merge(PAGE, key)

    def _pages_of(self, labels: tuple[str, ...]) -> _Handler:
        def pages(rows: list[dict[str, Any]]) -> None:
            for row in rows:
                self.sink.node(PAGE, labels, row["key"], row["props"])
        return pages

    def _page_rows(self, rel_type: str) -> _Handler:
        """`MATCH (s:Page) MATCH (t:Page) CREATE (s)-[r]->(t) SET r = props`."""
        def relate(rows: list[dict[str, Any]]) -> None:
            has = self.sink.has
            for row in rows:
                if has(PAGE, row["source"]) and has(PAGE, row["target"]):
                    self.sink.relationship(rel_type, (PAGE, row["source"]),
                                           (PAGE, row["target"]), row["props"])
        return relate

    def _named_rows(self, rel_type: str, start: IdSpace, field: str,
                    end: IdSpace) -> _Handler:
        """`MATCH (s) MERGE (t:Named {name}) CREATE (s)-[r]->(t) SET r = props`."""
        def relate(rows: list[dict[str, Any]]) -> None:
            for row in rows:
                if self.sink.has(start, row[field]):
                    self.sink.merge(end, row["target"])
                    self.sink.relationship(rel_type, (start, row[field]),
                                           (end, row["target"]), row["props"])
        return relate

    def _fresh_log(self, page: str, keys: list[str] | None = None) -> None:
        """Removing a log page's entries or touches: nothing to remove on an empty database,
        unless this import already wrote that log's entries."""
        if page in self._log_pages:
            raise GraphError(f"the log page {page!r} is written twice")

    def _entries(self, rows: list[dict[str, Any]]) -> None:
        for row in rows:
            self._log_pages.add(row["props"].get("page"))
            self.sink.node(ENTRY, ("LogEntry",), row["key"], row["props"])

    def _touches(self, rows: list[dict[str, Any]]) -> None:
        has = self.sink.has
        for row in rows:
            if has(ENTRY, row["entry"]) and has(PAGE, row["target"]):
                self.sink.relationship("TOUCHES", (ENTRY, row["entry"]),
                                       (PAGE, row["target"]), row["props"])

    def _claims_rows(self, rows: list[dict[str, Any]]) -> None:
        """`MERGE (c:Claim {id}) SET c = props`, then `MERGE` its links to its page and its
        subject, where those are pages."""
        has = self.sink.has
        for row in rows:
            self.sink.claim(row["id"], row["props"], [
                (rel_type, target) for rel_type, target in (
                    ("STATED_IN", row["page"]), ("CLAIM_ABOUT", row["subject"]))
                if target is not None and has(PAGE, target)])


class PageEncoder:
    """The offline import's work on each parsed page, run where it was parsed
    (`loaders.vault.stream_vault`'s `then`): the page's rows written to that process's own
    files, and what the importing process needs of them returned. Made before the workers
    are forked; each process opens its own files on first use."""

    def __init__(self, folder: Path, index: BulkIndex, batch_size: int) -> None:
        self.folder = folder
        self.index = index
        self.batch_size = batch_size
        self._pid: int | None = None
        self._files: CsvFiles | None = None
        self._sink: PageSink | None = None
        self._writer: BulkWriter | None = None

    def __call__(self, facts: PageFacts) -> PageRows:
        if self._pid != os.getpid():  # a new worker: files of its own
            self._pid = os.getpid()
            self._files = CsvFiles(self.folder, f"p{self._pid}")
            self._sink = PageSink(self._files, self.index)
            self._writer = BulkWriter(self._sink, self.batch_size)
        assert self._files is not None and self._sink is not None and self._writer is not None
        done = WritePass(touched=True, whole=True, log=None, groups=set(),
                         later=Deferred(keep_claims=True))
        self._writer.write_chunk(done, [facts])
        self._files.flush()
        events, relationships = self._sink.take()
        return page_rows(self._files, events, relationships, done.later)
