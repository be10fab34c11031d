"""Pure pieces of the API and its queries, without Neo4j: Lucene escaping, cursors, name
cleaning, year ordering and path enumeration over cycles, evidence parsing, the error mapping,
the vault-root confinement and the bearer token check."""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from graphql import FragmentDefinitionNode, GraphQLError, OperationDefinitionNode, parse
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import SecretStr
from strawberry.types.nodes import convert_selections

from api.auth import bearer_token, confined_path, key_matches
from api.errors import QueryTooComplex, code_and_message, with_code
from api.fields.contradictions import EVIDENCE_FIELDS, PAGE_FIELDS, items_shown
from graph.errors import GraphError, GraphUnavailable
from graph.settings import Settings
from loaders.errors import BadUserInput, NotFound
from queries.common import PageRecord, clean_name
from queries.contradictions import (
    PLAIN_PROPERTIES,
    ContradictionRecord,
    EvidenceLine,
    evidence_fields,
)
from queries.lineage import (
    LineageEdgeRecord,
    _simple_paths,
    check_depth,
    order_by_year,
    relation_types,
)
from queries.paging import check_first, decode_cursor, encode_cursor
from queries.search import lucene_query, snippet


def test_lucene_query_escapes_everything_special() -> None:
    q = lucene_query('a+b (c) "d" e:f ~g* h? i\\j [k TO l] {m} n^2 o/p && q || !r')
    assert "a\\+b" in q and "\\(c\\)" in q and '\\"d\\"' in q and "e\\:f" in q
    assert "\\~g\\*" in q and "i\\\\j" in q and "\\[k to l\\]" in q and "o\\/p" in q
    assert "h\\?" in q and "\\{m\\}" in q and "n\\^2" in q
    assert "\\&\\&" in q and "\\|\\|" in q and "\\!r" in q
    assert lucene_query("X AND Y").startswith("(x and y)")  # operators become words


def test_snippet_finds_text_or_a_word() -> None:
    body = "x" * 200 + " Tensor parallelism splits layers " + "y" * 200
    assert "Tensor parallelism" in (snippet(body, "tensor PARALLELISM") or "")
    assert (snippet(body, "layers nothing") or "").startswith("…")
    assert snippet(body, "absent") is None and snippet(None, "x") is None


def test_cursors_round_trip_and_belong_to_their_sort() -> None:
    cursor = encode_cursor("pages:year:asc", 2023, "@2023__a")
    assert decode_cursor(cursor, "pages:year:asc") == (2023, "@2023__a")
    with pytest.raises(BadUserInput, match="different sort"):
        decode_cursor(cursor, "pages:year:desc")
    for junk in ("", "%%%", "bm90IGpzb24", "eyJ4IjogMX0"):
        with pytest.raises(BadUserInput):
            decode_cursor(junk, "pages:year:asc")
    assert check_first(100) == 100
    for bad in (0, -1, 101, 10**9):
        with pytest.raises(BadUserInput):
            check_first(bad)


def test_clean_name_accepts_wikilinks() -> None:
    assert clean_name("[[@2023__arXiv__FP8-LM|FP8-LM]]") == "@2023__arXiv__FP8-LM"
    assert clean_name(" [[Page#Heading]] ") == "Page"
    assert clean_name("#tag") == "#tag"


def page(key: str, year: int | None) -> PageRecord:
    return PageRecord(key=key, year=year)


def edge(child: str, parent: str) -> LineageEdgeRecord:
    return LineageEdgeRecord(child=child, parent=parent, relation="BUILDS_ON", provenance=[])


def test_order_by_year_puts_parents_first_within_a_year_and_survives_cycles() -> None:
    pages = [page("a", 2020), page("b", 2020), page("c", 2019), page("d", None),
             page("e", 2021), page("f", 2021)]
    edges = [edge("a", "b"), edge("b", "c"), edge("e", "f"), edge("f", "e"), edge("a", "a")]
    assert [p.key for p in order_by_year(pages, edges)] == ["c", "b", "a", "e", "f", "d"]


def test_simple_paths_shortest_first_bounded_and_cycle_safe() -> None:
    edges = [edge("d", "c"), edge("c", "b"), edge("b", "a"), edge("d", "a"), edge("b", "c"),
             edge("c", "d"), edge("a", "a")]
    paths, cut = _simple_paths("d", "a", edges, 10, 10)
    assert not cut
    assert [p.nodes for p in paths] == [["d", "a"], ["d", "c", "b", "a"]]
    assert all(e.child == n for p in paths for e, n in zip(p.edges, p.nodes, strict=False))
    assert [p.nodes for p in _simple_paths("d", "a", edges, 2, 10)[0]] == [["d", "a"]]
    assert _simple_paths("a", "d", edges, 10, 10)[0] == []


def test_lineage_arguments_come_from_allow_lists() -> None:
    assert relation_types(None).startswith("BUILDS_ON|EXTENDS")
    assert relation_types(["EXTENDS", "BUILDS_ON"]) == "BUILDS_ON|EXTENDS"
    for bad in (["BUILDS_ON]->() DETACH DELETE n //"], [], ["LINKS_TO"]):
        with pytest.raises(BadUserInput):
            relation_types(bad)
    assert check_depth(10) == "10"
    with pytest.raises(BadUserInput):
        check_depth(11)


def test_evidence_lines_split_on_the_first_line_number() -> None:
    e = EvidenceLine.model_validate(evidence_fields("meta/ledgers/claim-ledger.json:35: a: 1: b"))
    assert (e.page, e.line, e.text) == ("meta/ledgers/claim-ledger.json", 35, "a: 1: b")
    assert evidence_fields("no line here") == {"page": None, "line": None, "text": "no line here"}


def test_contradictions_read_every_field_of_their_record() -> None:
    """The query names the properties it reads: a field added to the record must be read."""
    computed = {"claims", "known", "evidence", "evidence_count", "pages", "page_count"}
    assert set(PLAIN_PROPERTIES) == set(ContradictionRecord.model_fields) - computed


# How evidence strings were split before `EVIDENCE_SPLIT` (a lazy match): the reference.
LAZY_SPLIT = re.compile(r"^(?P<page>.+?):(?P<line>\d+): (?P<text>.*)$", re.DOTALL)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(["a", ":", "1", "23", " ", ": ", ":4: ", "\n", "頁", "٣"]),
                max_size=12).map("".join))
def test_evidence_lines_split_where_the_lazy_match_split_them(raw: str) -> None:
    m = LAZY_SPLIT.match(raw)
    expected = (None, None, raw) if m is None else (m["page"], int(m["line"]), m["text"])
    fields = evidence_fields(raw)
    assert (fields["page"], fields["line"], fields["text"]) == expected


def test_error_mapping_hides_internals() -> None:
    def err(exc: Exception) -> GraphQLError:
        return GraphQLError("raw", original_error=exc)

    assert code_and_message(err(NotFound("no page is called 'x'"))) == (
        "NOT_FOUND", "no page is called 'x'")
    assert code_and_message(err(QueryTooComplex("too much")))[0] == "QUERY_TOO_COMPLEX"
    code, message = code_and_message(err(GraphUnavailable("bolt://10.0.0.1:7687 refused")))
    assert code == "GRAPH_UNAVAILABLE" and "10.0.0.1" not in message
    timeout = GraphError("Neo4j rejected a query: Neo.ClientError.Transaction."
                         "TransactionTimedOutClientConfiguration: MATCH (secret)")
    code, message = code_and_message(err(timeout))
    assert code == "TIMEOUT" and "secret" not in message
    assert code_and_message(err(GraphError("Neo.ClientError.Statement.SyntaxError: MATCH")))[
        0] == "GRAPH_ERROR"
    code, message = code_and_message(err(ZeroDivisionError("division by zero at x.py:3")))
    assert code == "INTERNAL" and "division" not in message
    kept = GraphQLError("no key", extensions={"code": "UNAUTHENTICATED"})
    assert with_code(kept) is kept


def test_confined_path(tmp_path: Path) -> None:
    root = tmp_path / "vaults"
    (root / "a" / "wiki").mkdir(parents=True)
    (tmp_path / "other").mkdir()
    assert confined_path(str(root / "a"), [root]) == (root / "a").resolve()
    for outside in (tmp_path / "other", root / ".." / "other", Path("/")):
        with pytest.raises(BadUserInput, match="outside"):
            confined_path(str(outside), [root])
    (root / "escape").symlink_to(tmp_path / "other")
    with pytest.raises(BadUserInput, match="outside"):
        confined_path(str(root / "escape"), [root])
    with pytest.raises(BadUserInput, match="not a folder"):
        confined_path(str(root / "missing"), [root])
    with pytest.raises(BadUserInput, match="no vault roots"):
        confined_path(str(root / "a"), [])


def test_bearer_token_and_key_check() -> None:
    class Conn:
        def __init__(self, value: str) -> None:
            self.headers = {"authorization": value}

    assert bearer_token(Conn("Bearer abc ")) == "abc"  # type: ignore[arg-type]
    assert bearer_token(Conn("bearer abc")) == "abc"  # type: ignore[arg-type]
    assert bearer_token(Conn("Basic abc")) is None  # type: ignore[arg-type]
    assert bearer_token(Conn("Bearer ")) is None  # type: ignore[arg-type]
    on = Settings(_env_file=None, VAULTKG_API_KEY=SecretStr("k1"))
    off = Settings(_env_file=None, VAULTKG_API_KEY=None)
    assert key_matches(on, "k1") and not key_matches(on, "k2") and not key_matches(on, None)
    assert not key_matches(off, "k1") and not key_matches(off, "")


@pytest.mark.parametrize(("query", "shown", "pages_shown"), [
    ("{ contradictions { nodes { summary evidenceCount pageCount } } }", 0, 0),
    ("{ contradictions { nodes { evidence(first: 3) { text } pageKeys(first: 1) } } }", 3, 1),
    ("{ contradictions { edges { node { ...E } } } } "
     "fragment E on Contradiction { evidence(first: $n) { text } pages { key } }", 2, None),
    ("{ contradictions { nodes { ... on Contradiction { evidence(first: 1) { text } } "
     "more: evidence(first: 4) { text } pageKeys(first: 2) pages(first: $n) { key } } } }",
     4, 2),
    ("{ contradictions { nodes { one: evidence(first: 1) { text } all: evidence { text } "
     "pageKeys } } }", None, None),
])
def test_contradictions_read_as_many_list_items_as_the_query_shows(
        query: str, shown: int | None, pages_shown: int | None) -> None:
    document = parse(query)
    operation = next(d for d in document.definitions if isinstance(d, OperationDefinitionNode))
    info = SimpleNamespace(variable_values={"n": 2}, fragments={
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)})
    fields = convert_selections(info, operation.selection_set.selections)  # type: ignore[arg-type]
    assert items_shown(fields, EVIDENCE_FIELDS) == shown
    assert items_shown(fields, PAGE_FIELDS) == pages_shown


def test_parametrized_slices_outlive_a_collection() -> None:
    """Pydantic keeps `Slice[X]` only weakly; the query modules keep theirs, so a request never
    builds the class again (it cost ~0.3 ms a call once the collector had freed it)."""
    import gc
    import weakref

    from queries.common import PageRecord
    from queries.contradictions import ContradictionRecord
    from queries.log import LogEntryRecord
    from queries.paging import Slice

    made: list[weakref.ref[type]] = [
        weakref.ref(Slice[PageRecord]), weakref.ref(Slice[ContradictionRecord]),
        weakref.ref(Slice[LogEntryRecord])]
    gc.collect()
    assert all(ref() is not None for ref in made)
