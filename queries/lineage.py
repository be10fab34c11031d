"""Lineage reads: ancestors/descendants of a work over the allow-listed lineage types, the
paths between two works, and the works on a concept in time order. Edges point child ->
parent; several assertions of one edge come back as one edge with its provenance list.
Traversal is a bounded BFS (`ANY SHORTEST` per reached node), so cycles never loop."""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any, LiteralString

from graph.schema import LINEAGE_TYPES
from loaders.errors import BadUserInput, NotFound
from queries.base import GraphContext
from queries.common import PAGE_PROJECTION, PageRecord, Row
from queries.pages import WORK_KINDS, get_work, name_params, named_page

MAX_DEPTH = 10
DEFAULT_DEPTH = 10
# Quantifier bounds as literals: Cypher cannot take a path length as a parameter.
DEPTHS: tuple[LiteralString, ...] = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")
MAX_PATHS = 100
# How many partial paths `paths` may extend before it stops and says it was cut short.
PATH_SEARCH_BUDGET = 200_000


class Direction(StrEnum):
    ANCESTORS = "ancestors"
    DESCENDANTS = "descendants"
    BOTH = "both"


class Provenance(Row):
    """Who asserted an edge, where, how, and which log entry introduced it."""

    page: str | None = None
    line: int | None = None
    mechanism: str | None = None
    text: str | None = None
    introduced_by: str | None = None


class LineageEdgeRecord(Row):
    """One typed edge child -> parent, with every assertion of it."""

    child: str
    parent: str
    relation: str
    provenance: list[Provenance]


class LineageNodeRecord(Row):
    """A work in a lineage: its page and its BFS distance from the root (0 = the root)."""

    page: PageRecord
    depth: int
    side: str  # "root" | "ancestor" | "descendant"


class LineageResult(Row):
    root: PageRecord
    nodes: list[LineageNodeRecord]  # by year; within a year, parents before children
    edges: list[LineageEdgeRecord]
    truncated: bool  # the depth bound cut off works further away


class LineagePathRecord(Row):
    nodes: list[str]  # keys, from `from` to `to`
    edges: list[LineageEdgeRecord]  # edges[i] joins nodes[i] and nodes[i + 1]


class PathsResult(Row):
    source: PageRecord
    target: PageRecord
    source_is_ancestor: bool | None  # None: no path either way
    paths: list[LineagePathRecord]  # shortest first
    pages: dict[str, PageRecord]
    truncated: bool


class TimelineEntry(Row):
    page: PageRecord
    via: list[str]  # "related" (the work's related:) and/or "sources" (the concept's sources:)


def relation_types(relations: Iterable[str] | None) -> LiteralString:
    """`BUILDS_ON|EXTENDS` from the allow-list; unknown names are a BadUserInput."""
    wanted = set(relations) if relations is not None else set(LINEAGE_TYPES)
    unknown = wanted - set(LINEAGE_TYPES)
    if unknown or not wanted:
        raise BadUserInput(f"relations must be some of {', '.join(LINEAGE_TYPES)}")
    return "|".join(t for t in LINEAGE_TYPES if t in wanted)


def check_depth(max_depth: int) -> LiteralString:
    if not 1 <= max_depth <= MAX_DEPTH:
        raise BadUserInput(f"maxDepth must be between 1 and {MAX_DEPTH} (got {max_depth})")
    return DEPTHS[max_depth - 1]


ASSERTION_MAP: LiteralString = (
    "{child: a.key, parent: b.key, relation: type(r), page: r.page, line: r.line, "
    "mechanism: r.mechanism, text: r.text, introduced_by: r.introduced_by}")


def _reach_body(types: LiteralString, depth: LiteralString, up: bool) -> LiteralString:
    """From a bound `root`: the reached works with their BFS depth (`found`), then every
    assertion touching the reached set on the traversed side (`assertions`; those leaving the
    set show that the depth bound cut it)."""
    step: LiteralString = ("-[:" + types + "]->" if up else "<-[:" + types + "]-")
    edge: LiteralString = ("(a:Page {key: k})-[r:" + types + "]->(b:Page)" if up
                           else "(b:Page {key: k})<-[r:" + types + "]-(a:Page)")
    return (
        "CALL (root) { MATCH path = ANY SHORTEST (root)" + step + "{1," + depth + "}(p:Page) "
        "  WHERE p <> root RETURN collect({page: " + PAGE_PROJECTION + ", "
        "  depth: length(path)}) AS found } "
        "WITH *, [root.key] + [f IN found | f.page.key] AS keys "
        "CALL (keys) { UNWIND keys AS k MATCH " + edge + " "
        "  RETURN collect(" + ASSERTION_MAP + ") AS assertions } ")


# The root of a lineage: the page with key `$key`, or (`named`) the page the name `$key`
# means (`named_page`), when it is one of the kinds `$works`.
_ROOT_BY_KEY: LiteralString = "MATCH (root:Page {key: $key}) "
_ROOT_BY_NAME: LiteralString = (
    named_page("$key", "$name", "root") + "WITH root WHERE root.kind IN $works ")


def _reach_query(types: LiteralString, depth: LiteralString, up: bool,
                 named: bool) -> LiteralString:
    """The root page itself comes with its reach (and, `named`, is found by name in the same
    query): one round trip fewer than reading it first."""
    return ((_ROOT_BY_NAME if named else _ROOT_BY_KEY) + _reach_body(types, depth, up)
            + "WITH root AS p, found, assertions "
            "RETURN " + PAGE_PROJECTION + " AS root, found, assertions")


REACH: dict[tuple[LiteralString, LiteralString, bool, bool], LiteralString] = {}


def _reach(ctx: GraphContext, key: str, types: LiteralString, depth: LiteralString,
           up: bool, named: bool = False) -> dict[str, Any] | None:
    """The root page's projection (`root`), the works reached (`found`) and the assertions
    touching them (`assertions`); None when no page has the key (or, `named`, when the page
    the name `key` means is not a work, or there is none)."""
    query = REACH.get((types, depth, up, named))
    if query is None:
        query = REACH.setdefault((types, depth, up, named),
                                 _reach_query(types, depth, up, named))
    params = {**name_params(key), "works": list(WORK_KINDS)} if named else {"key": key}
    rows = ctx.read(query, **params)
    return rows[0] if rows else None


def group_edges(assertions: Iterable[dict[str, Any]]) -> list[LineageEdgeRecord]:
    """One edge per (child, parent, relation); its assertions ordered by page and line."""
    grouped: dict[tuple[str, str, str], list[Provenance]] = defaultdict(list)
    for a in assertions:
        grouped[(a["child"], a["parent"], a["relation"])].append(Provenance.model_validate(a))
    return [LineageEdgeRecord(child=c, parent=p, relation=r, provenance=sorted(
                prov, key=lambda x: (x.page or "", x.line or 0, x.mechanism or "")))
            for (c, p, r), prov in sorted(grouped.items())]


def order_by_year(pages: Sequence[PageRecord],
                  edges: Iterable[LineageEdgeRecord]) -> list[PageRecord]:
    """Year order (undated last); within one year parents come before the works that build on
    them (ties and cycles by key), so a chain reads in the order it was built."""
    by_year: dict[int | None, list[PageRecord]] = defaultdict(list)
    for p in pages:
        by_year[p.year].append(p)
    parents: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e.child != e.parent:
            parents[e.child].add(e.parent)
    ordered: list[PageRecord] = []
    for year in sorted(by_year, key=lambda y: (y is None, y or 0)):
        group = {p.key: p for p in by_year[year]}
        waiting = {k: {q for q in parents[k] if q in group} for k in group}
        while waiting:
            ready = sorted(k for k, ps in waiting.items() if not ps) or [min(waiting)]
            for k in ready:
                ordered.append(group[k])
                del waiting[k]
            for ps in waiting.values():
                ps.difference_update(ready)
    return ordered


def lineage_of_work(ctx: GraphContext, name: str, direction: Direction = Direction.ANCESTORS,
                    relations: Iterable[str] | None = None,
                    max_depth: int = DEFAULT_DEPTH) -> LineageResult:
    """The lineage of the work `name` names, as `get_work` resolves it, in one round trip when
    the page the name means (key, title or alias) is a work: it is found and read with its
    lineage in one query. Otherwise (a product's name that is also a paper's short name, no
    such page) `get_work` resolves it first."""
    found = lineage(ctx, name, direction, relations, max_depth, named=True)
    if found is None:
        found = lineage(ctx, get_work(ctx, name).key, direction, relations, max_depth)
    if found is None:  # removed between the two reads
        raise NotFound(f"no page is called {name!r}")
    return found


def lineage(ctx: GraphContext, key: str, direction: Direction = Direction.ANCESTORS,
            relations: Iterable[str] | None = None, max_depth: int = DEFAULT_DEPTH,
            named: bool = False) -> LineageResult | None:
    """The lineage of the page `key` (None if there is no such page). `named`: `key` is a name
    as a user typed it, and the page it means must be a work (None otherwise)."""
    types, depth = relation_types(relations), check_depth(max_depth)
    sides = {Direction.ANCESTORS: [True], Direction.DESCENDANTS: [False],
             Direction.BOTH: [True, False]}[direction]
    nodes: dict[str, LineageNodeRecord] = {}
    assertions: list[dict[str, Any]] = []
    truncated = False
    for up in sides:
        reached = _reach(ctx, key, types, depth, up, named and not nodes)
        if reached is None:
            return None
        found, found_assertions = reached["found"], reached["assertions"]
        if not nodes:
            key = reached["root"]["key"]
            nodes[key] = LineageNodeRecord(page=PageRecord.from_row(reached["root"]), depth=0,
                                           side="root")
        for f in found:
            page = PageRecord.from_row(f["page"])
            if page.key not in nodes:
                nodes[page.key] = LineageNodeRecord(
                    page=page, depth=f["depth"], side="ancestor" if up else "descendant")
        inside = {f["page"]["key"] for f in found} | {key}
        for a in found_assertions:
            if a["child"] in inside and a["parent"] in inside:
                assertions.append(a)
            else:
                truncated = True
    edges = group_edges(assertions)
    order = order_by_year([n.page for n in nodes.values()], edges)
    return LineageResult(root=nodes[key].page, nodes=[nodes[p.key] for p in order],
                         edges=edges, truncated=truncated)


# The two ends of `paths`: the pages with keys `$source` and `$target`, or (named) the pages
# those names mean (`named_page`), when both are works.
_ENDS_BY_KEY: LiteralString = "MATCH (s:Page {key: $source}), (t:Page {key: $target}) "
_ENDS_BY_NAME: LiteralString = (
    named_page("$source", "$source_name", "s") + named_page("$target", "$target_name", "t")
    + "WITH s, t WHERE s.kind IN $works AND t.kind IN $works ")


def _paths_query(types: LiteralString, depth: LiteralString, named: bool) -> LiteralString:
    """Both works, which one is the other's ancestor within `depth` (`up`: the source is an
    ancestor of the target; checked first), and the ancestor lineage of the descendant (the
    `root`; none when neither is), all in one round trip."""
    to_source: LiteralString = "(t)-[:" + types + "]->{1," + depth + "}(s)"
    to_target: LiteralString = "(s)-[:" + types + "]->{1," + depth + "}(t)"
    return (
        (_ENDS_BY_NAME if named else _ENDS_BY_KEY) +
        "WITH s, t, s <> t AND EXISTS { MATCH ANY SHORTEST " + to_source + " } AS up "
        "WITH s, t, up, CASE WHEN up OR s = t THEN false "
        "  ELSE EXISTS { MATCH ANY SHORTEST " + to_target + " } END AS down "
        "WITH s, t, up, down, CASE WHEN up THEN t WHEN down THEN s END AS root "
        "CALL (s, t) { UNWIND [s, t] AS p RETURN collect(" + PAGE_PROJECTION + ") AS ends } "
        + _reach_body(types, depth, True)
        + "RETURN ends, up, down, found, assertions")


PATHS: dict[tuple[LiteralString, LiteralString, bool], LiteralString] = {}


def paths_of_works(ctx: GraphContext, source: str, target: str,
                   relations: Iterable[str] | None = None, max_depth: int = DEFAULT_DEPTH,
                   limit: int = 10) -> PathsResult:
    """`paths` between the works `source` and `target` name, as `get_work` resolves them: in
    one round trip when the pages both names mean (key, title or alias) are works; otherwise
    `get_work` resolves them first."""
    found = paths(ctx, source, target, relations, max_depth, limit, named=True)
    if found is None:
        found = paths(ctx, get_work(ctx, source).key, get_work(ctx, target).key, relations,
                      max_depth, limit)
    if found is None:  # removed between the reads
        raise NotFound(f"no page is called {source!r} or {target!r}")
    return found


def paths(ctx: GraphContext, source: str, target: str, relations: Iterable[str] | None = None,
          max_depth: int = DEFAULT_DEPTH, limit: int = 10,
          named: bool = False) -> PathsResult | None:
    """Simple lineage paths between two works (either may be the ancestor), shortest first,
    at most `limit`; None if either page is missing. `named`: `source` and `target` are names
    as a user typed them, and the pages they mean must be works (None otherwise). `pages`
    holds the descendant's whole ancestor lineage within `max_depth`, and `truncated` says the
    bound cut that lineage."""
    if not 1 <= limit <= MAX_PATHS:
        raise BadUserInput(f"`first` must be between 1 and {MAX_PATHS} (got {limit})")
    types, depth = relation_types(relations), check_depth(max_depth)
    query = PATHS.get((types, depth, named))
    if query is None:
        query = PATHS.setdefault((types, depth, named), _paths_query(types, depth, named))
    if named:
        by_source, by_target = name_params(source), name_params(target)
        rows = ctx.read(query, source=by_source["key"], source_name=by_source["name"],
                        target=by_target["key"], target_name=by_target["name"],
                        works=list(WORK_KINDS))
    else:
        rows = ctx.read(query, source=source, target=target)
    if not rows:
        return None
    row = rows[0]
    ends = [PageRecord.from_row(p) for p in row["ends"]]
    source, target = ends[0].key, ends[1].key
    if not (row["up"] or row["down"]):
        return PathsResult(source=ends[0], target=ends[1], source_is_ancestor=None, paths=[],
                           pages={}, truncated=False)
    child, parent = (target, source) if row["up"] else (source, target)
    pages = {child: ends[1] if row["up"] else ends[0]}
    pages.update((f["page"]["key"], PageRecord.from_row(f["page"])) for f in row["found"])
    inside = [a for a in row["assertions"] if a["child"] in pages and a["parent"] in pages]
    truncated = len(inside) < len(row["assertions"])
    found, cut = _simple_paths(child, parent, group_edges(_towards(parent, inside)),
                               max_depth, limit)
    if row["up"]:
        found = [LineagePathRecord(nodes=p.nodes[::-1], edges=p.edges[::-1]) for p in found]
    return PathsResult(source=ends[0], target=ends[1], source_is_ancestor=bool(row["up"]),
                       paths=found, pages=pages, truncated=cut or truncated)


def _towards(parent: str, assertions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The assertions between works that reach `parent`: the only edges a path to it can use
    (so only those are grouped into records)."""
    back: dict[str, set[str]] = defaultdict(set)
    for a in assertions:
        back[a["parent"]].add(a["child"])
    reach, queue = {parent}, deque([parent])
    while queue:
        for c in back[queue.popleft()] - reach:
            reach.add(c)
            queue.append(c)
    return [a for a in assertions if a["child"] in reach and a["parent"] in reach]


def _simple_paths(child: str, parent: str, edges: list[LineageEdgeRecord], max_depth: int,
                  limit: int) -> tuple[list[LineagePathRecord], bool]:
    """Simple paths child -> ... -> parent, by length then keys; pruned by the distance to
    `parent`, and stopped (truncated) after PATH_SEARCH_BUDGET extensions."""
    out: dict[str, list[LineageEdgeRecord]] = defaultdict(list)
    back: dict[str, list[str]] = defaultdict(list)
    for e in edges:
        if e.child != e.parent:
            out[e.child].append(e)
            back[e.parent].append(e.child)
    dist = {parent: 0}
    queue = deque([parent])
    while queue:  # BFS backwards: how far each work is from `parent`
        node = queue.popleft()
        for c in back[node]:
            if c not in dist:
                dist[c] = dist[node] + 1
                queue.append(c)
    found: list[LineagePathRecord] = []
    budget = PATH_SEARCH_BUDGET
    for length in range(dist.get(child, max_depth + 1), max_depth + 1):
        stack: list[tuple[str, list[str], list[LineageEdgeRecord]]] = [(child, [child], [])]
        level: list[LineagePathRecord] = []
        while stack:
            budget -= 1
            if budget < 0:
                return _first(found + level, limit), True
            node, trail, used = stack.pop()
            if node == parent:
                if len(used) == length:
                    level.append(LineagePathRecord(nodes=trail, edges=used))
                continue
            for e in out[node]:
                nxt = e.parent
                if nxt in dist and nxt not in trail and len(used) + 1 + dist[nxt] <= length:
                    stack.append((nxt, [*trail, nxt], [*used, e]))
        found += sorted(level, key=lambda p: p.nodes)
        if len(found) >= limit:
            break
    return _first(found, limit), False


def _first(found: list[LineagePathRecord], limit: int) -> list[LineagePathRecord]:
    return sorted(found, key=lambda p: (len(p.edges), p.nodes))[:limit]


# Both send their rows as one list (`GraphContext.read_rows`).
_EDGE_ROWS: LiteralString = (
    "WITH k, collect(" + ASSERTION_MAP + ") AS assertions "
    "RETURN collect({key: k, assertions: assertions}) AS rows")
EDGES_OF: dict[bool, LiteralString] = {
    True: ("UNWIND $keys AS k MATCH (a:Page {key: k})-[r:" + "|".join(LINEAGE_TYPES)
           + "]->(b:Page) " + _EDGE_ROWS),
    False: ("UNWIND $keys AS k MATCH (b:Page {key: k})<-[r:" + "|".join(LINEAGE_TYPES)
            + "]-(a:Page) " + _EDGE_ROWS),
}


def edges_of(ctx: GraphContext, keys: list[str],
             up: bool) -> dict[str, list[LineageEdgeRecord]]:
    """Direct lineage edges of many works in one round trip: to their parents (`up`) or from
    the works that build on them."""
    return {r["key"]: group_edges(r["assertions"])
            for r in ctx.read_rows(EDGES_OF[up], keys=keys)}


TIMELINE: LiteralString = (
    "MATCH (c:Page {key: $key}) "
    "CALL (c) { MATCH (c)<-[:ABOUT]-(p:Page) RETURN p, 'related' AS via UNION "
    "  MATCH (c)-[:LINKS_TO {field: 'sources'}]->(p:Source) RETURN p, 'sources' AS via } "
    "WITH p, collect(DISTINCT via) AS via "
    "ORDER BY coalesce(p.year, 1000000), coalesce(p.date_published, date('9999-12-31')), p.key "
    "RETURN collect({page: " + PAGE_PROJECTION + ", via: via}) AS rows")


def timeline(ctx: GraphContext, concept_key: str) -> list[TimelineEntry]:
    """The works on a concept, oldest first (same definition as the `concept` page filter)."""
    return [TimelineEntry(page=PageRecord.from_row(r["page"]), via=sorted(r["via"]))
            for r in ctx.read_rows(TIMELINE, key=concept_key)]
