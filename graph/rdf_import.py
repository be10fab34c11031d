"""`vaultkg import-rdf`: load a file written by `vaultkg export` into an EMPTY database, so
that exporting again gives an isomorphic RDF graph.

It reads only what the export wrote for that purpose: nodes by their `vkg:` class and
`dcterms:identifier`, properties through the table in queries/rdf_vocab.py (plus `vkgp:`
extras), and relationships from their `rdf:Statement`s. The standard-vocabulary copies (direct
triples, labels, `prov:`/`cito:` derivations) are ignored: the export derives them again.
Not restored: list order of `set` properties (aliases, tags... come back sorted), and what the
export leaves out (content hashes, so a later `vaultkg ingest` re-parses every page).

The file is parsed whole by rdflib (memory grows with the file); writes are parameterized
UNWIND batches."""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, LiteralString

import neo4j
from pydantic import BaseModel
from rdflib import Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import DCTERMS, RDF
from rdflib.term import Node

from graph import writes as w
from graph.connection import translate_errors
from graph.list_heads import list_heads
from graph.lock import ingest_lock
from graph.schema import ensure_schema
from graph.writer import GraphWriter
from loaders.errors import BadUserInput
from loaders.text import fold_name
from queries.rdf_vocab import (
    CLASS_OF_TYPE,
    NODE_CLASSES,
    PROP_BY_PREDICATE,
    REF_CLASS,
    REL_TYPES,
    VKG,
    VKGP,
    Iris,
    NodeClass,
)

BATCH = 1000
FORMATS = {".nt": "nt", ".ttl": "turtle", ".turtle": "turtle", ".jsonld": "json-ld",
           ".json": "json-ld"}
COUNT_NODES: LiteralString = "MATCH (n) WHERE NOT n:IngestLock RETURN count(n) AS n"

# Label and key property per class, as Cypher text (allow-list, never from the file).
CLASSES: dict[NodeClass, tuple[LiteralString, LiteralString]] = {
    "Page": ("Page", "key"), "LogEntry": ("LogEntry", "key"), "Claim": ("Claim", "id"),
    "Contradiction": ("Contradiction", "id"), "Dangling": ("Dangling", "name"),
    "Attachment": ("Attachment", "name"), "Venue": ("Venue", "name"),
}
# Cypher-safe relationship types: only those the export knows.
REL_TYPE_TEXT: dict[str, LiteralString] = {t: t for t in (
    "LINKS_TO", "MENTIONS", "AUTHORED_BY", "AFFILIATED_WITH", "PART_OF", "DEVELOPED_BY",
    "ABOUT", "PUBLISHED_IN", "BUILDS_ON", "EXTENDS", "SUPERSEDES", "IMPROVES_ON", "BASED_ON",
    "COMPARES_WITH", "TOUCHES", "FOLDS", "STATED_IN", "CLAIM_ABOUT", "INVOLVES", "CONCERNS",
    "INTRODUCED_BY")}
assert set(REL_TYPE_TEXT) == set(REL_TYPES)
# List properties the writer stores even when empty (the export writes no triple for them).
EMPTY_LISTS: dict[NodeClass, tuple[str, ...]] = {
    "Page": ("aliases", "tags", "dangling"), "Claim": ("pages",),
    "Contradiction": ("pages", "claims"),
}


def create_nodes(cls: NodeClass) -> LiteralString:
    label, _ = CLASSES[cls]
    return "UNWIND $rows AS row CREATE (n:" + label + ") SET n = row.props"


def create_rels(rel_type: str, source: NodeClass, target: NodeClass) -> LiteralString:
    s_label, s_key = CLASSES[source]
    t_label, t_key = CLASSES[target]
    return ("UNWIND $rows AS row MATCH (s:" + s_label + " {" + s_key + ": row.s}) "
            "MATCH (t:" + t_label + " {" + t_key + ": row.t}) "
            "CREATE (s)-[r:" + REL_TYPE_TEXT[rel_type] + "]->(t) SET r = row.props")


class ImportReport(BaseModel):
    """What an import created and what it had to leave out."""

    source: str
    triples: int
    nodes: dict[str, int]
    relationships: dict[str, int]
    skipped: list[str]
    elapsed_s: float


@dataclass
class _Reader:
    """Turns the parsed RDF back into node and relationship rows."""

    g: Graph
    iris: Iris
    by_iri: dict[str, tuple[NodeClass, str]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def value(self, obj: Node, kind: str) -> Any:
        if kind in REF_CLASS:
            return self.ref(obj, REF_CLASS[kind])
        if isinstance(obj, Literal):
            if obj.language is not None or obj.datatype is None:
                return str(obj)
            native = obj.toPython()
            return str(obj) if isinstance(native, Literal) else native
        return str(obj)

    def ref(self, obj: Node, cls: NodeClass) -> str:
        known = self.by_iri.get(str(obj))
        if known is not None:
            return known[1]
        key = self.iris.parse(str(obj), cls)
        if key is None:
            raise BadUserInput(f"{obj} is not a {cls} IRI under {self.iris.base}; was the file "
                               "exported with another base? pass --base")
        return key

    def props(self, subject: Node, skip: set[URIRef]) -> dict[str, Any]:
        """A node's or statement's properties, from the table and `vkgp:` predicates."""
        out: dict[str, Any] = {}
        sets: dict[str, list[Any]] = defaultdict(list)
        for predicate, obj in self.g.predicate_objects(subject):
            if predicate in skip:
                continue
            spec = PROP_BY_PREDICATE.get(predicate)  # type: ignore[call-overload]
            if spec is not None:
                if spec.many == "set":
                    sets[spec.name].append(self.value(obj, spec.kind))
                elif spec.many == "seq":
                    out[spec.name] = [self.value(o, spec.kind) for o in Collection(self.g, obj)]
                else:
                    out[spec.name] = self.value(obj, spec.kind)
            elif isinstance(predicate, URIRef) and predicate.startswith(str(VKGP)):
                name = predicate[len(str(VKGP)):]
                is_list = obj == RDF.nil or (obj, RDF.first, None) in self.g
                out[name] = ([self.value(o, "plain") for o in Collection(self.g, obj)]
                             if is_list else self.value(obj, "plain"))
        for name, items in sets.items():
            out[name] = sorted(items, key=str)
        return out


def detect_base(g: Graph, default: str) -> str:
    """The base the file was exported under, read off any node IRI and its identifier."""
    for rdf_type, cls in CLASS_OF_TYPE.items():
        segment = NODE_CLASSES[cls][0]
        for subject in g.subjects(RDF.type, rdf_type):
            key = g.value(subject, DCTERMS.identifier)
            if key is None:
                continue
            tail = Iris("x/").node(cls, str(key))[len("x/"):]
            if str(subject).endswith(tail) and tail.startswith(segment + "/"):
                return str(subject)[:-len(tail)]
    return default


def parse(source: Path, fmt: str | None) -> Graph:
    """The whole file as an rdflib Graph; the format from `fmt` or the file extension."""
    if not source.is_file():
        raise BadUserInput(f"{source} is not a file")
    fmt = fmt or FORMATS.get(source.suffix.lower())
    if fmt is None:
        raise BadUserInput(f"cannot tell the RDF format of {source.name}; pass --format")
    g = Graph()
    try:
        g.parse(source, format=fmt)
    except Exception as exc:  # rdflib raises parser-specific exceptions of many types
        raise BadUserInput(f"{source.name} is not valid {fmt}: {exc}") from None
    return g


def import_rdf(driver: neo4j.Driver, database: str, source: Path, *, fmt: str | None = None,
               base: str | None = None, batch_size: int = BATCH,
               default_base: str = "https://vaultkg.example/id/") -> ImportReport:
    """Load an exported file into an empty database (refused otherwise). Holds the ingest
    lease while it writes, so an ingest started meanwhile waits instead of interleaving."""
    started = time.perf_counter()
    _require_empty(driver, database)  # before parsing: fail fast on a big file
    g = parse(source, fmt)
    reader = _Reader(g, Iris(base or detect_base(g, default_base)))
    nodes = _nodes(reader)
    rels = _relationships(reader)
    ensure_schema(driver, database)
    with ingest_lock(driver, database):
        _require_empty(driver, database)  # again, now that nobody else may write
        node_counts, rel_counts = _write(driver, database, nodes, rels, batch_size)
    return ImportReport(source=str(source), triples=len(g), nodes=node_counts,
                        relationships=rel_counts, skipped=reader.skipped,
                        elapsed_s=round(time.perf_counter() - started, 3))


def _require_empty(driver: neo4j.Driver, database: str) -> None:
    with translate_errors():
        records, _, _ = driver.execute_query(COUNT_NODES, database_=database)
    if records[0]["n"]:
        raise BadUserInput(f"database {database!r} is not empty ({records[0]['n']} nodes); "
                           "import-rdf only loads into an empty database")


def _write(driver: neo4j.Driver, database: str,
           nodes: dict[NodeClass, list[dict[str, Any]]],
           rels: dict[tuple[str, NodeClass, NodeClass], list[dict[str, Any]]],
           batch_size: int) -> tuple[dict[str, int], dict[str, int]]:
    writer = GraphWriter(driver, database, batch_size=batch_size)
    node_counts: dict[str, int] = {}
    for cls, rows in nodes.items():
        if cls == "Page":
            by_kind: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for row in rows:
                kind = str(row["props"].get("kind") or "Note")
                if kind not in w.KIND_LABELS:
                    raise BadUserInput(f"page {row['key']!r} has an unknown kind {kind!r}")
                by_kind[kind].append(row)
            for kind, kind_rows in sorted(by_kind.items()):
                writer.batched(w.upsert_pages(kind), kind_rows)
        else:
            writer.batched(create_nodes(cls), rows)
        node_counts[cls] = len(rows)
    rel_counts: dict[str, int] = defaultdict(int)
    for (rel_type, s_cls, t_cls), rows in sorted(rels.items()):
        writer.batched(create_rels(rel_type, s_cls, t_cls), rows)
        rel_counts[rel_type] += len(rows)
    return node_counts, dict(rel_counts)


def _nodes(reader: _Reader) -> dict[NodeClass, list[dict[str, Any]]]:
    """Rows {key, props} per class; pages and contradictions also get the derived properties
    ingest writes."""
    out: dict[NodeClass, list[dict[str, Any]]] = defaultdict(list)
    for rdf_type, cls in CLASS_OF_TYPE.items():
        for subject in reader.g.subjects(RDF.type, rdf_type):
            identifier = reader.g.value(subject, DCTERMS.identifier)
            if identifier is None:
                reader.skipped.append(f"{subject}: {cls} without dcterms:identifier")
                continue
            reader.by_iri[str(subject)] = (cls, str(identifier))
    for subject_iri, (cls, key) in sorted(reader.by_iri.items()):
        props = reader.props(URIRef(subject_iri), skip={DCTERMS.identifier})
        props[NODE_CLASSES[cls][1]] = key
        for name in EMPTY_LISTS.get(cls, ()):
            props.setdefault(name, [])
        if cls == "Page":
            _derived_page_props(props)
        elif cls == "Contradiction":
            props.update(list_heads(props))
        out[cls].append({"key": key, "props": props})
    return out


def _derived_page_props(props: dict[str, Any]) -> None:
    """What ingest stores beside the exported properties (see loaders/vault.py `_names_of`)."""
    aliases = [str(a) for a in props.get("aliases", [])]
    props["aliases_text"] = " ".join(aliases)
    stem = PurePosixPath(str(props.get("path") or props["key"])).stem
    names = (stem, props.get("title"), *aliases)
    props["names_folded"] = sorted({fold_name(str(n)) for n in names if n})


def _relationships(reader: _Reader) -> dict[tuple[str, NodeClass, NodeClass],
                                            list[dict[str, Any]]]:
    """Rows {s, t, props} per (type, source class, target class), from the statements."""
    out: dict[tuple[str, NodeClass, NodeClass], list[dict[str, Any]]] = defaultdict(list)
    skip = {RDF.type, RDF.subject, RDF.predicate, RDF.object, VKG.relationType}
    for stmt in reader.g.subjects(RDF.type, RDF.Statement):
        rel_type = str(reader.g.value(stmt, VKG.relationType) or "")
        source = reader.by_iri.get(str(reader.g.value(stmt, RDF.subject)))
        target = reader.by_iri.get(str(reader.g.value(stmt, RDF.object)))
        if rel_type not in REL_TYPE_TEXT:
            reader.skipped.append(f"{stmt}: unknown relationship type {rel_type!r}")
            continue
        if source is None or target is None:
            reader.skipped.append(f"{stmt}: an end is not a node of this file")
            continue
        out[(rel_type, source[0], target[0])].append(
            {"s": source[1], "t": target[1], "props": reader.props(stmt, skip)})
    return out
