"""Cypher of the fold resolver: log entries of a range (or the 2^K ending at a date, or those a
Fold node folds) with the pages they touch and the concepts those pages are ABOUT;
contradictions touching a set of entries and pages; Fold nodes by level; and the one write,
recording a Fold node the way ingest records a fold page (`:Page:Fold {key: fold_id}` with
`FOLDS {position, asserted_by}`), so that ingesting the written page converges on it."""

from __future__ import annotations

import datetime as dt
from typing import Any, LiteralString

import neo4j

from loaders.text import fold_name
from queries.base import GraphContext
from queries.common import name_term, pages_named, stored_bullets, touch_line
from queries.fold_models import (
    BulletFacts,
    ClaimFacts,
    ConceptFacts,
    ContradictionFacts,
    EntryFacts,
    FoldDigest,
    FoldSummary,
    TouchFacts,
)

# The entries `e`, oldest first, as one list (`GraphContext.read_rows`: a 1,024-entry fold's
# entries as 1,024 records cost 40 CPU-ms in the client at 100k pages, as one 16).
_ENTRY_ROWS: LiteralString = (
    "ORDER BY e.seq RETURN collect({key: e.key, date: toString(e.date), op: e.op, "
    "title: e.title, seq: e.seq, line: e.line, "
    "text: coalesce(e.text, ''), bullets: coalesce(e.bullets, []), "
    "touches: COLLECT { MATCH (e)-[t:TOUCHES]->(n) "
    "  RETURN {role: t.role, line: " + touch_line("t") + ", "
    "          key: CASE WHEN n:Page THEN n.key END, "
    "          name: coalesce(n.key, n.name), kind: n.kind, created: toString(n.created), "
    "          aliases: coalesce(n.aliases, []), "
    "          about: COLLECT { MATCH (n)-[:ABOUT]->(c:Concept) "
    "                           RETURN {key: c.key, created: toString(c.created)} } } }"
    "}) AS rows")

ENTRIES_IN_RANGE: LiteralString = (
    "MATCH (e:LogEntry) WHERE e.date >= $date_from AND e.date <= $date_to "
    "AND ($as_of IS NULL OR e.date <= $as_of) WITH e " + _ENTRY_ROWS)
# The newest entry dated on or before $bound is found on the date index, then the seq index is
# read backwards from it for $count entries. `seq` follows the dates (`loaders.log` numbers the
# entries after sorting them by date), so every entry below it is dated on or before $bound.
# Filtering the seq index by date instead read every entry newer than $bound first: half the
# log for a fold ending mid-way (3-28 ms at 100k pages for 16 entries).
ENTRIES_ENDING: LiteralString = (
    "CALL () { MATCH (b:LogEntry) WHERE b.date <= $bound "
    "  RETURN b.date AS last ORDER BY b.date DESC LIMIT 1 } "
    "CALL (last) { MATCH (b:LogEntry) WHERE b.date = last RETURN max(b.seq) AS top } "
    "CALL (top) { MATCH (e:LogEntry) USING INDEX e:LogEntry(seq) WHERE e.seq <= top "
    "  RETURN e ORDER BY e.seq DESC LIMIT $count } "
    "WITH e " + _ENTRY_ROWS)
ENTRIES_BY_KEYS: LiteralString = (
    "MATCH (e:LogEntry) WHERE e.key IN $keys AND ($as_of IS NULL OR e.date <= $as_of) "
    "WITH e " + _ENTRY_ROWS)
FOLD_ENTRY_KEYS: LiteralString = (
    "MATCH (f:Fold {fold_id: $fold_id})-[r:FOLDS]->(e:LogEntry) "
    "WITH e ORDER BY r.position RETURN collect(e.key) AS keys")
RANGE_KEYS: LiteralString = (
    "MATCH (e:LogEntry) WHERE e.date >= $date_from AND e.date <= $date_to "
    "WITH e ORDER BY e.seq RETURN collect(e.key) AS keys")
BASE_SEQ: LiteralString = "MATCH (e:LogEntry) WHERE e.date = $date RETURN min(e.seq) AS base"
# Two index ends and the count store, not a scan of every entry.
LOG_FACTS: LiteralString = (
    "OPTIONAL CALL () { MATCH (e:LogEntry) WHERE e.date IS NOT NULL "
    "  RETURN e.date AS latest ORDER BY e.date DESC LIMIT 1 } "
    "OPTIONAL CALL () { MATCH (e:LogEntry) WHERE e.page IS NOT NULL "
    "  RETURN e.page AS log_page ORDER BY e.page LIMIT 1 } "
    "RETURN latest, log_page, COUNT { MATCH (e:LogEntry) } AS entries")
# A page named by its key (unique index) or by an alias (an alias is among its folded names:
# index `page_names`), then the exact test.
PAGES_BY_NAME: LiteralString = (
    "CALL () { UNWIND $names AS n MATCH (p:Page {key: n}) RETURN p "
    "  UNION UNWIND $terms AS term " + pages_named("term", "p") + "RETURN p } "
    "WITH p WHERE p.key IN $names OR any(a IN coalesce(p.aliases, []) WHERE a IN $names) "
    "WITH p ORDER BY size(p.path), p.path "
    "RETURN collect({key: p.key, aliases: coalesce(p.aliases, []), path: p.path}) AS rows")
# Three index seeks, UNIONed (distinct), instead of an OR over every Contradiction: by
# `introduced_by` (index contradiction_introduced_by), by `subject` (contradiction_subject), and
# through CONCERNS, which ingest keeps equal to `x.pages` for the keys that are pages (and
# $pages holds only page keys).
CONTRADICTIONS_TOUCHING: LiteralString = (
    "CALL () { "
    "  UNWIND $entry_keys AS k MATCH (x:Contradiction {introduced_by: k}) RETURN x "
    "  UNION UNWIND $pages AS k MATCH (x:Contradiction {subject: k}) RETURN x "
    "  UNION UNWIND $pages AS k MATCH (:Page {key: k})<-[:CONCERNS]-(x:Contradiction) RETURN x } "
    "WITH x "
    "OPTIONAL MATCH (i:LogEntry {key: x.introduced_by}) "
    "OPTIONAL MATCH (xp:Page {key: x.page}) "
    "WITH x, i, xp ORDER BY x.id "  # as one list (`GraphContext.read_rows`)
    "RETURN collect({id: x.id, kind: x.kind, status: x.status, origin: x.origin, "
    "summary: coalesce(x.summary, ''), subject: x.subject, pages: coalesce(x.pages, []), "
    "introduced_by: x.introduced_by, introduced: toString(i.date), "
    "known: toString(x.known), page_updated: toString(xp.updated), "
    # A conflict of claims has its date stored at ingest (`known`; a 1,024-entry fold at 100k
    # pages touches 52k claims): the claims are read only when nothing else dates it.
    "claims: CASE WHEN i IS NULL AND x.known IS NULL THEN COLLECT { "
    "  MATCH (x)-[:INVOLVES]->(c:Claim) "
    "  OPTIONAL MATCH (ci:LogEntry {key: c.introduced_by}) "
    "  OPTIONAL MATCH (cp:Page {key: c.page}) "
    # A claim on the log page is known since the entry above its line: ingest stores that
    # date as its `known` (`loaders.vault._log_claims`; the log page alone has a context).
    # A list per claim, dates as ISO text: thousands of them, and the driver's date and map
    # decoding cost more than the query (see `_claim`).
    "  RETURN [c.id, c.value, toString(ci.date), "
    "          CASE WHEN cp.log_context IS NOT NULL THEN toString(c.known) END, "
    "          toString(cp.updated), toString(cp.created)] } ELSE [] END}) AS rows")
FOLDS_BY_LEVEL: LiteralString = (
    "MATCH (f:Fold) WHERE $level IS NULL OR f.level = $level "
    "WITH f ORDER BY f.range_from, f.range_to, f.fold_id "
    "RETURN collect({fold_id: f.fold_id, key: f.key, level: f.level, "
    "entry_count: f.entry_count, range_from: f.range_from, range_to: f.range_to, "
    "child_keys: coalesce(f.child_keys, []), entries: COUNT { (f)-[:FOLDS]->() }, "
    "path: f.path}) AS rows")
FOLD_BY_ID: LiteralString = (
    "MATCH (f:Fold {fold_id: $fold_id}) "
    "RETURN f.fold_id AS fold_id, f.key AS key, f.level AS level, f.entry_count AS entry_count, "
    "f.range_from AS range_from, f.range_to AS range_to, "
    "coalesce(f.child_keys, []) AS child_keys, COUNT { (f)-[:FOLDS]->() } AS entries, "
    "f.path AS path")

# The write: same node and edges as graph/writer.py makes for an ingested fold page.
RECORD_FOLD: LiteralString = (
    "MERGE (f:Page {key: $fold_id}) SET f:Fold, f += $props "
    "WITH f CALL (f) { MATCH (f)-[old:FOLDS]->() DELETE old } "
    "WITH f UNWIND $entries AS row MATCH (e:LogEntry {key: row.key}) "
    "CREATE (f)-[r:FOLDS]->(e) SET r.position = row.position, r.asserted_by = $fold_id "
    "RETURN count(r) AS n")


def _native(value: Any) -> Any:
    """Driver temporal values to Python ones, recursively."""
    if isinstance(value, neo4j.time.Date):
        return value.to_native()
    if isinstance(value, list):
        return [_native(v) for v in value]
    if isinstance(value, dict):
        return {k: _native(v) for k, v in value.items()}
    return value


def _iso(text: str | None) -> dt.date | None:
    """The fold reads return their dates as ISO text (`toString`): a fold of 256 entries reads
    ~2,300 of them, and the driver decodes a date in Python for ~10 µs, `fromisoformat` in C
    for well under one."""
    return dt.date.fromisoformat(text) if text is not None else None


def _dated(row: dict[str, Any], *fields: str) -> dict[str, Any]:
    return {**row, **{f: _iso(row[f]) for f in fields}}


def _entry(row: dict[str, Any]) -> EntryFacts:
    bullets = [BulletFacts(label=str(data.get("label", "")), text=str(data.get("text", "")),
                           line=int(data.get("line") or 0))
               for data in stored_bullets(row["bullets"], row.get("line"))]
    touches = [TouchFacts(
        role=t["role"] or "", line=t["line"], key=t["key"], name=t["name"], kind=t["kind"],
        created=_iso(t["created"]), aliases=tuple(t["aliases"]),
        about=tuple(sorted((ConceptFacts(**_dated(c, "created")) for c in t["about"]),
                           key=lambda c: c.key)))
        for t in row["touches"]]
    touches.sort(key=lambda t: (t.line or 0, t.role, t.name))
    return EntryFacts(key=row["key"], date=_iso(row["date"]), op=row["op"] or "",
                      title=row["title"] or "", seq=row["seq"], text=row["text"],
                      bullets=tuple(bullets), touches=tuple(touches))


def entries_in_range(ctx: GraphContext, date_from: dt.date, date_to: dt.date,
                     as_of: dt.date | None = None) -> list[EntryFacts]:
    """Log entries dated date_from..date_to (and not after as_of), oldest first."""
    rows = ctx.read_rows(ENTRIES_IN_RANGE, date_from=date_from, date_to=date_to, as_of=as_of)
    return [_entry(r) for r in rows]


def entries_ending(ctx: GraphContext, count: int, ending: dt.date,
                   as_of: dt.date | None = None) -> list[EntryFacts]:
    """The `count` newest log entries dated on or before `ending`, oldest first."""
    bound = min(ending, as_of) if as_of is not None else ending
    rows = ctx.read_rows(ENTRIES_ENDING, bound=bound, count=count)
    return [_entry(r) for r in rows]


def entries_by_keys(ctx: GraphContext, keys: list[str],
                    as_of: dt.date | None = None) -> list[EntryFacts]:
    """The log entries with these keys, oldest first."""
    return [_entry(r) for r in ctx.read_rows(ENTRIES_BY_KEYS, keys=keys, as_of=as_of)]


def fold_entry_keys(ctx: GraphContext, fold_id: str) -> list[str]:
    """Keys of the entries a Fold node FOLDS, in position order."""
    return list(ctx.read_values(FOLD_ENTRY_KEYS, fold_id=fold_id)[0]["keys"])


def range_keys(ctx: GraphContext, date_from: dt.date, date_to: dt.date) -> list[str]:
    """Keys of every log entry dated date_from..date_to, oldest first."""
    return list(ctx.read_values(RANGE_KEYS, date_from=date_from, date_to=date_to)[0]["keys"])


def base_seq(ctx: GraphContext, date: dt.date) -> int:
    """Seq of the first log entry of a day (child keys count positions from it)."""
    rows = ctx.read(BASE_SEQ, date=date)
    base = rows[0]["base"] if rows else None
    return int(base) if base is not None else 1


def log_facts(ctx: GraphContext) -> tuple[dt.date | None, str, int]:
    """(date of the newest log entry, key of the log page, number of entries)."""
    row = _native(ctx.read(LOG_FACTS)[0])
    return row["latest"], row["log_page"] or "log", int(row["entries"])


def resolve_names(ctx: GraphContext, names: list[str]) -> dict[str, str | None]:
    """Link name -> page key (file stem first, then alias; shortest path wins), None if none."""
    terms = sorted({name_term(fold_name(n)) for n in names if fold_name(n)})
    rows = ctx.read_rows(PAGES_BY_NAME, names=names, terms=terms)
    by_key = {r["key"]: r["key"] for r in rows}
    by_alias: dict[str, str] = {}
    for r in rows:
        for alias in r["aliases"]:
            by_alias.setdefault(alias, r["key"])
    folded = {fold_name(k): k for k in reversed(list(by_key))}
    out: dict[str, str | None] = {}
    for name in names:
        out[name] = (by_key.get(name) or by_alias.get(name)
                     or by_key.get(name.rsplit("/", 1)[-1]) or folded.get(fold_name(name)))
    return out


def _claim(row: list[Any]) -> ClaimFacts:
    """A claim as CONTRADICTIONS_TOUCHING returns it: [id, value, introduced, log_date,
    page_updated, page_created]."""
    cid, value, introduced, log_date, updated, created = row
    return ClaimFacts(id=cid, value=value, introduced=_iso(introduced), log_date=_iso(log_date),
                      page_updated=_iso(updated), page_created=_iso(created))


def contradictions_touching(ctx: GraphContext, entry_keys: list[str],
                            pages: list[str]) -> list[ContradictionFacts]:
    """Contradictions introduced by one of the entries or concerning one of the pages."""
    out = []
    for row in ctx.read_rows(CONTRADICTIONS_TOUCHING, entry_keys=entry_keys, pages=pages):
        row = _dated(row, "introduced", "known", "page_updated")
        claims = tuple(sorted((_claim(c) for c in row.pop("claims")), key=lambda c: c.id))
        out.append(ContradictionFacts(
            **{**row, "pages": tuple(row["pages"]), "summary": row["summary"] or ""},
            claims=claims))
    return out


def _summary(row: dict[str, Any]) -> FoldSummary:
    row = _native(row)
    return FoldSummary(**{**row, "child_keys": tuple(row["child_keys"])})


def list_folds(ctx: GraphContext, level: int | None = None) -> list[FoldSummary]:
    """Fold nodes (of one level, or all), oldest range first."""
    return [_summary(r) for r in ctx.read_rows(FOLDS_BY_LEVEL, level=level)]


def fold_node(ctx: GraphContext, fold_id: str) -> FoldSummary | None:
    """The Fold node with this fold_id, if the graph has one."""
    rows = ctx.read(FOLD_BY_ID, fold_id=fold_id)
    return _summary(rows[0]) if rows else None


def record_fold(ctx: GraphContext, digest: FoldDigest, path: str) -> int:
    """MERGE the Fold node of a written fold page and its FOLDS edges; returns the edge count.
    `path` is the page's vault-relative path (as ingest stores it)."""
    props = {
        "key": digest.fold_id, "fold_id": digest.fold_id, "kind": "Fold", "path": path,
        "title": digest.title, "level": digest.level, "entry_count": digest.entry_count,
        "range_from": digest.range_from, "range_to": digest.range_to,
        "child_keys": digest.child_keys, "tags": ["meta", "fold", f"fold/k{digest.level}"],
        "aliases": [], "aliases_text": "", "status": "mature",
        "names_folded": sorted({fold_name(digest.fold_id), fold_name(digest.title)}),
    }
    entries = [{"key": c.entry_key, "position": i}
               for i, c in enumerate(digest.children, start=1)]
    counters = ctx.write(RECORD_FOLD, fold_id=digest.fold_id, props=props, entries=entries)
    return int(counters.relationships_created)


PAGE_PATH: LiteralString = "MATCH (p:Page {key: $key}) RETURN p.path AS path"


def page_path(ctx: GraphContext, key: str) -> str | None:
    """Vault-relative path of a page (None: no such page)."""
    rows = ctx.read(PAGE_PATH, key=key)
    return str(rows[0]["path"]) if rows and rows[0]["path"] else None
