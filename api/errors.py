"""The one place where errors become GraphQL errors: every error leaves with
`extensions.code`; VaultkgError keeps its message (written for users), the storage layer's
errors get a safe message, anything unexpected becomes INTERNAL with a generic message. Stack
traces go to the server log, never to the client."""

from __future__ import annotations

import logging

from graphql import GraphQLError, GraphQLSyntaxError

from graph.errors import GraphError, GraphUnavailable
from loaders.errors import VaultkgError

log = logging.getLogger("vaultkg.api")

INTERNAL = "INTERNAL"
QUERY_TOO_COMPLEX = "QUERY_TOO_COMPLEX"
TIMEOUT = "TIMEOUT"
# Neo4j's codes for a transaction its timeout ended: while running, or while waiting for a lock.
TIMED_OUT = ("TransactionTimedOut", "LockClientStopped")
# What strawberry's limiters and graphql-core's token limit say when they refuse a document
# (graphql-core also aborts validation past its budget for comparing repeated fields).
LIMIT_MARKERS = ("exceeds maximum operation depth", "aliases found", "more than",
                 "Validation aborted")


class QueryTooComplex(VaultkgError):
    """The query asks for more than one response may carry."""

    code = QUERY_TOO_COMPLEX


def code_and_message(error: GraphQLError) -> tuple[str, str]:
    """The code and client-safe message of one error."""
    original = error.original_error
    if isinstance(original, GraphUnavailable):
        return original.code, "the graph database is not reachable; try again later"
    if isinstance(original, GraphError):
        if any(code in str(original) for code in TIMED_OUT):
            return TIMEOUT, "the query took longer than the server allows; narrow it down"
        return original.code, "the graph database could not answer this query"
    if isinstance(original, VaultkgError):
        return original.code, str(original)
    if original is not None:
        return INTERNAL, "internal error; the server log has the details"
    refused = any(marker in error.message for marker in LIMIT_MARKERS)
    if isinstance(error, GraphQLSyntaxError):
        return (QUERY_TOO_COMPLEX if refused and "tokens" in error.message
                else "GRAPHQL_PARSE_FAILED"), error.message
    return (QUERY_TOO_COMPLEX if refused else "GRAPHQL_VALIDATION_FAILED"), error.message


def with_code(error: GraphQLError) -> GraphQLError:
    """The error as the client sees it (errors that already carry a code keep it)."""
    if error.extensions and "code" in error.extensions:
        return error
    code, message = code_and_message(error)
    return GraphQLError(message, nodes=error.nodes, source=error.source,
                        positions=error.positions, path=error.path,
                        extensions={**(error.extensions or {}), "code": code})


def log_unexpected(errors: list[GraphQLError]) -> None:
    """Log errors nobody raised on purpose, with their traceback (server side only)."""
    for error in errors:
        original = error.original_error
        if original is not None and not isinstance(original, VaultkgError | GraphQLError):
            log.error("unexpected error at %s", error.path, exc_info=original)
        elif isinstance(original, GraphError | GraphUnavailable):
            log.warning("graph error at %s: %s", error.path, original)



def with_codes(errors: list[GraphQLError] | None) -> list[GraphQLError] | None:
    """Every error of a result through `with_code`."""
    return [with_code(e) for e in errors] if errors else errors
