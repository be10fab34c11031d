"""The RDF vocabulary of the export: namespaces, IRI minting, language tags, and the one table
that says which predicate carries which graph property. Export (queries/rdf_export.py) and
import (graph/rdf_import.py) both read this table, so a property can only round-trip the way
it was written. Pure data: no Cypher, no I/O."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal as TypingLiteral
from urllib.parse import quote, unquote

from rdflib import Namespace, URIRef
from rdflib.namespace import DCTERMS, FOAF, PROV, RDF, RDFS, SDO, SKOS, XSD

from graph.list_heads import HEAD_PROPERTIES

# The vocabulary is fixed (it names what things mean); data IRIs live under `rdf_base`.
VKG = Namespace("https://vaultkg.example/ns#")
# Graph properties the table below does not know (added later) travel as `vkgp:<name>`.
VKGP = Namespace("https://vaultkg.example/ns/prop#")
CITO = Namespace("http://purl.org/spar/cito/")
SCHEMA = SDO

PREFIXES: dict[str, str] = {
    "vkg": str(VKG), "vkgp": str(VKGP), "cito": str(CITO), "schema": str(SCHEMA),
    "dcterms": str(DCTERMS), "foaf": str(FOAF), "skos": str(SKOS), "prov": str(PROV),
    "rdf": str(RDF), "rdfs": str(RDFS), "xsd": str(XSD),
}

# Node classes of the property graph: name -> (IRI segment, key property, rdf:type).
NodeClass = TypingLiteral["Page", "LogEntry", "Claim", "Contradiction", "Dangling",
                          "Attachment", "Venue"]
NODE_CLASSES: dict[NodeClass, tuple[str, str, URIRef]] = {
    "Page": ("page", "key", VKG.Page),
    "LogEntry": ("entry", "key", VKG.LogEntry),
    "Claim": ("claim", "id", VKG.Claim),
    "Contradiction": ("contradiction", "id", VKG.Contradiction),
    "Dangling": ("dangling", "name", VKG.Dangling),
    "Attachment": ("attachment", "name", VKG.Attachment),
    "Venue": ("venue", "name", VKG.Venue),
}
CLASS_OF_TYPE: dict[URIRef, NodeClass] = {t: c for c, (_, _, t) in NODE_CLASSES.items()}

# Japanese script: kana, CJK ideographs, the iteration mark 々 and half-width katakana.
JAPANESE = re.compile(r"[\u3005-\u3007\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                      r"\uf900-\ufaff\uff66-\uff9f]")


def lang_of(text: str) -> str:
    """`ja` when the string contains Japanese characters, else `en` (the vault's two
    languages: page text is Japanese, names and titles are mostly English)."""
    return "ja" if JAPANESE.search(text) else "en"


class Iris:
    """Stable IRIs under one base: `<base><segment>/<percent-encoded key>`. Keys are encoded
    with nothing left unescaped except unreserved characters, so `/`, spaces and Japanese are
    safe and the key can be read back exactly."""

    def __init__(self, base: str) -> None:
        self.base = base if base.endswith(("/", "#")) else base + "/"

    def node(self, cls: NodeClass, key: str) -> URIRef:
        return URIRef(f"{self.base}{NODE_CLASSES[cls][0]}/{quote(key, safe='')}")

    def page(self, key: str) -> URIRef:
        return self.node("Page", key)

    def fold_activity(self, fold_id: str) -> URIRef:
        return URIRef(f"{self.base}fold/{quote(fold_id, safe='')}")

    def assertion(self, digest: str) -> URIRef:
        return URIRef(f"{self.base}assertion/{digest}")

    @property
    def concept_scheme(self) -> URIRef:
        return URIRef(f"{self.base}scheme/concepts")

    def parse(self, iri: str, cls: NodeClass) -> str | None:
        """The key inside an IRI of class `cls`, or None when the IRI is not one."""
        prefix = f"{self.base}{NODE_CLASSES[cls][0]}/"
        if not iri.startswith(prefix) or "/" in iri[len(prefix):]:
            return None
        return unquote(iri[len(prefix):])


# How a property value becomes RDF:
#   plain  typed literal from the Python value (xsd:string, integer, double, boolean, date)
#   text   human-language string with a language tag (@ja / @en)
#   uri    xsd:anyURI literal (URLs in frontmatter may be empty or malformed: not IRIs)
#   page / entry / claim   IRI of the node with that key (references by key)
Kind = TypingLiteral["plain", "text", "uri", "page", "entry", "claim"]
# Lists: `set` = one triple per item (order and duplicates are not kept), `seq` = rdf:List.
Many = TypingLiteral["one", "set", "seq"]
REF_CLASS: dict[str, NodeClass] = {"page": "Page", "entry": "LogEntry", "claim": "Claim"}


@dataclass(frozen=True)
class Prop:
    """One graph property and the predicate that carries it."""

    name: str
    predicate: URIRef
    kind: Kind = "plain"
    many: Many = "one"


# Every exported property, node or relationship (a name means the same thing everywhere).
# A class's key property is not here: it is `dcterms:identifier` (see NODE_CLASSES).
PROPS: tuple[Prop, ...] = (
    # pages
    Prop("path", VKG.path), Prop("kind", VKG.kind), Prop("title", DCTERMS.title, "text"),
    Prop("aliases", SKOS.altLabel, "text", "set"), Prop("tags", SCHEMA.keywords, many="set"),
    Prop("source_type", VKG.sourceType), Prop("entity_type", VKG.entityType),
    Prop("year", VKG.year), Prop("venue", VKG.venue), Prop("url", SCHEMA.url, "uri"),
    Prop("status", VKG.status), Prop("created", DCTERMS.created),
    Prop("updated", DCTERMS.modified), Prop("date_published", DCTERMS.issued),
    Prop("body", VKG.body, "text"), Prop("log_body", VKG.logBody, "text"),
    Prop("size", VKG.size), Prop("link_count", VKG.linkCount),
    Prop("dangling_count", VKG.danglingCount), Prop("dangling", VKG.danglingName, many="set"),
    Prop("fold_id", VKG.foldId), Prop("level", VKG.level), Prop("entry_count", VKG.entryCount),
    Prop("range_from", VKG.rangeFrom), Prop("range_to", VKG.rangeTo),
    Prop("child_keys", VKG.childKeys, many="seq"),
    # log entries
    Prop("date", DCTERMS.date), Prop("op", VKG.op), Prop("seq", VKG.seq),
    Prop("day_seq", VKG.daySeq), Prop("style", VKG.style), Prop("text", SCHEMA.text, "text"),
    Prop("search_text", VKG.searchText, "text"),
    Prop("bullets", VKG.bullets, many="seq"), Prop("block_ids", VKG.blockIds, many="seq"),
    # claims and contradictions
    Prop("origin", VKG.origin), Prop("assessment", VKG.assessment),
    Prop("pages", VKG.pages, "page", "set"), Prop("subject", VKG.subject, "page"),
    Prop("metric", VKG.metric), Prop("value", RDF.value), Prop("unit", VKG.unit),
    Prop("summary", DCTERMS.description, "text"), Prop("claims", VKG.claims, "claim", "set"),
    Prop("evidence", VKG.evidence, many="seq"), Prop("marked", VKG.marked),
    # shared by nodes and relationships
    Prop("line", VKG.line), Prop("page", VKG.page, "page"),
    Prop("asserted_by", VKG.assertedBy, "page"),
    Prop("introduced_by", VKG.introducedBy, "entry"),
    # relationships
    Prop("raw", VKG.raw), Prop("display", VKG.display, "text"),
    Prop("heading", VKG.heading, "text"), Prop("block", VKG.block), Prop("embed", VKG.embed),
    Prop("field", VKG.field), Prop("section", VKG.section, "text"),
    Prop("markdown", VKG.markdown), Prop("position", VKG.position),
    Prop("mechanism", VKG.mechanism), Prop("linked", VKG.linked), Prop("role", VKG.role),
    Prop("offset", VKG.lineOffset),  # a touch's line, from its log entry's
)
PROP_BY_NAME: dict[str, Prop] = {p.name: p for p in PROPS}
PROP_BY_PREDICATE: dict[URIRef, Prop] = {p.predicate: p for p in PROPS}
assert len(PROP_BY_PREDICATE) == len(PROPS), "one predicate per property"

# Not exported: volatile (mtime_ns), internal (content_hash: a later ingest must re-parse an
# imported graph), and derived ones that the import recomputes (names_folded, aliases_text,
# a contradiction's list heads and counts: `graph.list_heads`).
NOT_EXPORTED = frozenset({"mtime_ns", "content_hash", "names_folded", "aliases_text",
                          *HEAD_PROPERTIES})

# -- relationships -----------------------------------------------------------------------------
LINEAGE_PREDICATES: dict[str, URIRef] = {
    "BUILDS_ON": CITO.extends, "EXTENDS": CITO.extends, "IMPROVES_ON": CITO.extends,
    "SUPERSEDES": CITO.updates, "BASED_ON": CITO.usesMethodIn, "COMPARES_WITH": CITO.discusses,
}
# The direct triple each relationship type stands for (TOUCHES depends on its role).
DIRECT_PREDICATES: dict[str, URIRef] = {
    **LINEAGE_PREDICATES,
    "LINKS_TO": DCTERMS.references, "MENTIONS": SCHEMA.mentions,
    "AUTHORED_BY": DCTERMS.creator, "AFFILIATED_WITH": SCHEMA.affiliation,
    "PART_OF": SCHEMA.parentOrganization, "DEVELOPED_BY": SCHEMA.creator,
    "ABOUT": DCTERMS.subject, "PUBLISHED_IN": VKG.publishedIn, "FOLDS": VKG.folds,
    "STATED_IN": PROV.wasQuotedFrom, "CLAIM_ABOUT": DCTERMS.subject,
    "INVOLVES": VKG.involves, "CONCERNS": DCTERMS.subject,
    "INTRODUCED_BY": PROV.wasGeneratedBy,
}
TOUCH_PREDICATES: dict[str, URIRef] = {
    "source": PROV.used, "consulted": PROV.used, "created": PROV.generated,
    "summary": PROV.generated, "updated": PROV.generated,
}
REL_TYPES: tuple[str, ...] = (*DIRECT_PREDICATES, "TOUCHES")
# Lineage that is a derivation (a comparison is not).
DERIVATIONS = frozenset(t for t in LINEAGE_PREDICATES if t != "COMPARES_WITH")


def direct_predicate(rel_type: str, props: dict[str, object]) -> URIRef:
    """The standard-vocabulary predicate of one relationship."""
    if rel_type == "TOUCHES":
        return TOUCH_PREDICATES.get(str(props.get("role")), VKG.touches)
    return DIRECT_PREDICATES.get(rel_type, VKG.relatedTo)


# rdf:type of a page by its kind, besides vkg:Page.
KIND_TYPES: dict[str, tuple[URIRef, ...]] = {
    "Paper": (SCHEMA.ScholarlyArticle,),
    "Source": (SCHEMA.CreativeWork,),
    "Person": (FOAF.Person, SCHEMA.Person),
    "Organization": (FOAF.Organization, SCHEMA.Organization),
    "Product": (SCHEMA.SoftwareApplication,),
    "Concept": (SKOS.Concept,),
    "Fold": (VKG.Fold, PROV.Entity),
    "Meta": (FOAF.Document,),
    "Note": (FOAF.Document,),
}
# Extra name predicates (copies of the title) that generic RDF tools display.
KIND_NAMES: dict[str, tuple[URIRef, ...]] = {
    "Person": (FOAF.name, SCHEMA.name), "Organization": (FOAF.name, SCHEMA.name),
    "Concept": (SKOS.prefLabel,), "Paper": (SCHEMA.name,), "Source": (SCHEMA.name,),
    "Product": (SCHEMA.name,),
}
