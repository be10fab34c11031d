"""Constraints and indexes, created before any write (idempotent: IF NOT EXISTS)."""

from __future__ import annotations

import re
from typing import LiteralString

import neo4j

from graph.connection import translate_errors

LINEAGE_TYPES: tuple[LiteralString, ...] = (
    "BUILDS_ON", "EXTENDS", "SUPERSEDES", "IMPROVES_ON", "BASED_ON", "COMPARES_WITH")
ASSERTED_TYPES: tuple[LiteralString, ...] = (
    *LINEAGE_TYPES, "LINKS_TO", "MENTIONS", "AUTHORED_BY", "AFFILIATED_WITH", "PART_OF",
    "DEVELOPED_BY", "ABOUT", "PUBLISHED_IN")

STATEMENTS: tuple[LiteralString, ...] = (
    "CREATE CONSTRAINT page_key IF NOT EXISTS FOR (p:Page) REQUIRE p.key IS UNIQUE",
    "CREATE CONSTRAINT dangling_name IF NOT EXISTS FOR (d:Dangling) REQUIRE d.name IS UNIQUE",
    "CREATE CONSTRAINT attachment_name IF NOT EXISTS "
    "FOR (a:Attachment) REQUIRE a.name IS UNIQUE",
    "CREATE CONSTRAINT venue_name IF NOT EXISTS FOR (v:Venue) REQUIRE v.name IS UNIQUE",
    "CREATE CONSTRAINT log_entry_key IF NOT EXISTS FOR (e:LogEntry) REQUIRE e.key IS UNIQUE",
    "CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (c:Claim) REQUIRE c.id IS UNIQUE",
    "CREATE CONSTRAINT contradiction_id IF NOT EXISTS "
    "FOR (c:Contradiction) REQUIRE c.id IS UNIQUE",
    "CREATE CONSTRAINT fold_id IF NOT EXISTS FOR (f:Fold) REQUIRE f.fold_id IS UNIQUE",
    "CREATE CONSTRAINT vault_root IF NOT EXISTS FOR (v:Vault) REQUIRE v.root IS UNIQUE",
    # Makes concurrent MERGEs of the ingest lease meet on one node (graph/lock.py).
    "CREATE CONSTRAINT ingest_lock_name IF NOT EXISTS FOR (l:IngestLock) REQUIRE l.name IS UNIQUE",
    "CREATE INDEX page_title IF NOT EXISTS FOR (p:Page) ON (p.title)",
    "CREATE INDEX page_kind IF NOT EXISTS FOR (p:Page) ON (p.kind)",
    "CREATE INDEX page_year IF NOT EXISTS FOR (p:Page) ON (p.year)",
    "CREATE INDEX page_updated IF NOT EXISTS FOR (p:Page) ON (p.updated)",
    # Replaced by `page_names` below: it served no query and cost every page write.
    "DROP INDEX page_aliases_folded IF EXISTS",
    # Name lookup (queries/common.py `pages_named`): a range index cannot serve
    # `$name IN p.names_folded`, so that scanned every page. With the keyword analyzer each
    # element of the list is one exact term; a quoted Lucene phrase finds it.
    "CREATE FULLTEXT INDEX page_names IF NOT EXISTS FOR (p:Page) ON EACH [p.names_folded] "
    "OPTIONS {indexConfig: {`fulltext.analyzer`: 'keyword'}}",
    "CREATE INDEX log_entry_date IF NOT EXISTS FOR (e:LogEntry) ON (e.date)",
    "CREATE INDEX log_entry_seq IF NOT EXISTS FOR (e:LogEntry) ON (e.seq)",
    # The log's entries, by their page. Not with their line: an entry added on top of a
    # newest-first log moves every entry's line, and the index made that move 3-4x dearer
    # (101k entries at 100k pages: 3.2 s against 0.4-1.0 s without it).
    "DROP INDEX log_entry_page_line IF EXISTS",
    "CREATE INDEX log_entry_page IF NOT EXISTS FOR (e:LogEntry) ON (e.page)",
    "CREATE INDEX claim_asserted IF NOT EXISTS FOR (c:Claim) ON (c.asserted_by)",
    "CREATE INDEX claim_subject IF NOT EXISTS FOR (c:Claim) ON (c.subject)",
    # The claims of one conflict group: a popular concept's subject alone holds thousands.
    "CREATE INDEX claim_group IF NOT EXISTS FOR (c:Claim) ON (c.subject, c.metric, c.unit)",
    # Claims at one statement (page, line) are found by their id's prefix (`writes._AT_POINT`);
    # this index made every move of the log's lines update it (53k claims at 100k pages).
    "DROP INDEX claim_page_line IF EXISTS",
    "CREATE INDEX contradiction_asserted IF NOT EXISTS FOR (c:Contradiction) ON (c.asserted_by)",
    "CREATE INDEX contradiction_status IF NOT EXISTS FOR (c:Contradiction) ON (c.status)",
    # Marking detected contradictions looks up explicit ones by subject (else O(n^2) scans).
    "CREATE INDEX contradiction_subject IF NOT EXISTS FOR (c:Contradiction) ON (c.subject)",
    # Folds find the contradictions their entries introduced by a seek, not a scan.
    "CREATE INDEX contradiction_introduced_by IF NOT EXISTS "
    "FOR (c:Contradiction) ON (c.introduced_by)",
    # Full text over titles, aliases and bodies. The CJK analyzer indexes Japanese as
    # overlapping bigrams, and handles Latin-script words as the standard analyzer does.
    "CREATE FULLTEXT INDEX page_text IF NOT EXISTS FOR (p:Page) ON EACH "
    "[p.title, p.aliases_text, p.body] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}",
    # The log's entries, each its own document (the log page's body is not in `page_text`).
    "CREATE FULLTEXT INDEX log_text IF NOT EXISTS FOR (e:LogEntry) ON EACH "
    "[e.search_text] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}",
)


def relationship_index(rel_type: LiteralString) -> LiteralString:
    """Index on `asserted_by` of one relationship type, so replacing a page's facts is a lookup.
    `rel_type` comes only from the allow-list above."""
    assert rel_type in ASSERTED_TYPES
    return ("CREATE INDEX rel_asserted_" + rel_type.lower() + " IF NOT EXISTS FOR ()-[r:"
            + rel_type + "]-() ON (r.asserted_by)")


# The name each statement creates (or drops): a database that already has all of them in place
# needs no statement at all, only the two SHOW reads (each statement was a round trip).
_NAMED = re.compile(r"^(?:CREATE (?:CONSTRAINT|(?:FULLTEXT )?INDEX)|DROP INDEX) (\w+) ")
SHOW_INDEXES: LiteralString = "SHOW INDEXES YIELD name, state RETURN name, state"
SHOW_CONSTRAINTS: LiteralString = "SHOW CONSTRAINTS YIELD name RETURN name"


def all_statements() -> tuple[LiteralString, ...]:
    return (*STATEMENTS, *(relationship_index(t) for t in ASSERTED_TYPES))


def pending(statements: tuple[LiteralString, ...], existing: set[str]
            ) -> list[LiteralString]:
    """The statements that would change something: creations of missing names, drops of
    present ones."""
    out: list[LiteralString] = []
    for statement in statements:
        named = _NAMED.match(statement)
        assert named is not None, statement
        present = named[1] in existing
        if present == statement.startswith("DROP"):
            out.append(statement)
    return out


def ensure_schema(driver: neo4j.Driver, database: str) -> None:
    """Create every constraint and index that is missing, then wait until they are online."""
    with translate_errors():
        indexes, _, _ = driver.execute_query(SHOW_INDEXES, database_=database, routing_="r")
        constraints, _, _ = driver.execute_query(SHOW_CONSTRAINTS, database_=database,
                                                 routing_="r")
        existing = {r["name"] for r in indexes} | {r["name"] for r in constraints}
        todo = pending(all_statements(), existing)
        if not todo and all(r["state"] == "ONLINE" for r in indexes):
            return
        for statement in todo:
            driver.execute_query(statement, database_=database)
        driver.execute_query("CALL db.awaitIndexes(300)", database_=database)
