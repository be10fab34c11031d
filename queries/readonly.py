"""Run a trusted user's ad-hoc Cypher, read-only. Nothing here parses Cypher: Neo4j plans the
query (`EXPLAIN`, which never executes it) and we judge what Neo4j reports.

- the query type must be "r" (read): CREATE/MERGE/DELETE/SET/REMOVE, writing procedures
  (`CALL db.createLabel`), schema and admin commands report "w", "rw" or "s";
- the plan must not contain operators that are reads to Neo4j but reach outside the graph or
  other sessions: `LoadCSV` (files and URLs), `TerminateTransactions`, `Show*` commands other
  than indexes/constraints/procedures/functions (transactions, settings...);
- a procedure call must be on the allow-list (READ-mode procedures include `db.stats.collect`
  and `db.resampleIndex`, which change state).

Comments, string literals and letter case cannot hide anything, because the planner sees the
same text the server would run. The query then runs in a READ access-mode transaction (the
server itself refuses writes there) with a timeout, and at most `max_rows` rows come back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, LiteralString

import neo4j
from neo4j.exceptions import ClientError
from pydantic import BaseModel

from graph.connection import translate_errors
from loaders.errors import BadUserInput, VaultkgError
from queries.saved import jsonable

MAX_ROWS = 1000
ALLOWED_PROCEDURES = frozenset({
    "db.labels", "db.relationshipTypes", "db.propertyKeys", "db.schema.visualization",
    "db.schema.nodeTypeProperties", "db.schema.relTypeProperties",
    "db.index.fulltext.queryNodes", "db.index.fulltext.queryRelationships",
    "db.index.fulltext.listAvailableAnalyzers", "db.index.vector.queryNodes",
    "db.index.vector.queryRelationships", "db.info", "db.ping",
})
ALLOWED_SHOW = frozenset({"ShowIndexes", "ShowConstraints", "ShowProcedures", "ShowFunctions"})
DENIED_OPERATORS = {
    "LoadCSV": "LOAD CSV reads files and URLs",
    "TerminateTransactions": "TERMINATE TRANSACTIONS stops other sessions' work",
}


class NotReadOnly(VaultkgError):
    """The query would write, or reach outside the graph."""

    code = "NOT_READ_ONLY"


class QueryTimedOut(VaultkgError):
    """The query ran longer than the server allows."""

    code = "TIMEOUT"


class CypherResult(BaseModel):
    """Rows of an ad-hoc query (values as JSON-friendly data)."""

    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    query_type: str


def _operators(plan: Any) -> Iterator[tuple[str, str]]:
    """(operator type without the `@db` suffix, its Details text) of every plan node."""
    if not plan:
        return
    if isinstance(plan, dict):
        op, args, children = (plan.get("operatorType", ""), plan.get("args") or {},
                              plan.get("children") or [])
    else:  # older drivers hand out Plan objects
        op, args, children = plan.operator_type, plan.arguments or {}, plan.children or []
    yield str(op).split("@")[0], str(args.get("Details", ""))
    for child in children:
        yield from _operators(child)


def check_plan(query_type: str | None, plan: Any) -> None:
    """Refuse unless Neo4j reports a read whose plan stays inside the graph."""
    if query_type != "r":
        kind = {"w": "writes", "rw": "reads and writes", "s": "changes the schema or runs an "
                "administration command"}.get(str(query_type), f"is of type {query_type!r}")
        raise NotReadOnly(f"refused: Neo4j reports that this query {kind}; only read queries "
                          "may run here")
    for op, details in _operators(plan):
        if op in DENIED_OPERATORS:
            raise NotReadOnly(f"refused: {DENIED_OPERATORS[op]}")
        if op.startswith("Show") and op not in ALLOWED_SHOW:
            raise NotReadOnly(f"refused: {op} is not available here")
        if op == "ProcedureCall":
            name = details.split("(", 1)[0].strip()
            if name not in ALLOWED_PROCEDURES:
                raise NotReadOnly(f"refused: procedure {name or '?'} is not on the allow-list "
                                  f"({', '.join(sorted(ALLOWED_PROCEDURES))})")


@contextmanager
def _user_errors() -> Iterator[None]:
    """The user's own mistakes (syntax, unknown function, timeout) come back to them."""
    try:
        yield
    except ClientError as exc:
        if "TransactionTimedOut" in (exc.code or ""):
            raise QueryTimedOut("the query took longer than the server allows; narrow it "
                                "down") from None
        raise BadUserInput(f"{exc.code}: {(exc.message or '').strip()[:500]}") from None


def run_read_only(driver: neo4j.Driver, database: str, text: str,
                  params: dict[str, Any] | None = None, *, timeout_s: float = 10.0,
                  max_rows: int = MAX_ROWS) -> CypherResult:
    """Vet `text` with EXPLAIN, then run it read-only with a timeout."""
    if not text.strip():
        raise BadUserInput("the query is empty")
    params = params or {}
    # The point of this function is to run text a trusted user typed; it is vetted by the
    # planner first and runs in a read-only transaction, never formatted into other Cypher.
    query: LiteralString = text
    with translate_errors(), _user_errors(), driver.session(
            database=database, default_access_mode=neo4j.READ_ACCESS) as session:
        summary = session.run(neo4j.Query("EXPLAIN " + query, timeout=timeout_s),
                              params).consume()
        check_plan(summary.query_type, summary.plan)
        with session.begin_transaction(timeout=timeout_s) as tx:
            result = tx.run(query, params)
            columns = list(result.keys())
            rows: list[list[Any]] = []
            truncated = False
            for record in result:
                if len(rows) == max_rows:
                    truncated = True
                    break
                rows.append([jsonable(v) for v in record.values()])
            tx.rollback()
    return CypherResult(columns=columns, rows=rows, truncated=truncated,
                        query_type=str(summary.query_type))

