"""Writes a loader stream into Neo4j in labelled `UNWIND` batches, chunk by chunk as the pages
are parsed (`loaders.stream`).

Order matters for crash safety: first the facts of changed and deleted pages are removed and
every page to be written is made (rows of one chunk name pages of later ones), then each chunk's
pages and facts are written, then what names claims or log entries of any chunk (contradictions,
fold entries), and only at the end each page's content hash. A run that dies midway leaves
hashes that do not match, so the next run redoes exactly those pages and converges to the graph
a clean run produces."""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, LiteralString

import neo4j

from graph import writes as w
from graph.conflict_scope import conflict_scope
from graph.connection import translate_errors, write_params
from graph.errors import GraphError
from graph.list_heads import list_heads
from graph.log_update import LogUpdate, bullet_rows, search_text, touch_props
from graph.records import value_rows
from graph.schema import ASSERTED_TYPES
from loaders.log_segments import LogState
from loaders.numeric import Group, Point, conflict_group, detect_conflicts, group_of
from loaders.provenance import PASSING
from loaders.records import ClaimRecord, ContradictionRecord, LogEntry, LogSegment, PageFacts
from loaders.stream import VaultStream

BATCH = 5000
# Up to this many numeric claims to read, conflicts are re-derived for the groups an edit
# reaches only, in one transaction; beyond it (a first ingest, a big change) for the whole graph,
# which reads every numeric claim once (332k at 100k pages: 12 s) instead of by group.
INCREMENTAL_CLAIMS = 50_000


@dataclass
class WriteStats:
    """What one write changed, from Neo4j's own counters."""

    nodes_created: int = 0
    nodes_deleted: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    properties_set: int = 0
    statements: int = 0
    moved: int = 0  # lines of the log whose facts moved (`graph.log_update`)
    by_kind: dict[str, int] = field(default_factory=dict)

    def add(self, counters: neo4j.SummaryCounters) -> None:
        self.nodes_created += counters.nodes_created
        self.nodes_deleted += counters.nodes_deleted
        self.relationships_created += counters.relationships_created
        self.relationships_deleted += counters.relationships_deleted
        self.properties_set += counters.properties_set
        self.statements += 1

    @property
    def elements(self) -> int:
        return self.nodes_created + self.relationships_created

    @property
    def changed(self) -> bool:
        return bool(self.nodes_created or self.nodes_deleted or self.relationships_created
                    or self.relationships_deleted or self.moved)


class GraphWriter:
    """Batched writes for one database; one instance per ingest run."""

    def __init__(self, driver: neo4j.Driver, database: str, batch_size: int = BATCH) -> None:
        self.driver = driver
        self.database = database
        self.batch_size = batch_size
        self.stats = WriteStats()
        self._counting = threading.Lock()  # `concurrently`'s jobs add to `stats` together

    def run(self, query: LiteralString, **params: Any) -> None:
        counters = write_params(self.driver, self.database, query, _quiet(params))
        with self._counting:
            self.stats.add(counters)

    def concurrently(self, *jobs: Callable[[], None]) -> None:
        """Run `jobs` (each its own statements, in its own sessions) at the same time, for
        writes that touch different records: Neo4j runs them on as many cores, while this
        process only waits. All finish before the first failure, if any, is raised."""
        if len(jobs) < 2:
            for job in jobs:
                job()
            return
        with ThreadPoolExecutor(max_workers=len(jobs) - 1) as pool:
            futures = [pool.submit(job) for job in jobs[1:]]
            try:
                jobs[0]()
            finally:
                wait(futures)
        for future in futures:
            future.result()

    def batched(self, query: LiteralString, rows: Sequence[Any],
                name: str = "rows") -> None:
        for start in range(0, len(rows), self.batch_size):
            self.run(query, **{name: rows[start:start + self.batch_size]})

    def previous_pages(self) -> list[list[Any]]:
        """One row per page, fields in `PAGE_HASH_FIELDS` order (lists: 100k dicts cost more
        than the query)."""
        with translate_errors():
            records, _, _ = self.driver.execute_query(w.PAGE_HASHES, database_=self.database,
                                                      routing_="r")
        rows: list[list[Any]] = records[0]["rows"]
        return rows

    def entry_signatures(self) -> dict[str, str | None]:
        with translate_errors():
            records, _, _ = self.driver.execute_query(w.ENTRY_SIGNATURES,
                                                      database_=self.database, routing_="r")
        return dict(records[0]["rows"])

    def log_state(self, page: str) -> LogState | None:
        rows = self.read(w.LOG_STATE, page=page)
        if not rows:
            return None
        return LogState(rows[0]["context"], {key: (line, seg) for key, line, seg
                                             in rows[0]["entries"]})

    def entries_reach(self, keys: Collection[str]) -> tuple[set[str], set[str]]:
        pages: set[str] = set()
        blocks: set[str] = set()
        for row in self.read(w.ENTRIES_REACH, keys=list(keys),
                             passing=sorted(role.value for role in PASSING)):
            pages.update(row["pages"])
            blocks.update(row["blocks"] or ())
        return pages, blocks

    # -- the whole write -------------------------------------------------------------------

    def write(self, load: VaultStream[PageFacts]) -> WriteStats:
        """Write a load chunk by chunk, as its pages are parsed: memory holds a chunk's records,
        not the vault's."""
        done = self.begin(load)
        for facts in load.chunks:
            self.write_chunk(done, facts)
        self.finish(done, load)
        return self.stats

    def begin(self, load: VaultStream[Any]) -> WritePass:
        """Remove what the load replaces and make every page it writes; the pass that the
        chunks and `finish` then share."""
        changed = list(load.todo)
        gone = list(load.deleted)
        groups: set[Group] = set()
        # Only pages the graph already has can have facts to remove (none on a first ingest).
        existing = self._existing(changed + gone) if changed or gone else []
        # The log's unchanged entries were not parsed: their facts are moved, not rewritten.
        log = LogUpdate(load.log) if load.log_moves and load.log else None
        if log is not None and log.page not in existing:
            raise GraphError(f"the log page {log.page!r} is not in the graph to move from")
        # When this write rewrites every page the graph has, no numeric claim survives from
        # before it: conflicts can be derived from the load, without reading claims back.
        whole = len(existing) == self.page_count() and log is None
        if log is not None:
            self.run(w.CLEAR_HASHES, keys=[log.page])  # its facts are removed as it arrives
        removed = [k for k in existing if log is None or k != log.page]
        if removed:
            groups = set() if whole else self.numeric_groups(removed)
            self.remove_facts(removed)
            for start in range(0, len(gone), self.batch_size):
                self.run(w.DELETE_PAGES, keys=gone[start:start + self.batch_size])
        # Every page to write exists before the first chunk: a link, mention, claim or log
        # entry in one chunk may name a page of a later one. New pages get their hash last.
        have = set(existing)
        self.batched(w.ADD_PAGES, [k for k in changed if k not in have], name="keys")
        return WritePass(touched=bool(changed or gone), whole=whole, log=log, groups=groups,
                         later=Deferred(keep_claims=whole))

    def write_chunk(self, done: WritePass, facts: list[PageFacts]) -> None:
        """One chunk's pages and their facts."""
        log = done.log
        # The log's update when this chunk holds the log page (decided once per chunk).
        chunk_log = log if log is not None and any(
            f.page.key == log.page for f in facts) else None
        if chunk_log is not None:
            facts = self._pages_and_log(facts, chunk_log)
        else:
            self._pages(facts)
        self._links(facts)
        if chunk_log is not None:
            chunk_log.recount(self)
        self._relations(facts)
        self._log(facts)
        self._claims(facts)
        done.later.add(facts)

    def finish(self, done: WritePass, load: VaultStream[Any]) -> None:
        """After the last chunk: what names claims, log entries or pages of any chunk, the
        conflicts, and last the hashes that mark the pages done."""
        later, groups = done.later, done.groups
        self.batched(w.FOLDS, later.folds)
        self.batched(w.UPSERT_CONTRADICTIONS, later.contradictions)
        if done.log is not None:
            groups.update(done.log.groups)
            self.stats.moved += done.log.moved
        if done.touched:
            self.run(w.DELETE_ORPHANS)
            groups.update(later.groups)
            if done.whole:
                self._derive_all(list(later.numeric.values()))
            else:
                self._derive_detected(groups, written=later.grouped)
        self.batched(w.SET_HASHES, later.hashes)
        self.batched(w.SET_STAMPS, [{"key": st.key, "mtime_ns": st.mtime_ns, "size": st.size}
                                    for st in load.stamps])

    def _pages_and_log(self, facts: list[PageFacts], log: LogUpdate) -> list[PageFacts]:
        """The chunk holding the log: its pages written while the log's facts move."""
        at = next(i for i, f in enumerate(facts) if f.page.key == log.page)
        moved = log.apply(self, facts[at], alongside=lambda: self._pages(facts))
        return [*facts[:at], moved, *facts[at + 1:]]

    def remove_facts(self, keys: list[str]) -> None:
        for start in range(0, len(keys), self.batch_size):
            chunk = keys[start:start + self.batch_size]
            self.run(w.CLEAR_HASHES, keys=chunk)
            for rel_type in ASSERTED_TYPES:
                self.run(w.delete_asserted(rel_type), keys=chunk)
            self.run(w.DELETE_ASSERTED_NODES, keys=chunk)
            self.run(w.DELETE_FOLDS, keys=chunk)

    def _pages(self, facts: list[PageFacts]) -> None:
        by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for f in facts:
            by_kind[f.page.kind.value].append({"key": f.page.key, "props": page_props(f)})
        for kind, rows in sorted(by_kind.items()):
            self.batched(w.upsert_pages(kind), rows)
            self.stats.by_kind[kind] = len(rows)

    def _links(self, facts: list[PageFacts]) -> None:
        to_page, dangling, attachments, venues = [], [], [], []
        for f in facts:
            for link in f.links:
                props = _set({"asserted_by": link.source, "line": link.line, "raw": link.raw,
                              "display": link.display, "heading": link.heading,
                              "block": link.block, "embed": link.embed, "field": link.field,
                              "section": link.section, "markdown": link.markdown})
                row = {"source": link.source, "props": props}
                if link.target:
                    to_page.append({**row, "target": link.target})
                elif link.attachment:
                    attachments.append({**row, "target": link.target_name})
                else:
                    dangling.append({**row, "target": link.target_name})
            if f.venue:
                venues.append({"source": f.page.key, "target": f.venue,
                               "props": {"asserted_by": f.page.key}})
        self.batched(w.LINK_TO_PAGE, to_page)
        self.batched(w.LINK_TO_DANGLING, dangling)
        self.batched(w.LINK_TO_ATTACHMENT, attachments)
        self.batched(w.PUBLISHED_IN, venues)

    def _relations(self, facts: list[PageFacts]) -> None:
        rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for f in facts:
            for a in f.authorships:
                rows["AUTHORED_BY"].append({"source": a.paper, "target": a.person, "props": {
                    "asserted_by": a.paper, "position": a.position, "line": a.line}})
            for r in f.relations:
                rows[r.type].append({"source": r.source, "target": r.target, "props": {
                    "asserted_by": r.source, "field": r.field, "line": r.line}})
            for lin in f.lineage:
                rows[lin.relation.value].append({"source": lin.child, "target": lin.parent,
                                                 "props": _set({
                    "asserted_by": lin.page, "page": lin.page, "line": lin.line,
                    "mechanism": lin.mechanism.value, "introduced_by": lin.introduced_by,
                    "text": lin.text})})
            for m in f.mentions:
                rows["MENTIONS"].append({"source": m.source, "target": m.target, "props": {
                    "asserted_by": m.source, "line": m.line, "text": m.text, "linked": False}})
        for rel_type in ASSERTED_TYPES:
            if rows.get(rel_type):
                self.batched(w.page_relation(rel_type), rows[rel_type])

    def _log(self, facts: list[PageFacts]) -> None:
        for f in facts:
            if not f.is_log:
                continue
            page = f.page.key
            self.run(w.DELETE_LOG_TOUCHES, page=page)
            keys = [e.key for e in f.log_entries]
            self.run(w.DELETE_STALE_LOG_ENTRIES, page=page, keys=keys)
            self.write_log_entries(page, f.log_entries, f.log_segments)

    def write_log_entries(self, page: str, entries: Iterable[LogEntry],
                          segments: Iterable[LogSegment]) -> None:
        """Log entries (made, or every property replaced) and their touches (made)."""
        prints = {s.entry: s.print for s in segments}
        entries = list(entries)
        self.batched(w.UPSERT_LOG_ENTRIES, [{"key": e.key, "props": _set({
            "key": e.key, "date": e.date, "op": e.op, "title": e.title, "line": e.line,
            "seq": e.seq, "day_seq": e.day_seq, "style": e.style, "text": e.text,
            "search_text": search_text(e),
            "page": page, "asserted_by": page, "block_ids": list(e.block_ids),
            "signature": e.signature, "segment_print": prints.get(e.key),
            "bullets": bullet_rows(e),
        })} for e in entries])
        touch_page, touch_dangling = [], []
        for e in entries:
            for t in e.touches:
                row = {"entry": e.key, "props": touch_props(t, page)}
                if t.page:
                    touch_page.append({**row, "target": t.page})
                else:
                    touch_dangling.append({**row, "target": t.name})
        self.batched(w.TOUCH_PAGE, touch_page)
        self.batched(w.TOUCH_DANGLING, touch_dangling)

    def _claims(self, facts: list[PageFacts]) -> None:
        self.batched(w.UPSERT_CLAIMS, claim_rows(facts))

    def read(self, query: LiteralString, **params: Any) -> list[dict[str, Any]]:
        """Rows of a query that returns values, lists and maps only (every query here): taken
        as they come, without `record.data()`'s recursive conversion (thousands of claims)."""
        with translate_errors():
            records, _, keys = self.driver.execute_query(query, _quiet(params),
                                                         database_=self.database)
        return value_rows(keys, records)

    def _existing(self, keys: list[str]) -> list[str]:
        """The keys (in order) of pages the graph holds now."""
        found: set[str] = set()
        for start in range(0, len(keys), self.batch_size):
            found.update(r["key"] for r in self.read(
                w.EXISTING_PAGES, keys=keys[start:start + self.batch_size]))
        return [k for k in keys if k in found]

    def page_count(self) -> int:
        """How many pages the graph holds."""
        return int(self.read(w.PAGE_COUNT)[0]["n"])

    def numeric_groups(self, keys: list[str]) -> set[Group]:
        """Groups of the numeric claims these pages state now (before their removal)."""
        out: set[Group] = set()
        for start in range(0, len(keys), self.batch_size):
            out.update((r["subject"], r["metric"], r["unit"]) for r in self.read(
                w.NUMERIC_GROUPS_OF, keys=keys[start:start + self.batch_size]))
        return out

    def _derive_detected(self, groups: set[Group], written: int = 0) -> None:
        """Numeric conflicts from numeric claims. Only the conflicts of `groups` (plus any a
        dead run left without a claim) and of the groups co-stated with them can change
        (`graph.conflict_scope`); they are re-derived alone, atomically. Too many: everything
        is re-derived."""
        groups = groups | {g for r in self.read(w.DIRTY_DETECTED)
                           if (g := conflict_group(r["id"])) is not None}
        if groups:
            scope = conflict_scope(groups, GraphClaims(self), INCREMENTAL_CLAIMS, written)
            if scope is None:
                self._derive_all([ClaimRecord(origin="numeric", **r)
                                  for r in self.read(w.NUMERIC_CLAIMS)])
                return
            self._replace_detected(
                [contradiction_row(c, None) for c in detect_conflicts(scope.claims)
                 if scope.keeps(c)],
                self.read(w.DETECTED_OF, ids=sorted(scope.ids)))
        self.run(w.MARK_DETECTED)

    def _derive_all(self, claims: list[ClaimRecord]) -> None:
        """Every numeric conflict again, from all numeric claims the graph holds."""
        self._replace_detected([contradiction_row(c, None) for c in detect_conflicts(claims)],
                               self.read(w.DETECTED_ALL))
        self.run(w.MARK_DETECTED)

    def _replace_detected(self, rows: list[dict[str, Any]],
                          stored_rows: list[dict[str, Any]]) -> None:
        """Make the stored detected conflicts (`stored_rows`, from `DETECTED_OF`/`_ALL`) the
        derived `rows`, writing only what differs: usually a handful of nodes, none on a re-run.
        Atomic up to `batch_size` rows; a first ingest's thousands go in batches."""
        stored = {r["id"]: r for r in stored_rows}
        keep = {row["id"] for row in rows if row["id"] in stored
                and stored[row["id"]]["intact"]
                and _without(stored[row["id"]]["props"], "marked") == _without(
                    row["props"], None)}
        rows = [row for row in rows if row["id"] not in keep]
        gone = sorted(set(stored) - keep)
        if not rows and not gone:
            return
        statements: list[tuple[LiteralString, dict[str, Any]]] = [
            (w.DELETE_CONTRADICTIONS, {"ids": gone[start:start + self.batch_size]})
            for start in range(0, len(gone), self.batch_size)] + [
            (w.UPSERT_CONTRADICTIONS, {"rows": rows[start:start + self.batch_size]})
            for start in range(0, len(rows), self.batch_size)]
        if len(rows) + len(gone) <= self.batch_size:
            self.run_together(statements)
        else:
            for query, params in statements:
                self.run(query, **params)

    def run_together(self, statements: list[tuple[LiteralString, dict[str, Any]]]) -> None:
        """Several statements in one transaction: all of them happen, or none."""
        def work(tx: neo4j.ManagedTransaction) -> list[neo4j.SummaryCounters]:
            return [tx.run(query, params).consume().counters for query, params in statements]

        with translate_errors(), self.driver.session(database=self.database) as session:
            done = session.execute_write(work)
        with self._counting:
            for counters in done:
                self.stats.add(counters)


class GraphClaims:
    """The numeric claims the graph holds, as `graph.conflict_scope` asks for them."""

    def __init__(self, writer: GraphWriter) -> None:
        self.writer = writer

    def co_stated(self, groups: set[Group]) -> set[Group]:
        return _group_set(self.writer.read(w.CO_STATED_GROUPS, groups=_group_rows(groups)))

    def claims_of(self, groups: set[Group]) -> list[ClaimRecord]:
        return [ClaimRecord(origin="numeric", **r) for r in self.writer.read(
            w.NUMERIC_CLAIMS_OF, groups=_group_rows(groups))]

    def count_of(self, groups: set[Group]) -> int:
        return int(self.writer.read(w.NUMERIC_COUNT_OF, groups=_group_rows(groups))[0]["n"])

    def holders(self, signatures: list[frozenset[Point]]) -> set[Group]:
        if not signatures:
            return set()
        rows = [[{"page": p, "line": line, "value": v} for p, line, v in sorted(
            sig, key=lambda pt: (pt[0] or "", pt[1] or 0, pt[2] or 0.0))]
            for sig in signatures]
        return _group_set(self.writer.read(w.HOLDERS, signatures=rows))


def _group_rows(groups: set[Group]) -> list[dict[str, str]]:
    return [{"subject": s, "metric": m, "unit": u} for s, m, u in sorted(groups)]


def _group_set(rows: list[dict[str, Any]]) -> set[Group]:
    return {(r["subject"], r["metric"], r["unit"]) for r in rows}


@dataclass
class WritePass:
    """One write's state between `begin`, its chunks and `finish`."""

    touched: bool  # pages are written or deleted
    whole: bool  # every page the graph holds is rewritten (conflicts derive from the load)
    log: LogUpdate | None  # the log's moved facts, if its unchanged entries were not parsed
    groups: set[Group]  # conflict groups whose numeric claims changed
    later: Deferred


@dataclass
class Deferred:
    """What is written after the last chunk: rows that name claims, log entries or pages any
    chunk may hold, what conflict derivation needs, and the hashes that mark pages done."""

    keep_claims: bool  # keep the numeric claims (to derive every conflict from them)
    folds: list[dict[str, Any]] = field(default_factory=list)
    contradictions: list[dict[str, Any]] = field(default_factory=list)
    hashes: list[dict[str, Any]] = field(default_factory=list)
    groups: set[Group] = field(default_factory=set)
    grouped: int = 0  # numeric claims written in a group (all of them in `groups`)
    # The numeric claims the graph holds after the write: one per id, the last written (as
    # `MERGE ... SET` leaves it).
    numeric: dict[str, ClaimRecord] = field(default_factory=dict)

    def merge(self, other: Deferred) -> None:
        """`other`'s pages added after these (as if `add` had been called with them)."""
        self.folds += other.folds
        self.contradictions += other.contradictions
        self.hashes += other.hashes
        self.groups |= other.groups
        self.grouped += other.grouped
        self.numeric.update(other.numeric)

    def add(self, facts: list[PageFacts]) -> None:
        for f in facts:
            page = f.page.key
            self.hashes.append({"key": page, "hash": f.page.content_hash})
            self.contradictions += [contradiction_row(c, page) for c in f.contradictions]
            if f.fold is not None:
                self.folds += [{"source": page, "target": key, "props": {
                    "position": i, "asserted_by": page}}
                    for i, key in enumerate(f.fold.entries, start=1)]
            for c in f.claims:
                if c.origin != "numeric":
                    continue
                if (group := group_of(c)) is not None:
                    self.groups.add(group)
                    self.grouped += 1
                if self.keep_claims:
                    self.numeric[c.id] = c


class Batch(list[Any]):
    """A list parameter (rows, keys, moves) as the driver is given it: the same list, and the
    same bytes on the wire, with a `repr` of one line. The driver formats every statement's
    parameters for a debug log line before the logger decides to drop it
    (`neo4j/_sync/io/_bolt5.py`, `run`): for 5,000 rows, ~10 ms of the writer's time per
    batch, as long as packing them."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{len(self):,} items>"


def _quiet(params: dict[str, Any]) -> dict[str, Any]:
    """`params` with each list or tuple a `Batch`."""
    return {name: Batch(value) if isinstance(value, list | tuple) else value
            for name, value in params.items()}


def _set(props: dict[str, Any]) -> dict[str, Any]:
    """The properties that have a value: a null one stores nothing, but is still sent."""
    return {k: v for k, v in props.items() if v is not None}


def _without(props: dict[str, Any], key: str | None) -> dict[str, Any]:
    """Properties as Neo4j stores them (no nulls), less `key`."""
    return {k: v for k, v in _set(props).items() if k != key}


def page_props(f: PageFacts) -> dict[str, Any]:
    """Node properties of a page, all of them (they replace what the node had; its hash is set
    separately, last)."""
    p = f.page
    props: dict[str, Any] = {
        "key": p.key, "path": p.path, "kind": p.kind.value, "title": p.title,
        "aliases": list(p.aliases), "aliases_text": " ".join(p.aliases), "tags": list(p.tags),
        "names_folded": list(p.names_folded), "source_type": p.source_type,
        "entity_type": p.entity_type, "year": p.year, "venue": p.venue, "url": p.url,
        "status": p.status, "created": p.created, "updated": p.updated,
        "date_published": p.date_published, "mtime_ns": p.mtime_ns,
        # The log's body is kept out of the full-text index of bodies (`page_text`): its
        # entries are indexed one by one (`log_text`), so a new entry is not the whole log
        # (17 MB at 100k pages, 1.2-1.7 s of Neo4j's CPU) indexed again.
        "log_body" if f.is_log else "body": p.body,
        "size": p.size, "link_count": len(f.links), "log_context": f.log_context,
        "dangling_count": sum(1 for lk in f.links if not lk.target and not lk.attachment),
        "dangling": sorted({lk.target_name for lk in f.links
                            if not lk.target and not lk.attachment}),
    }
    if f.fold is not None:
        props.update({"fold_id": f.fold.fold_id, "level": f.fold.level,
                      "entry_count": f.fold.entry_count, "range_from": f.fold.range_from,
                      "range_to": f.fold.range_to, "child_keys": list(f.fold.child_keys)})
    return _set(props)


def claim_rows(facts: Iterable[PageFacts]) -> list[dict[str, Any]]:
    """Claim rows of these pages. A claim id stated on several pages ends up as its last
    page states it (rows are written in order, `MERGE ... SET`)."""
    return [{"id": c.id, "page": c.page, "subject": c.subject, "props": _set({
        "id": c.id, "text": c.text, "origin": c.origin, "page": c.page, "line": c.line,
        "subject": c.subject, "metric": c.metric, "value": c.value, "unit": c.unit,
        "qualifiers": list(c.qualifiers), "assessment": c.assessment, "pages": list(c.pages),
        "introduced_by": c.introduced_by, "known": c.known, "asserted_by": f.page.key})}
        for f in facts for c in f.claims]


def contradiction_row(c: ContradictionRecord, asserted_by: str | None) -> dict[str, Any]:
    # Pages in key order: a set (RDF keeps it as one), so the first few are the same whichever
    # way the graph was written.
    lists = {"pages": sorted(c.pages), "claims": list(c.claims), "evidence": list(c.evidence)}
    return {"id": c.id, "claims": lists["claims"], "pages": lists["pages"],
            "introduced_by": c.introduced_by, "props": _set({
                "id": c.id, "kind": c.kind, "status": c.status, "origin": c.origin,
                "summary": c.summary, "page": c.page, "line": c.line, "subject": c.subject,
                **lists, **list_heads(lists), "introduced_by": c.introduced_by,
                "known": c.known, "asserted_by": asserted_by})}
