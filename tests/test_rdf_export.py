"""The example vault exported as RDF: it validates against the shipped SHACL shapes, parses back
in every format, keeps Japanese/English language tags, maps to the standard vocabularies, and
streams in chunks without changing what it says. Against a real Neo4j."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import neo4j
import pytest
import rdflib
from rdflib import Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, FOAF, PROV, RDF, SKOS

from graph.ingest import ingest
from queries.rdf_vocab import CITO, SCHEMA, VKG
from tests import db as test_db
from tests.rdf_helpers import BASE, export_text, fingerprint, parse, shacl
from tests.vaults import SHARED_EXAMPLE, S

pytestmark = pytest.mark.integration


def page(key: str, base: str = BASE) -> URIRef:
    return URIRef(f"{base}page/{quote(key, safe='')}")


@pytest.fixture(scope="module")
def graph_db(neo4j_driver: neo4j.Driver, neo4j_database: str) -> Iterator[neo4j.Driver]:
    test_db.wipe(neo4j_driver, neo4j_database)
    ingest(neo4j_driver, neo4j_database, SHARED_EXAMPLE)
    yield neo4j_driver


@pytest.fixture(scope="module")
def exported(graph_db: neo4j.Driver, neo4j_database: str) -> dict[str, str]:
    return {fmt: export_text(graph_db, neo4j_database, fmt)[0]
            for fmt in ("nt", "turtle", "json-ld")}


@pytest.fixture(scope="module")
def g(exported: dict[str, str]) -> rdflib.Graph:
    return parse(exported["turtle"], "turtle")


def test_export_validates_against_the_shipped_shapes(g: rdflib.Graph) -> None:
    conforms, _, report = shacl(g)
    assert conforms, report[:3000]


def test_shapes_catch_a_broken_export(g: rdflib.Graph) -> None:
    broken = rdflib.Graph()
    for t in g:
        broken.add(t)
    concept = page("テンソル並列")
    broken.remove((concept, SKOS.prefLabel, None))                   # a concept without label
    broken.add((page("Hao Zhang"), FOAF.name, Literal("Hao Zhang")))  # untagged, second name
    broken.add((concept, SKOS.altLabel, Literal("Tensorparallelität", lang="de")))
    conforms, violations, _ = shacl(broken)
    assert not conforms
    assert violations == {(str(concept), str(SKOS.prefLabel)),
                          (str(page("Hao Zhang")), str(FOAF.name)),
                          (str(concept), str(SKOS.altLabel))}


def test_every_format_parses_back_to_the_same_graph(exported: dict[str, str],
                                                    g: rdflib.Graph) -> None:
    assert len(g) > 20_000
    expected = fingerprint(g)
    assert len(expected[1]) > 50  # rdf:Lists (log bullets and block ids, evidence...)
    for fmt in ("nt", "json-ld"):
        other = parse(exported[fmt], fmt)
        assert len(other) == len(g), fmt
        assert fingerprint(other) == expected, fmt


def test_nt_and_turtle_are_isomorphic_by_rdflib(exported: dict[str, str],
                                                g: rdflib.Graph) -> None:
    assert isomorphic(parse(exported["nt"], "nt"), g)


def test_japanese_and_english_labels_keep_their_language_tags(g: rdflib.Graph) -> None:
    concept = page("テンソル並列")
    assert set(g.objects(concept, SKOS.prefLabel)) == {Literal("テンソル並列", lang="ja")}
    assert set(g.objects(concept, SKOS.altLabel)) == {
        Literal("Tensor Parallelism", lang="en"),
        Literal("Intra-layer Model Parallelism", lang="en")}
    person = page("道下幹也")
    assert set(g.objects(person, FOAF.name)) == {Literal("道下幹也", lang="ja")}
    assert set(g.objects(person, SKOS.altLabel)) == {Literal("道下 幹也", lang="ja")}
    langs = {o.language for o in g.objects(None, SKOS.altLabel) if isinstance(o, Literal)}
    assert langs == {"ja", "en"}


def test_pages_map_to_standard_vocabularies(g: rdflib.Graph) -> None:
    fft, fp8 = page(S["FFTrainer"]), page(S["FP8"])
    assert (fft, RDF.type, SCHEMA.ScholarlyArticle) in g
    assert (fft, CITO.extends, fp8) in g and (fft, PROV.wasDerivedFrom, fp8) in g
    assert (page("Kai Chen (HKUST)"), RDF.type, FOAF.Person) in g
    assert (page("Kai Chen (HKUST)"), SCHEMA.affiliation, page("iSING Lab")) in g
    assert (page("iSING Lab"), SCHEMA.parentOrganization, page("HKUST")) in g
    assert (page("HKUST"), RDF.type, SCHEMA.Organization) in g
    assert (page(S["Paged"]), DCTERMS.creator, page("Hao Zhang")) in g
    assert (page("テンソル並列"), RDF.type, SKOS.Concept) in g
    assert (page("テンソル並列"), SKOS.inScheme, URIRef(BASE + "scheme/concepts")) in g
    assert len(set(g.subjects(RDF.type, SCHEMA.ScholarlyArticle))) == 17
    assert len(set(g.subjects(RDF.type, FOAF.Person))) == 27
    assert len(set(g.subjects(RDF.type, SKOS.Concept))) == 25
    # 25 distinct lineage edges (README), all BUILDS_ON -> cito:extends.
    assert len(set(g.subject_objects(CITO.extends))) == 25


def test_log_entries_and_the_fold_are_prov_activities(g: rdflib.Graph) -> None:
    entries = set(g.subjects(RDF.type, VKG.LogEntry))
    assert len(entries) == 22 and all((e, RDF.type, PROV.Activity) in g for e in entries)
    fold = page("fold-k4-from-2026-06-17-to-2026-06-18-n16")
    activity = g.value(fold, PROV.wasGeneratedBy)
    assert (activity, RDF.type, PROV.Activity) in g
    used = set(g.objects(activity, PROV.used))
    assert len(used) == 16 and used <= entries
    entry = URIRef(BASE + "entry/" + quote("log/2026-06-17/01", safe=""))
    assert (entry, DCTERMS.date, Literal("2026-06-17", datatype=rdflib.XSD.date)) in g
    assert (entry, PROV.generated, page(S["Ray"])) in g  # the summary page it wrote
    assert (entry, PROV.generated, page("Ion Stoica")) in g


def test_contradictions_map_to_cito_disagreement(g: rdflib.Graph) -> None:
    def claim(cid: str) -> URIRef:
        return URIRef(BASE + "claim/" + quote(cid, safe=""))

    v1, v2 = claim("clm-fp8lm-v1-figures"), claim("clm-fp8lm-v2-figures")
    assert (v1, CITO.disagreesWith, v2) in g and (v2, CITO.disagreesWith, v1) in g
    # The Megatron-LM callout corrects what the log and the fold said.
    assert (page(S["Megatron"]), CITO.disputes, page("log")) in g
    assert len(set(g.subjects(RDF.type, VKG.Contradiction))) == 5


def test_every_relationship_is_a_statement(graph_db: neo4j.Driver, neo4j_database: str,
                                           g: rdflib.Graph) -> None:
    records, _, _ = graph_db.execute_query("MATCH ()-[r]->() RETURN count(r) AS n",
                                           database_=neo4j_database)
    assert len(set(g.subjects(RDF.type, RDF.Statement))) == records[0]["n"]
    stmt = next(s for s in g.subjects(VKG.mechanism, Literal("inline-bracket")))
    assert g.value(stmt, VKG.relationType) == Literal("BUILDS_ON")
    assert g.value(stmt, RDF.subject) == page(S["APNet"])
    assert g.value(stmt, RDF.object) == page(S["SC21"])
    assert g.value(stmt, VKG.assertedBy) == page(S["APNet"])


def test_iris_are_percent_encoded_keys_under_a_configurable_base(
        graph_db: neo4j.Driver, neo4j_database: str) -> None:
    base = "http://example.org/kg/"
    text, _ = export_text(graph_db, neo4j_database, "nt", base=base)
    other = parse(text, "nt")
    slides = page(S["Slides"], base)
    assert "%E6%8E%A8%E8%AB%96" in str(slides) and " " not in str(slides)
    assert (slides, DCTERMS.identifier, Literal(S["Slides"])) in other
    assert not any(str(s).startswith(BASE) for s in other.subjects())


def test_streams_in_chunks_without_changing_the_graph(graph_db: neo4j.Driver,
                                                      neo4j_database: str,
                                                      g: rdflib.Graph) -> None:
    text, export = export_text(graph_db, neo4j_database, "nt", batch=7)
    assert export.stats.chunks > 40  # 103 pages / 7 alone is 15 chunks
    assert export.stats.nodes["Page"] == 103
    assert fingerprint(parse(text, "nt")) == fingerprint(g)
