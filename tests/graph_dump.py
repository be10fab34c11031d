"""A canonical, order-free dump of the whole graph, so two graphs can be compared exactly
(incremental re-ingest vs a clean run; a crashed run vs a clean run)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import neo4j

VOLATILE = frozenset({"mtime_ns"})
# The lease node is bookkeeping: its generation is a new random id on every ingest.
NODES = "MATCH (n) WHERE NOT n:IngestLock RETURN labels(n) AS labels, properties(n) AS props"
RELS = ("MATCH (a)-[r]->(b) RETURN type(r) AS type, properties(r) AS props, "
        "coalesce(a.key, a.name, a.id, a.root) AS a, coalesce(b.key, b.name, b.id, b.root) AS b")


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def dump(driver: neo4j.Driver, database: str) -> tuple[Counter[str], Counter[str]]:
    """(multiset of nodes, multiset of relationships) as canonical JSON strings."""
    nodes: Counter[str] = Counter()
    rels: Counter[str] = Counter()
    records, _, _ = driver.execute_query(NODES, database_=database)
    for r in records:
        props = {k: v for k, v in r["props"].items() if k not in VOLATILE}
        nodes[_canon([sorted(r["labels"]), props])] += 1
    records, _, _ = driver.execute_query(RELS, database_=database)
    for r in records:
        rels[_canon([r["type"], r["a"], r["b"], r["props"]])] += 1
    return nodes, rels


def diff(left: tuple[Counter[str], Counter[str]], right: tuple[Counter[str], Counter[str]],
         limit: int = 10) -> list[str]:
    """Human-readable differences (empty when the graphs are equal)."""
    out: list[str] = []
    for name, a, b in (("node", left[0], right[0]), ("rel", left[1], right[1])):
        out += [f"only left {name}: {k}" for k in (a - b)][:limit]
        out += [f"only right {name}: {k}" for k in (b - a)][:limit]
    return out
