"""Name lookup through the `page_names` full-text index (keyword analyzer): the quoted Lucene
phrase of `name_term` finds exactly the pages whose `names_folded` holds the name, whatever
Lucene syntax the name contains, and sees writes at once."""

from __future__ import annotations

from typing import LiteralString

import neo4j
import pytest

from graph.schema import ensure_schema
from queries.common import folded, name_term, pages_named

pytestmark = pytest.mark.integration

LOOKUP: LiteralString = pages_named("$term", "p") + "RETURN p.key AS key ORDER BY key"
SCAN: LiteralString = (
    "MATCH (p:Page) WHERE $name IN p.names_folded RETURN p.key AS key ORDER BY key")
CREATE: LiteralString = "UNWIND $pages AS row CREATE (p:Page) SET p = row"

# Names with Lucene syntax in them, next to names that a loose match would confuse with them.
NAMES = [
    "kv cache", "kv", "cache", "kv-cache", "kv_cache", "kvcache", 'say "hi"', 'say "hi', "say",
    "a\\b", "a\\\\b", "a\\", "\\", '"', '\\"', "a and b", "and", "a or b", "not", "a && b",
    "a || b", "!a", "+a", "-a", "wild*", "wild", "wil?", "fuzzy~", "fuzzy~2", "fuzzy",
    "field:value", "title:x", "(grouped)", "grouped", "[range to z]", "{x to y}", "boost^2",
    "/regex/", "a/b", "*", "?", ":", "~", "(", ")", "[", "]", "{", "}", "^", "!", "&", "|",
    "スループット", "kv キャッシュ", "キャッシュ", "@2024__arxiv__mooncake", "x" * 300,
]


@pytest.fixture
def named_pages(clean_db: neo4j.Driver, neo4j_database: str) -> neo4j.Driver:
    ensure_schema(clean_db, neo4j_database)
    pages = [{"key": f"p{i:03d}", "names_folded": [name, f"other {i}"]}
             for i, name in enumerate(NAMES)]
    pages.append({"key": "all", "names_folded": NAMES[:5]})
    pages.append({"key": "none", "names_folded": []})
    clean_db.execute_query(CREATE, pages=pages, database_=neo4j_database)
    return clean_db


def keys(driver: neo4j.Driver, database: str, query: LiteralString, **params: str) -> list[str]:
    records, _, _ = driver.execute_query(query, params, database_=database)
    return [r["key"] for r in records]


def test_lookup_finds_exactly_the_pages_a_scan_finds(named_pages: neo4j.Driver,
                                                     neo4j_database: str) -> None:
    asked = [*NAMES, "other 1", "other", "OTHER 1", "k*", "kv*", "kv cach", "nothing",
             "a AND b", "kv OR cache", "say \"hi\" OR kv", "*:*", "'", "x" * 299]
    for name in asked:
        found = keys(named_pages, neo4j_database, LOOKUP, term=name_term(name))
        assert found == keys(named_pages, neo4j_database, SCAN, name=name), name
    assert keys(named_pages, neo4j_database, LOOKUP, term=name_term("kv cache")) == [
        "all", "p000"]


@pytest.mark.parametrize("typed", ["", " ", "   ", "\t", "[[]]", "[[|shown]]"])
def test_empty_names_neither_fail_nor_match(named_pages: neo4j.Driver, neo4j_database: str,
                                            typed: str) -> None:
    assert folded(typed) == ""
    assert keys(named_pages, neo4j_database, LOOKUP, term=name_term(folded(typed))) == []


def test_writes_are_visible_to_the_next_transaction_and_the_same_one(
        named_pages: neo4j.Driver, neo4j_database: str) -> None:
    term = name_term("fresh name")
    assert keys(named_pages, neo4j_database, LOOKUP, term=term) == []
    named_pages.execute_query(CREATE, pages=[{"key": "fresh", "names_folded": ["fresh name"]}],
                              database_=neo4j_database)
    assert keys(named_pages, neo4j_database, LOOKUP, term=term) == ["fresh"]
    with named_pages.session(database=neo4j_database) as session, \
            session.begin_transaction() as tx:
        tx.run("MATCH (p:Page {key: 'fresh'}) SET p.names_folded = ['renamed']").consume()
        tx.run(CREATE, pages=[{"key": "fresh2", "names_folded": ["fresh name"]}]).consume()
        assert [r["key"] for r in tx.run(LOOKUP, term=term)] == ["fresh2"]
        assert [r["key"] for r in tx.run(LOOKUP, term=name_term("renamed"))] == ["fresh"]
        tx.rollback()
    assert keys(named_pages, neo4j_database, LOOKUP, term=term) == ["fresh"]
