"""Write statements (Cypher) used by the writer. Every value is a parameter; labels and
relationship types come only from the allow-lists in `graph.schema` and `loaders.pages`."""

from __future__ import annotations

from typing import LiteralString

from graph.schema import ASSERTED_TYPES, LINEAGE_TYPES
from loaders.fact_ids import NUMERIC_CLAIM

KIND_LABELS: dict[str, LiteralString] = {
    "Paper": ":Source:Paper", "Source": ":Source", "Person": ":Person",
    "Organization": ":Organization", "Product": ":Product", "Concept": ":Concept",
    "Fold": ":Fold", "Meta": ":Meta", "Note": "",
}
ALL_KIND_LABELS: LiteralString = ":Source:Paper:Person:Organization:Product:Concept:Fold:Meta"

# Every page, with or without a hash: a page a crashed run created has none and is redone.
# With the file's stamp and header: a file whose stamp is unchanged is not read again. One row
# of lists: the driver turns 10k records into dicts far slower than it decodes one list.
PAGE_HASH_FIELDS = ("key", "hash", "names", "kind", "path", "mtime_ns", "size", "title",
                    "aliases")
PAGE_HASHES = "MATCH (p:Page) " \
    "RETURN collect([p.key, p.content_hash, p.names_folded, p.kind, p.path, p.mtime_ns, " \
    "p.size, p.title, p.aliases]) AS rows"
# Stamps of pages whose file was touched without a change (their facts are not rewritten).
SET_STAMPS = (
    "UNWIND $rows AS row MATCH (p:Page {key: row.key}) "
    "SET p.mtime_ns = row.mtime_ns, p.size = row.size")
# Cleared before a page's facts are removed, so a run that dies midway redoes the page.
CLEAR_HASHES = "UNWIND $keys AS k MATCH (p:Page {key: k}) SET p.content_hash = null"


def upsert_pages(kind: str) -> LiteralString:
    """MERGE pages of one kind; the content hash is set last, by `SET_HASHES`."""
    labels = KIND_LABELS[kind]
    query: LiteralString = (
        "UNWIND $rows AS row MERGE (p:Page {key: row.key}) SET p = row.props "
        "WITH p REMOVE p" + ALL_KIND_LABELS + " WITH p "
    )
    if labels:
        query = query + "SET p" + labels + " "
    return query + "RETURN count(p) AS n"


# Which of these keys name a page the graph has (only those can have facts to remove).
EXISTING_PAGES = "UNWIND $keys AS k MATCH (p:Page {key: k}) RETURN k AS key"
PAGE_COUNT = "MATCH (p:Page) RETURN count(p) AS n"
SET_HASHES = "UNWIND $rows AS row MATCH (p:Page {key: row.key}) SET p.content_hash = row.hash"


def delete_asserted(rel_type: LiteralString) -> LiteralString:
    assert rel_type in ASSERTED_TYPES
    return ("UNWIND $keys AS k MATCH ()-[r:" + rel_type + "]->() WHERE r.asserted_by = k "
            "DELETE r")


DELETE_ASSERTED_NODES = (
    "UNWIND $keys AS k MATCH (c:Claim|Contradiction) WHERE c.asserted_by = k DETACH DELETE c")
# Pages a write is about to add, made first so that rows naming them find them (see the writer).
ADD_PAGES = "UNWIND $keys AS k MERGE (:Page {key: k})"
DELETE_PAGES = "UNWIND $keys AS k MATCH (p:Page {key: k}) DETACH DELETE p"
DELETE_ORPHANS = (
    "MATCH (n) WHERE (n:Dangling OR n:Attachment OR n:Venue) AND NOT (n)<--() DETACH DELETE n")

LINK_TO_PAGE = (
    "UNWIND $rows AS row MATCH (s:Page {key: row.source}) MATCH (t:Page {key: row.target}) "
    "CREATE (s)-[r:LINKS_TO]->(t) SET r = row.props")
LINK_TO_DANGLING = (
    "UNWIND $rows AS row MATCH (s:Page {key: row.source}) MERGE (t:Dangling {name: row.target}) "
    "CREATE (s)-[r:LINKS_TO]->(t) SET r = row.props")
LINK_TO_ATTACHMENT = (
    "UNWIND $rows AS row MATCH (s:Page {key: row.source}) "
    "MERGE (t:Attachment {name: row.target}) CREATE (s)-[r:LINKS_TO]->(t) SET r = row.props")
PUBLISHED_IN = (
    "UNWIND $rows AS row MATCH (p:Page {key: row.source}) MERGE (v:Venue {name: row.target}) "
    "CREATE (p)-[r:PUBLISHED_IN]->(v) SET r = row.props")


def page_relation(rel_type: LiteralString) -> LiteralString:
    """Page-to-page relationship of an allow-listed type, one per assertion."""
    assert rel_type in ASSERTED_TYPES
    return ("UNWIND $rows AS row MATCH (s:Page {key: row.source}) "
            "MATCH (t:Page {key: row.target}) CREATE (s)-[r:" + rel_type + "]->(t) "
            "SET r = row.props")


UPSERT_LOG_ENTRIES = (
    "UNWIND $rows AS row MERGE (e:LogEntry {key: row.key}) SET e = row.props")
# What the graph holds of the log's entries (see loaders.vault.LogHistory).
ENTRY_SIGNATURES = "MATCH (e:LogEntry) RETURN collect([e.key, e.signature]) AS rows"
ENTRIES_REACH = (
    "UNWIND $keys AS k MATCH (e:LogEntry {key: k}) "
    "RETURN e.block_ids AS blocks, "
    "COLLECT { MATCH (e)-[t:TOUCHES]->(p:Page) WHERE NOT t.role IN $passing "
    "          RETURN p.key } AS pages")
DELETE_STALE_LOG_ENTRIES = (
    "MATCH (e:LogEntry) WHERE e.asserted_by = $page AND NOT e.key IN $keys DETACH DELETE e")
DELETE_LOG_TOUCHES = (
    "MATCH (e:LogEntry)-[r:TOUCHES]->() WHERE e.asserted_by = $page DELETE r")
TOUCH_PAGE = (
    "UNWIND $rows AS row MATCH (e:LogEntry {key: row.entry}) MATCH (p:Page {key: row.target}) "
    "CREATE (e)-[r:TOUCHES]->(p) SET r = row.props")
TOUCH_DANGLING = (
    "UNWIND $rows AS row MATCH (e:LogEntry {key: row.entry}) "
    "MERGE (d:Dangling {name: row.target}) CREATE (e)-[r:TOUCHES]->(d) SET r = row.props")
# -- moving the log's facts (graph/log_update.py) ---------------------------------------------
# `_delta(line)` is how far the fact on that line of the old log moves: null where the line's
# segment changed or is gone (its facts are deleted and written again), 0 where it stays.
def _delta(line: LiteralString) -> LiteralString:
    """How far the fact on `line` of the old log moves (null: it is deleted). The moves come
    as `$runs`, [first line, last line, delta] (an entry added on top moves the rest of the
    log by one delta: one run), or, when they are many, as `$shift`, the delta by line."""
    return ("CASE WHEN $shift IS NULL THEN head([run IN $runs WHERE run[0] <= " + line + " AND "
            + line + " <= run[1] | run[2]]) ELSE $shift[" + line + "] END")


# The distinct groups of the numeric claims `c` that are compared within one (as
# `loaders.numeric.group_of` has it).
_GROUPS: LiteralString = (
    "AND c.origin = 'numeric' AND c.subject IS NOT NULL AND c.metric IS NOT NULL "
    "AND c.unit IS NOT NULL AND c.value IS NOT NULL "
    "RETURN DISTINCT c.subject AS subject, c.metric AS metric, c.unit AS unit")
LOG_STATE = (
    "MATCH (p:Page {key: $page}) RETURN p.log_context AS context, "
    "COLLECT { MATCH (e:LogEntry) WHERE e.page = $page "
    "          RETURN [e.key, e.line, e.segment_print] } AS entries")


def _every_relationship(then: LiteralString) -> LiteralString:
    """`then` for each relationship `r` the log asserts: one subquery per type (each an
    index seek on `asserted_by`); one statement, one round trip. (Its entries' touches are
    located relative to their entry: they move with it.)"""
    return " ".join("CALL () { MATCH ()-[r:" + t + "]->() WHERE r.asserted_by = $page " + then
                    + " }" for t in ASSERTED_TYPES)


DELETE_UNKEPT_RELATIONSHIPS = (
    _every_relationship("AND " + _delta("r.line") + " IS NULL DELETE r")
    + " CALL () { MATCH (e:LogEntry)-[r:TOUCHES]->() WHERE e.page = $page AND "
    + _delta("e.line") + " IS NULL DELETE r }")
SHIFT_KEPT_RELATIONSHIPS = _every_relationship(
    "WITH r, " + _delta("r.line") + " AS d WHERE d <> 0 SET r.line = r.line + d")
UNKEPT_GROUPS = (
    "MATCH (c:Claim) WHERE c.asserted_by = $page AND " + _delta("c.line") + " IS NULL "
    + _GROUPS)
DELETE_UNKEPT_NODES = (
    "MATCH (c:Claim|Contradiction) WHERE c.asserted_by = $page AND " + _delta("c.line")
    + " IS NULL "
    "DETACH DELETE c")


def _moved(text: LiteralString, prefix: LiteralString) -> LiteralString:
    """`text` (`prefix` + line + `:` + rest) with its line moved by `$shift`; unchanged where
    it has no such line or the line does not move."""
    line: LiteralString = "toInteger(split(substring(" + text + ", size(" + prefix + ")), ':')[0])"
    return ("CASE WHEN " + text + " STARTS WITH " + prefix + " AND coalesce(" + _delta(line)
            + ", 0) <> 0 THEN " + prefix + " + toString(" + line + " + " + _delta(line) + ") + "
            "substring(" + text + ", size(" + prefix + " + toString(" + line + "))) "
            "ELSE " + text + " END")


_MOVING_CLAIMS: LiteralString = (
    "MATCH (c:Claim) WHERE c.asserted_by = $page WITH c, " + _delta("c.line")
    + " AS d WHERE d <> 0 ")
# Moved numeric claims whose id does not spell their line as `fact_ids.claim_id` does.
MISNAMED_CLAIMS = (
    _MOVING_CLAIMS + "AND NOT c.id STARTS WITH $prefix + toString(c.line) + ':' "
    "RETURN c.id AS id LIMIT 1")
# Detected conflicts involving moved claims list their ids and `page:line` evidence: moved
# with them. Their order (page, line, value) holds when the moved entries keep their order.
RELIST_DETECTED = (
    _MOVING_CLAIMS + "MATCH (c)<-[:INVOLVES]-(x:Contradiction) WHERE x.kind = 'detected' "
    "WITH DISTINCT x SET x.claims = [id IN x.claims | " + _moved("id", "$prefix") + "], "
    "x.evidence = [e IN x.evidence | " + _moved("e", "$evidence") + "], "
    "x.evidence_head = [e IN x.evidence_head | " + _moved("e", "$evidence") + "]")
# Renamed in two steps, through ids no fact has: a moved claim may take the id another one
# still holds until it moves too.
_RENAMED_CLAIMS: LiteralString = (  # each moving claim, its move and its new id
    _MOVING_CLAIMS + "WITH c, d, " + _moved("c.id", "$prefix") + " AS id ")
MOVE_CLAIMS = _RENAMED_CLAIMS + "SET c.id = $moving + id, c.line = c.line + d"
# In one step, when every claim moves the same way: renamed from the far end (the last line
# first when they move down), each takes an id that the one beyond it has already left.
MOVE_CLAIMS_IN_ORDER: dict[bool, LiteralString] = {
    down: _RENAMED_CLAIMS + "ORDER BY c.line " + ("DESC" if down else "ASC")
    + " SET c.id = id, c.line = c.line + d"
    for down in (False, True)}
MOVED_CLAIMS_NAMED = (
    "MATCH (c:Claim) WHERE c.asserted_by = $page AND c.id STARTS WITH $moving "
    "SET c.id = substring(c.id, size($moving))")
GROUPS_MOVING = (  # when the moved entries change order: their conflicts are derived again
    _MOVING_CLAIMS + _GROUPS)
MOVED_CONTRADICTIONS = (
    "MATCH (x:Contradiction) WHERE x.asserted_by = $page WITH x, " + _delta("x.line") + " AS d "
    "WHERE d <> 0 RETURN x.id AS id, x.origin AS origin, x.line AS line, d, "
    "x.evidence AS evidence, x.introduced_by AS introduced_by")
# A page's link counts, as `page_props` counts them, from what the graph holds (the log's
# moved links are not in the load).
LINK_COUNTS = (
    "MATCH (p:Page {key: $page}) RETURN "
    "COUNT { MATCH (p)-[r:LINKS_TO]->() WHERE r.asserted_by = $page } AS links, "
    "COLLECT { MATCH (p)-[r:LINKS_TO]->(d:Dangling) WHERE r.asserted_by = $page "
    "          RETURN d.name } AS dangling")
SET_LINK_COUNTS = (
    "MATCH (p:Page {key: $page}) SET p.link_count = $links, p.dangling_count = $count, "
    "p.dangling = $dangling")
# Renamed (see `graph.log_update._rename`) by rows {old, id, line, evidence, heads}.
RENAME_CONTRADICTIONS = (
    "UNWIND $rows AS row MATCH (x:Contradiction {id: row.old}) SET x.id = row.id, "
    "x.line = row.line, x.evidence = row.evidence, x += row.heads")
SHIFT_LOG_ENTRIES = (  # their bullets and touches name their lines relative to the entry's
    "MATCH (e:LogEntry) WHERE e.page = $page WITH e, " + _delta("e.line")
    + " AS d WHERE d <> 0 "
    "SET e.line = e.line + d")

FOLDS = (
    "UNWIND $rows AS row MATCH (f:Page {key: row.source}) MATCH (e:LogEntry {key: row.target}) "
    "CREATE (f)-[r:FOLDS]->(e) SET r = row.props")
DELETE_FOLDS = "UNWIND $keys AS k MATCH (:Page {key: k})-[r:FOLDS]->() DELETE r"

UPSERT_CLAIMS = (
    "UNWIND $rows AS row MERGE (c:Claim {id: row.id}) SET c = row.props "
    "WITH c, row OPTIONAL MATCH (p:Page {key: row.page}) "
    "FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | "
    "  MERGE (c)-[:STATED_IN]->(p)) "
    "WITH c, row OPTIONAL MATCH (s:Page {key: row.subject}) "
    "FOREACH (_ IN CASE WHEN s IS NULL THEN [] ELSE [1] END | "
    "  MERGE (c)-[:CLAIM_ABOUT]->(s))")
UPSERT_CONTRADICTIONS = (
    "UNWIND $rows AS row MERGE (x:Contradiction {id: row.id}) SET x = row.props "
    "WITH x, row CALL (x, row) { "
    "  UNWIND row.claims AS cid MATCH (c:Claim {id: cid}) MERGE (x)-[:INVOLVES]->(c) } "
    "WITH x, row CALL (x, row) { "
    "  UNWIND row.pages AS key MATCH (p:Page {key: key}) MERGE (x)-[:CONCERNS]->(p) } "
    "WITH x, row CALL (x, row) { "
    "  MATCH (e:LogEntry {key: row.introduced_by}) MERGE (x)-[:INTRODUCED_BY]->(e) } "
    "RETURN count(x) AS n")

_CLAIM_FIELDS: LiteralString = (  # a numeric claim as `ClaimRecord` takes it
    "c.id AS id, c.text AS text, c.page AS page, c.line AS line, c.subject AS subject, "
    "c.metric AS metric, c.value AS value, c.unit AS unit, "
    "coalesce(c.qualifiers, []) AS qualifiers, toString(c.known) AS known")
NUMERIC_CLAIMS = "MATCH (c:Claim {origin: 'numeric'}) RETURN " + _CLAIM_FIELDS
# Incremental derivation (small changes): only the groups (subject, metric, unit) whose numeric
# claims changed, and the groups those reach (`graph.conflict_scope`). A group is a map
# {subject, metric, unit}; `claim_group` makes each one a seek.
_GROUP_FIELDS: LiteralString = "c.subject AS subject, c.metric AS metric, c.unit AS unit"
_IN_GROUP: LiteralString = (
    "UNWIND $groups AS g "
    "MATCH (c:Claim {subject: g.subject, metric: g.metric, unit: g.unit}) "
    "WHERE c.origin = 'numeric' ")
# Claims of the statement at a point (page, line, value); `c` the claim, `pt` the point. A
# numeric claim's id spells its page and line (`fact_ids.claim_id`): a prefix seek on the id's
# unique index, not a (page, line) index that every move of the log's lines would update.
_AT_POINT: LiteralString = (
    "MATCH (c:Claim) USING INDEX c:Claim(id) "
    "WHERE c.id STARTS WITH '" + NUMERIC_CLAIM + "' + pt.page + ':' + toString(pt.line) + ':' "
    "AND c.asserted_by = pt.page AND c.page = pt.page AND c.line = pt.line "
    "AND c.value = pt.value AND c.origin = 'numeric' AND c.subject IS NOT NULL "
    "AND c.metric IS NOT NULL AND c.unit IS NOT NULL ")
NUMERIC_GROUPS_OF = "UNWIND $keys AS k MATCH (c:Claim) WHERE c.asserted_by = k " + _GROUPS
# Lost a claim (a run that died between removal and derivation). INVOLVES is merged once per
# listed claim, so a lost one shows as fewer relationships than ids: a degree read per node.
DIRTY_DETECTED = (
    "MATCH (x:Contradiction {kind: 'detected'}) "
    "WHERE COUNT { (x)-[:INVOLVES]->() } < size(x.claims) RETURN x.id AS id")
CO_STATED_GROUPS = (  # groups of numeric claims of the same value on the same page line
    _IN_GROUP + "WITH DISTINCT {page: c.page, line: c.line, value: c.value} AS pt "
    + _AT_POINT + "RETURN DISTINCT " + _GROUP_FIELDS)
HOLDERS = (  # groups with numeric claims at every point of at least one signature
    "UNWIND range(0, size($signatures) - 1) AS i UNWIND $signatures[i] AS pt "
    + _AT_POINT + "WITH i, " + _GROUP_FIELDS + ", "
    "count(DISTINCT [pt.page, pt.line, pt.value]) AS n "
    "WHERE n = size($signatures[i]) RETURN DISTINCT subject, metric, unit")
NUMERIC_CLAIMS_OF = _IN_GROUP + "RETURN " + _CLAIM_FIELDS
NUMERIC_COUNT_OF = _IN_GROUP + "RETURN count(c) AS n"
_DETECTED_STATE: LiteralString = (  # what is stored, and whether its relationships all are
    "RETURN x.id AS id, properties(x) AS props, "
    "all(cid IN x.claims WHERE EXISTS { (x)-[:INVOLVES]->(:Claim {id: cid}) }) AND "
    "all(k IN x.pages WHERE EXISTS { (x)-[:CONCERNS]->(:Page {key: k}) }) AS intact")
DETECTED_OF = ("UNWIND $ids AS id MATCH (x:Contradiction {id: id}) "
               "WHERE x.kind = 'detected' " + _DETECTED_STATE)
DETECTED_ALL = "MATCH (x:Contradiction {kind: 'detected'}) " + _DETECTED_STATE
DELETE_CONTRADICTIONS = "UNWIND $ids AS id MATCH (x:Contradiction {id: id}) DETACH DELETE x"
MARK_DETECTED = (  # written only where it changes: most runs change none
    "MATCH (x:Contradiction {kind: 'detected'}) "
    "WITH x, EXISTS { MATCH (y:Contradiction {kind: 'explicit'}) "
    "  WHERE y.subject = x.subject } AS marked "
    "WHERE x.marked IS NULL OR x.marked <> marked SET x.marked = marked")
# Lists the offline import's CSV cannot hold (an empty one), which it writes as a sentinel
# list (`graph.bulk_csv.SENTINELS`), set right once it is imported: `$props` maps the
# property `$prop` to its list. By label: the import's node labels carry lists. In batches:
# at 100k pages every one of 333k claims holds one, more than one transaction can change
# within the default server's memory (1 GiB heap); `IN TRANSACTIONS` needs an auto-commit run.
RESTORE_LISTS: dict[str, LiteralString] = {
    label: "MATCH (n:" + label + ") WHERE n[$prop] = $sentinel "
    "CALL { WITH n SET n += $props } IN TRANSACTIONS OF 20000 ROWS"
    for label in ("Page", "LogEntry", "Claim")}
LINEAGE_INTRODUCED = (
    "MATCH ()-[r]->() WHERE type(r) IN $types AND r.introduced_by IS NOT NULL "
    "RETURN count(r) AS n")
SET_VAULT = (
    "MERGE (v:Vault {root: $root}) SET v += $props")

__all__ = ["LINEAGE_TYPES"]
