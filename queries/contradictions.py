"""Contradiction reads: explicit ones (callouts, ledger, lint notes) and detected numeric
conflicts, each with its claims (and their values), the pages involved, the evidence lines and
how it was found (`origin`)."""

from __future__ import annotations

import re
from typing import Any, LiteralString

from pydantic import Field

from graph.list_heads import HEAD_TEXT, HEADED
from loaders.errors import BadUserInput
from queries.base import GraphContext
from queries.common import NeoDate, Row, folded, name_term, pages_named
from queries.paging import Slice, check_first, decode_cursor, encode_cursor

STATUSES = ("open", "resolved")
KINDS = ("explicit", "detected")
# Where a `page:line: text` evidence string splits: its first `:<digits>: ` after at least one
# character of page. Searched for, not matched with a lazy `^(.+?):(\d+): (.*)$`: the same split
# in half the time (a hub subject's contradictions hold ~9,500 lines).
EVIDENCE_SPLIT = re.compile(r":(\d+): ")


class ClaimRecord(Row):
    id: str
    text: str | None = None
    origin: str | None = None
    page: str | None = None
    line: int | None = None
    subject: str | None = None
    metric: str | None = None
    value: float | None = None
    unit: str | None = None
    qualifiers: list[str] = Field(default_factory=list)
    assessment: str | None = None
    pages: list[str] = Field(default_factory=list)
    introduced_by: str | None = None
    known: NeoDate = None


class EvidenceLine(Row):
    """One `page:line: text` evidence string, split (page is a key or a vault path)."""

    page: str | None
    line: int | None
    text: str


def evidence_fields(raw: str) -> dict[str, Any]:
    """An evidence string's page, line and text (page and line None when it names no line).
    Records take these as dicts: pydantic builds the nested models in one validation, in half
    the time of one `EvidenceLine(...)` per line."""
    m = EVIDENCE_SPLIT.search(raw, 1)
    if m is None:
        return {"page": None, "line": None, "text": raw}
    return {"page": raw[:m.start()], "line": int(m[1]), "text": raw[m.end():]}


class ContradictionRecord(Row):
    id: str
    kind: str
    status: str
    origin: str  # how it was found: callout, ledger, lint, fold, frontmatter, numeric
    summary: str | None = None
    page: str | None = None
    line: int | None = None
    subject: str | None = None
    pages: list[str] = Field(default_factory=list)
    page_count: int = 0  # all of them, when `pages` holds only the first few
    evidence: list[EvidenceLine] = Field(default_factory=list)
    evidence_count: int = 0  # all of them, when `evidence` holds only the first few
    introduced_by: str | None = None
    known: NeoDate = None
    marked: bool | None = None
    # None: not fetched (lists fetch claims only when asked; a hub subject's 20 contradictions
    # can involve hundreds of claims).
    claims: list[ClaimRecord] | None = None


# Kept alive here: see `queries.paging.Slice`.
ContradictionSlice = Slice[ContradictionRecord]


def _claim(row: dict[str, Any]) -> ClaimRecord:
    return ClaimRecord.model_validate({k: v for k, v in row.items() if v is not None})


def _record(row: dict[str, Any]) -> ContradictionRecord:
    x = {k: v for k, v in row["contradiction"].items() if v is not None}
    x["evidence"] = [evidence_fields(e) for e in x.get("evidence", [])]
    x["claims"] = None if row["claims"] is None else [_claim(c) for c in row["claims"]]
    return ContradictionRecord.model_validate(x)


_FILTERS: LiteralString = (
    "WHERE ($status IS NULL OR x.status = $status) AND ($kind IS NULL OR x.kind = $kind) "
    "AND ($after IS NULL OR x.id > $after) ")
# A contradiction's properties, its evidence and pages cut to the first `$evidence` and
# `$pages` (null: all; a conflict about a popular concept has thousands of lines and hundreds
# of pages) and counted; its claim ids are left out (the claims come from INVOLVES when asked
# for). Up to `HEAD` items come from the list's stored head (`graph.list_heads`): Neo4j reads
# a list property whole, and a hub subject's 19 contradictions hold 9,491 evidence lines and
# ~10,000 page keys (10 ms of its 12). A graph written before the heads reads the whole lists.
# Dates come as ISO text (`NeoDate` parses it: the driver decodes a date in Python, ~10 µs).
# The properties are named, not `.*`, which reads every list. Every field of
# ContradictionRecord is one of these or computed below (tests/test_api_units.py).
PLAIN_PROPERTIES: tuple[LiteralString, ...] = (
    "id", "kind", "status", "origin", "summary", "page", "line", "subject", "introduced_by",
    "marked")


def _shown(name: LiteralString, shown: LiteralString) -> LiteralString:
    """`x.<name>` cut to its first `shown` items (null: all), and `x.<name>`'s count, as map
    entries: from the stored head and count where they serve."""
    head, count = HEADED[name]
    return (
        count + ": CASE WHEN x." + count + " IS NULL THEN size(coalesce(x." + name + ", [])) "
        "ELSE x." + count + " END, " + name + ": CASE WHEN " + shown + " IS NULL THEN x." + name
        + " WHEN " + shown + " <= " + HEAD_TEXT + " AND x." + head + " IS NOT NULL THEN x."
        + head + "[0.." + shown + "] ELSE x." + name + "[0.." + shown + "] END")


_X_MAP: LiteralString = (
    "x {" + "".join("." + p + ", " for p in PLAIN_PROPERTIES)
    + "claims: null, known: toString(x.known), " + _shown("evidence", "$evidence") + ", "
    + _shown("pages", "$pages") + "}")
_CLAIM: LiteralString = "c {.*, known: toString(c.known)}"
_CLAIMS_OF_X: LiteralString = (
    "CALL (x) { OPTIONAL MATCH (x)-[:INVOLVES]->(c:Claim) WITH c ORDER BY c.id "
    "  RETURN collect(" + _CLAIM + ") AS claims } ")
# The page is cut (ORDER BY ... LIMIT) before any claim is read; its rows come as one list
# (`GraphContext.read_rows`).
_PAGE_OF: LiteralString = (
    "WITH x ORDER BY x.id LIMIT $limit " + _CLAIMS_OF_X + "WITH x, claims ORDER BY x.id "
    "RETURN collect({contradiction: " + _X_MAP + ", claims: claims}) AS rows")
_BARE_PAGE_OF: LiteralString = (
    "WITH x ORDER BY x.id LIMIT $limit "
    "RETURN collect({contradiction: " + _X_MAP + ", claims: null}) AS rows")
_ALL: LiteralString = "MATCH (x:Contradiction) " + _FILTERS
# By subject: the pages `$subject` (folded, a `name_term`) names, by key, title or alias, then
# seeks on the `contradiction_subject` index, one per subject page (not a scan of every
# Contradiction), in the same round trip. Page keys are unique, so no contradiction comes
# twice.
_OF_SUBJECTS: LiteralString = (
    pages_named("$subject", "s") + "WITH collect(s.key) AS keys "
    "UNWIND keys AS key MATCH (x:Contradiction {subject: key}) " + _FILTERS)
LIST_QUERIES: dict[tuple[bool, bool], LiteralString] = {  # (by subject, with claims)
    (False, True): _ALL + _PAGE_OF, (False, False): _ALL + _BARE_PAGE_OF,
    (True, True): _OF_SUBJECTS + _PAGE_OF, (True, False): _OF_SUBJECTS + _BARE_PAGE_OF}

# The reads of many ids send their rows as one list too.
CONTRADICTIONS_BY_IDS: LiteralString = (
    "UNWIND $ids AS id MATCH (x:Contradiction {id: id}) " + _CLAIMS_OF_X
    + "RETURN collect({contradiction: " + _X_MAP + ", claims: claims}) AS rows")

CLAIMS_OF_CONTRADICTIONS: LiteralString = (
    "UNWIND $ids AS id MATCH (x:Contradiction {id: id}) " + _CLAIMS_OF_X
    + "RETURN collect({id: id, claims: claims}) AS rows")

CLAIMS_BY_IDS: LiteralString = (
    "UNWIND $ids AS id MATCH (c:Claim {id: id}) RETURN collect(" + _CLAIM + ") AS rows")

CONTRADICTIONS_OF_CLAIMS: LiteralString = (
    "UNWIND $ids AS id MATCH (:Claim {id: id})<-[:INVOLVES]-(x:Contradiction) "
    "WITH id, x ORDER BY x.id WITH id, collect(x.id) AS contradictions "
    "RETURN collect({id: id, contradictions: contradictions}) AS rows")


def contradictions(ctx: GraphContext, subject: str | None = None, status: str | None = None,
                   kind: str | None = None, first: int = 20, after: str | None = None,
                   with_claims: bool = True, evidence: int | None = None,
                   pages: int | None = None) -> Slice[ContradictionRecord]:
    """Contradictions matching the filters, by id, `first` after cursor `after`. `subject` is
    a page key, title or alias. Without `with_claims`, each record's `claims` is None (the API
    fetches them only for a query that asks, with `claims_of_contradictions`). With
    `evidence`, each record holds its first `evidence` evidence lines (`evidence_count` says
    how many there are), and with `pages` its first `pages` page keys (`page_count`)."""
    check_first(first)
    if evidence is not None and evidence < 0:
        raise BadUserInput("the number of evidence lines cannot be negative")
    if pages is not None and pages < 0:
        raise BadUserInput("the number of pages cannot be negative")
    if status is not None and status not in STATUSES:
        raise BadUserInput(f"status must be one of {', '.join(STATUSES)}")
    if kind is not None and kind not in KINDS:
        raise BadUserInput(f"kind must be one of {', '.join(KINDS)}")
    after_id = decode_cursor(after, "contradictions")[1] if after else None
    filters = {"status": status, "kind": kind, "after": after_id, "limit": first + 1,
               "evidence": evidence, "pages": pages}
    if not subject:
        rows = ctx.read_rows(LIST_QUERIES[False, with_claims], **filters)
    else:
        rows = ctx.read_rows(LIST_QUERIES[True, with_claims],
                             subject=name_term(folded(subject)), **filters)
    items = [_record(r) for r in rows[:first]]
    return ContradictionSlice(
        items=items, cursors=[encode_cursor("contradictions", None, x.id) for x in items],
        has_next=len(rows) > first)


def contradictions_by_ids(ctx: GraphContext, ids: list[str]) -> dict[str, ContradictionRecord]:
    records = [_record(r) for r in ctx.read_rows(CONTRADICTIONS_BY_IDS, ids=ids,
                                                  evidence=None, pages=None)]
    return {x.id: x for x in records}


def claims_by_ids(ctx: GraphContext, ids: list[str]) -> dict[str, ClaimRecord]:
    return {c["id"]: _claim(c) for c in ctx.read_rows(CLAIMS_BY_IDS, ids=ids)}


def claims_of_contradictions(ctx: GraphContext, ids: list[str]
                             ) -> dict[str, list[ClaimRecord]]:
    """The claims each contradiction involves (by contradiction id, claims ordered by id), in
    one round trip."""
    return {r["id"]: [_claim(c) for c in r["claims"]]
            for r in ctx.read_rows(CLAIMS_OF_CONTRADICTIONS, ids=ids)}


def contradictions_of_claims(ctx: GraphContext, ids: list[str]) -> dict[str, list[str]]:
    """Ids of the contradictions each claim takes part in, in one round trip."""
    return {r["id"]: r["contradictions"]
            for r in ctx.read_rows(CONTRADICTIONS_OF_CLAIMS, ids=ids)}
