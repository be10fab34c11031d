"""Helpers shared by the RDF tests: export the current graph to text, parse text back, validate
with the shipped SHACL shapes, and compare Neo4j contents modulo what RDF does not keep."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import neo4j
import rdflib
import rdflib.collection
from pyshacl import validate
from rdflib.namespace import RDF, SH

from queries.base import GraphContext
from queries.common import native
from queries.rdf_export import RdfExport

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ROOT / "queries" / "shapes" / "vaultkg.shacl.ttl"
BASE = "https://vaultkg.example/id/"
PARSE_FORMAT = {"nt": "nt", "turtle": "turtle", "json-ld": "json-ld"}


def export_text(driver: neo4j.Driver, database: str, fmt: str, base: str = BASE,
                batch: int = 500) -> tuple[str, RdfExport]:
    export = RdfExport(GraphContext(driver, database), fmt, base, batch=batch)
    return "".join(export), export


def parse(text: str, fmt: str) -> rdflib.Graph:
    return rdflib.Graph().parse(data=text, format=PARSE_FORMAT[fmt])


def fingerprint(g: rdflib.Graph) -> tuple[set[Any], Counter[Any]]:
    """An exact, fast comparison key for export graphs, whose only blank nodes are rdf:List
    cells: the ground triples, plus (subject, predicate, list items) for every list. (rdflib's
    isomorphism check is the reference; the round-trip tests use it. It is slow enough with a
    few hundred lists that the other tests use this.)"""
    ground = {t for t in g if not any(isinstance(x, rdflib.BNode) for x in t)}
    lists: Counter[Any] = Counter()
    for s, p, o in g:
        if isinstance(o, rdflib.BNode) and not isinstance(s, rdflib.BNode):
            lists[(s, p, tuple(rdflib.collection.Collection(g, o)))] += 1
    return ground, lists


def shacl(data: rdflib.Graph) -> tuple[bool, set[tuple[str, str]], str]:
    """(conforms, {(focus node, result path)} of the violations, the report text)."""
    shapes = rdflib.Graph().parse(SHAPES, format="turtle")
    conforms, results, text = validate(data, shacl_graph=shapes, inference="none")
    assert isinstance(results, rdflib.Graph)
    violations = {(str(results.value(r, SH.focusNode)), str(results.value(r, SH.resultPath)))
                  for r in results.subjects(RDF.type, SH.ValidationResult)}
    return bool(conforms), violations, str(text)


def _norm(value: Any) -> Any:
    value = native(value)
    if isinstance(value, list):
        return sorted(json.dumps(_norm(v), default=str, ensure_ascii=False) for v in value)
    return json.dumps(value, default=str, ensure_ascii=False)


# What the RDF round trip does not restore exactly: file timestamps and hashes are not exported,
# and `aliases_text` follows the alias order, which RDF (skos:altLabel) does not keep.
NOT_RESTORED = frozenset({"mtime_ns", "content_hash", "aliases_text"})


def normalized_dump(driver: neo4j.Driver, database: str, ignore: frozenset[str] = frozenset()
                    ) -> tuple[Counter[str], Counter[str]]:
    """Nodes and relationships as order-free strings; lists compared as sorted multisets."""
    nodes: Counter[str] = Counter()
    rels: Counter[str] = Counter()
    records, _, _ = driver.execute_query(
        "MATCH (n) WHERE NOT n:IngestLock RETURN labels(n) AS labels, properties(n) AS props",
        database_=database)
    for r in records:
        props = {k: _norm(v) for k, v in r["props"].items() if k not in NOT_RESTORED | ignore}
        nodes[json.dumps([sorted(r["labels"]), props], sort_keys=True)] += 1
    records, _, _ = driver.execute_query(
        "MATCH (a)-[r]->(b) RETURN type(r) AS type, properties(r) AS props, "
        "coalesce(a.key, a.id, a.name) AS a, coalesce(b.key, b.id, b.name) AS b",
        database_=database)
    for r in records:
        props = {k: _norm(v) for k, v in r["props"].items()}
        rels[json.dumps([r["type"], r["a"], r["b"], props], sort_keys=True)] += 1
    return nodes, rels
