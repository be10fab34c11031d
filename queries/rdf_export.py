"""The graph as RDF, streamed: nodes are read class by class in key order (keyset pages, so a
page costs the same wherever it falls), each page's outgoing relationships are read with it,
and every page of the graph becomes one chunk of N-Triples, Turtle or JSON-LD text. Memory is
bounded by one page of nodes, never by the graph.

Relationships carry properties (line, mechanism, provenance...), so each one is written twice:
as a direct triple in a standard vocabulary (`cito:extends`, `dcterms:creator`...) for
consumers, and as an `rdf:Statement` whose IRI is a digest of its content, carrying the
relationship type and properties, so that `graph/rdf_import.py` can rebuild the property graph.
See docs/schema.md ("RDF export") for the full mapping."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, LiteralString
from urllib.parse import quote

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import DCTERMS, PROV, RDF, RDFS, SKOS, XSD
from rdflib.term import Node

from queries.base import GraphContext
from queries.common import native
from queries.rdf_vocab import (
    CITO,
    DERIVATIONS,
    KIND_NAMES,
    KIND_TYPES,
    NODE_CLASSES,
    NOT_EXPORTED,
    PREFIXES,
    PROP_BY_NAME,
    REF_CLASS,
    VKG,
    VKGP,
    Iris,
    NodeClass,
    direct_predicate,
    lang_of,
)

Triple = tuple[Node, Node, Node]
FORMATS: dict[str, str] = {"nt": "application/n-triples", "turtle": "text/turtle",
                           "json-ld": "application/ld+json"}
BATCH = 500

# Label and key property of each class, as Cypher text (allow-list: never user input).
CYPHER_CLASSES: dict[NodeClass, tuple[LiteralString, LiteralString]] = {
    "Page": ("Page", "key"), "LogEntry": ("LogEntry", "key"), "Claim": ("Claim", "id"),
    "Contradiction": ("Contradiction", "id"), "Dangling": ("Dangling", "name"),
    "Attachment": ("Attachment", "name"), "Venue": ("Venue", "name"),
}
TARGET: LiteralString = (
    "CASE WHEN t:Page THEN 'Page' WHEN t:LogEntry THEN 'LogEntry' WHEN t:Claim THEN 'Claim' "
    "WHEN t:Contradiction THEN 'Contradiction' WHEN t:Dangling THEN 'Dangling' "
    "WHEN t:Attachment THEN 'Attachment' WHEN t:Venue THEN 'Venue' END AS tclass, "
    "CASE WHEN t:Page OR t:LogEntry THEN t.key WHEN t:Claim OR t:Contradiction THEN t.id "
    "ELSE t.name END AS target")
UNEXPORTED_NODES: LiteralString = (
    "MATCH (n) WHERE NOT (n:Page OR n:LogEntry OR n:Claim OR n:Contradiction OR n:Dangling "
    "OR n:Attachment OR n:Venue OR n:IngestLock) RETURN count(n) AS n")


def nodes_query(cls: NodeClass) -> LiteralString:
    """One keyset page of a class's nodes, in key order (the unique index serves the order)."""
    label, key = CYPHER_CLASSES[cls]
    return ("MATCH (n:" + label + ") WHERE n." + key + " > $after "
            "RETURN n." + key + " AS key, properties(n) AS props "
            "ORDER BY n." + key + " LIMIT $limit")


def rels_query(cls: NodeClass) -> LiteralString:
    """Every outgoing relationship of a page of nodes, with its target's class and key."""
    label, key = CYPHER_CLASSES[cls]
    return ("UNWIND $keys AS k MATCH (s:" + label + " {" + key + ": k})-[r]->(t) "
            "RETURN k AS source, type(r) AS type, properties(r) AS props, " + TARGET + " "
            "ORDER BY source, type, target")


# -- values to RDF terms -----------------------------------------------------------------------

def term(iris: Iris, value: Any, kind: str = "plain") -> Node:
    """One property value as an RDF term (see `Kind` in rdf_vocab)."""
    value = native(value)
    if kind in REF_CLASS:
        return iris.node(REF_CLASS[kind], str(value))
    if kind == "text" and isinstance(value, str):
        return Literal(value, lang=lang_of(value))
    if kind == "uri" and isinstance(value, str):
        return Literal(value, datatype=XSD.anyURI)
    return Literal(value)


def rdf_list(subject: Node, predicate: URIRef, items: list[Node]) -> list[Triple]:
    """An rdf:List (blank-node chain) as the object of `subject predicate`."""
    if not items:
        return [(subject, predicate, RDF.nil)]
    heads = [BNode() for _ in items]
    out: list[Triple] = [(subject, predicate, heads[0])]
    for i, (head, item) in enumerate(zip(heads, items, strict=True)):
        out.append((head, RDF.first, item))
        out.append((head, RDF.rest, heads[i + 1] if i + 1 < len(heads) else RDF.nil))
    return out


def prop_triples(iris: Iris, subject: Node, name: str, value: Any) -> list[Triple]:
    """A graph property as triples: by the table when it knows the property and the value has
    the expected shape; otherwise as `vkgp:<name>` (a list becomes an rdf:List)."""
    spec = PROP_BY_NAME.get(name)
    is_list = isinstance(value, list)
    if spec is None or (spec.many == "one") == is_list:
        predicate = VKGP[quote(name, safe="")]
        if is_list:
            return rdf_list(subject, predicate, [term(iris, v) for v in value])
        return [(subject, predicate, term(iris, value))]
    if spec.many == "one":
        return [(subject, spec.predicate, term(iris, value, spec.kind))]
    items = [term(iris, v, spec.kind) for v in value]
    if spec.many == "set":
        return [(subject, spec.predicate, item) for item in items]
    return rdf_list(subject, spec.predicate, items)


def text_literal(text: str) -> Literal:
    return Literal(text, lang=lang_of(text))


# -- nodes -------------------------------------------------------------------------------------

def node_triples(iris: Iris, cls: NodeClass, key: str, props: dict[str, Any]) -> list[Triple]:
    """A node: its types, its identifier, every exported property, and derived labels."""
    _, key_prop, rdf_type = NODE_CLASSES[cls]
    s = iris.node(cls, key)
    out: list[Triple] = [(s, RDF.type, rdf_type), (s, DCTERMS.identifier, Literal(key))]
    for name, value in sorted(props.items()):
        if name == key_prop or name in NOT_EXPORTED or value is None:
            continue
        out += prop_triples(iris, s, name, value)
    title = props.get("title")
    if cls == "Page":
        kind = str(props.get("kind") or "Note")
        out += [(s, RDF.type, t) for t in KIND_TYPES.get(kind, ())]
        if isinstance(title, str) and title:
            out.append((s, RDFS.label, text_literal(title)))
            out += [(s, p, text_literal(title)) for p in KIND_NAMES.get(kind, ())]
        if kind == "Concept":
            out.append((s, SKOS.inScheme, iris.concept_scheme))
        fold_id = props.get("fold_id")
        if kind == "Fold" and isinstance(fold_id, str):
            activity = iris.fold_activity(fold_id)
            out += [(s, PROV.wasGeneratedBy, activity), (activity, RDF.type, PROV.Activity),
                    (activity, RDF.type, VKG.FoldActivity),
                    (activity, RDFS.label, Literal(fold_id))]
    elif cls == "LogEntry":
        out.append((s, RDF.type, PROV.Activity))
        if isinstance(title, str) and title:
            out.append((s, RDFS.label, text_literal(title)))
    elif cls in ("Dangling", "Attachment", "Venue"):
        out.append((s, RDFS.label, text_literal(key)))
    return out



def scheme_triples(iris: Iris) -> list[Triple]:
    """The SKOS concept scheme every concept page belongs to."""
    scheme = iris.concept_scheme
    return [(scheme, RDF.type, SKOS.ConceptScheme),
            (scheme, SKOS.prefLabel, Literal("vaultkg concepts", lang="en"))]


# -- relationships -----------------------------------------------------------------------------

def _canonical(value: Any) -> Any:
    value = native(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def assertion_digest(rel_type: str, source: str, target: str, props: dict[str, Any]) -> str:
    """A content digest: the same relationship gets the same IRI in every export."""
    body = json.dumps([rel_type, source, target, {k: _canonical(v) for k, v in props.items()}],
                      sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(body.encode()).hexdigest()[:24]


@dataclass
class RelRow:
    """One outgoing relationship as the rels query returns it."""

    type: str
    props: dict[str, Any]
    tclass: NodeClass
    target: str


def rel_triples(iris: Iris, cls: NodeClass, key: str, node_props: dict[str, Any],
                rels: list[RelRow]) -> list[Triple]:
    """Every outgoing relationship of one node: direct triples, one rdf:Statement each (equal
    relationships get ordinals, so multiplicity survives), and the derived triples that need
    the node's other relationships (fold activity inputs, claims that disagree)."""
    s = iris.node(cls, key)
    out: list[Triple] = []
    seen: Counter[str] = Counter()
    for rel in rels:
        o = iris.node(rel.tclass, rel.target)
        predicate = direct_predicate(rel.type, rel.props)
        digest = assertion_digest(rel.type, str(s), str(o), rel.props)
        seen[digest] += 1
        stmt = iris.assertion(digest if seen[digest] == 1 else f"{digest}-{seen[digest]}")
        out += [(s, predicate, o), (stmt, RDF.type, RDF.Statement), (stmt, RDF.subject, s),
                (stmt, RDF.predicate, predicate), (stmt, RDF.object, o),
                (stmt, VKG.relationType, Literal(rel.type))]
        for name, value in sorted(rel.props.items()):
            if value is not None:
                out += prop_triples(iris, stmt, name, value)
        if rel.type in DERIVATIONS:
            out.append((s, PROV.wasDerivedFrom, o))
        if rel.type == "FOLDS" and isinstance(node_props.get("fold_id"), str):
            out.append((iris.fold_activity(node_props["fold_id"]), PROV.used, o))
    if cls == "Contradiction":
        out += _disputes(iris, node_props, rels)
    return out


def _disputes(iris: Iris, props: dict[str, Any], rels: list[RelRow]) -> list[Triple]:
    """Claims of one contradiction disagree with each other; a contradiction callout's page
    disputes the other pages it concerns (the log or fold it corrects)."""
    claims = sorted({r.target for r in rels if r.type == "INVOLVES" and r.tclass == "Claim"})
    out: list[Triple] = [(iris.node("Claim", a), CITO.disagreesWith, iris.node("Claim", b))
                         for a in claims for b in claims if a != b]
    page = props.get("asserted_by")
    if props.get("origin") == "callout" and isinstance(page, str):
        out += [(iris.page(page), CITO.disputes, iris.page(r.target)) for r in rels
                if r.type == "CONCERNS" and r.tclass == "Page" and r.target != page]
    return out


# -- serialization -----------------------------------------------------------------------------

def _graph(triples: Iterable[Triple]) -> Graph:
    g = Graph(bind_namespaces="core")
    for prefix, ns in PREFIXES.items():
        g.bind(prefix, ns, override=True)
    for t in triples:
        g.add(t)
    return g


NT_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"})


def nt_term(node: Node) -> str:
    """One term in N-Triples syntax (UTF-8 output, so only the four ECHARs need escaping);
    written by hand because building an rdflib Graph per chunk costs more than the export."""
    if isinstance(node, Literal):
        text = '"' + str(node).translate(NT_ESCAPES) + '"'
        if node.language:
            return f"{text}@{node.language}"
        if node.datatype is not None and node.datatype != XSD.string:
            return f"{text}^^<{node.datatype}>"
        return text
    if isinstance(node, BNode):
        return f"_:{node}"
    return f"<{node}>"


class ChunkWriter:
    """Turns chunks of triples into text of one format, so the whole document is the header,
    the chunks and the footer written one after another."""

    def __init__(self, fmt: str) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown RDF format {fmt!r}; use one of {', '.join(FORMATS)}")
        self.fmt = fmt
        self._first = True
        self._prefix_lines = {f"@prefix {p}: <{ns}> ." for p, ns in PREFIXES.items()}

    def header(self) -> str:
        if self.fmt == "turtle":
            return "".join(f"{line}\n" for line in sorted(self._prefix_lines)) + "\n"
        if self.fmt == "json-ld":
            context = json.dumps(PREFIXES, indent=2)
            return '{\n"@context": ' + context + ',\n"@graph": [\n'
        return ""

    def chunk(self, triples: list[Triple]) -> str:
        if not triples:
            return ""
        if self.fmt == "nt":
            return "".join(f"{nt_term(a)} {nt_term(b)} {nt_term(c)} .\n" for a, b, c in triples)
        g = _graph(triples)
        if self.fmt == "turtle":
            # Every chunk is a Turtle document; drop the prefixes the header already declared
            # (rdflib may invent others, e.g. ns1:, which are kept: @prefix may appear anywhere).
            text = g.serialize(format="turtle")
            lines = [ln for ln in text.splitlines() if ln.strip() not in self._prefix_lines]
            return "\n".join(lines).strip("\n") + "\n\n"
        doc = json.loads(g.serialize(format="json-ld", context=PREFIXES))
        nodes = doc.get("@graph") if "@graph" in doc else [
            {k: v for k, v in doc.items() if k != "@context"}]
        text = ",\n".join(json.dumps(n, ensure_ascii=False) for n in nodes)
        if not text:
            return ""
        text = text if self._first else ",\n" + text
        self._first = False
        return text

    def footer(self) -> str:
        return "\n]\n}\n" if self.fmt == "json-ld" else ""


# -- the export --------------------------------------------------------------------------------

@dataclass
class ExportStats:
    """What one export wrote."""

    nodes: dict[str, int] = field(default_factory=dict)
    relationships: int = 0
    triples: int = 0
    chunks: int = 0
    skipped_nodes: int = 0
    skipped_relationships: int = 0


class RdfExport:
    """Iterate to get the document as text chunks; `stats` fills in as it goes."""

    def __init__(self, graph: GraphContext, fmt: str, base: str, batch: int = BATCH) -> None:
        self.graph = graph
        self.writer = ChunkWriter(fmt)
        self.iris = Iris(base)
        self.batch = batch
        self.stats = ExportStats()

    def __iter__(self) -> Iterator[str]:
        yield self.writer.header()
        yield self._emit(scheme_triples(self.iris))
        for cls in CYPHER_CLASSES:
            for triples in self._class_chunks(cls):
                yield self._emit(triples)
        self.stats.skipped_nodes = int(self.graph.read(UNEXPORTED_NODES)[0]["n"])
        yield self.writer.footer()

    def _emit(self, triples: list[Triple]) -> str:
        self.stats.triples += len(triples)
        self.stats.chunks += 1
        return self.writer.chunk(triples)

    def _class_chunks(self, cls: NodeClass) -> Iterator[list[Triple]]:
        after = ""
        while True:
            rows = self.graph.read(nodes_query(cls), after=after, limit=self.batch)
            if not rows:
                return
            props = {str(r["key"]): dict(r["props"]) for r in rows}
            rels: dict[str, list[RelRow]] = defaultdict(list)
            for r in self.graph.read(rels_query(cls), keys=list(props)):
                if r["tclass"] is None:
                    self.stats.skipped_relationships += 1
                    continue
                rels[r["source"]].append(RelRow(r["type"], dict(r["props"]), r["tclass"],
                                                str(r["target"])))
            triples: list[Triple] = []
            for key, node_props in props.items():
                triples += node_triples(self.iris, cls, key, node_props)
                triples += rel_triples(self.iris, cls, key, node_props, rels.get(key, []))
                self.stats.relationships += len(rels.get(key, []))
            self.stats.nodes[cls] = self.stats.nodes.get(cls, 0) + len(rows)
            yield triples
            after = str(rows[-1]["key"])
            if len(rows) < self.batch:
                return
