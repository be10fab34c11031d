"""Errors raised by the storage layer."""

from __future__ import annotations

from loaders.errors import VaultkgError


class GraphUnavailable(VaultkgError):
    """Neo4j cannot be reached (down, wrong address, wrong password)."""

    code = "GRAPH_UNAVAILABLE"


class GraphError(VaultkgError):
    """Neo4j answered with an error vaultkg did not expect."""

    code = "GRAPH_ERROR"


class LocalServerError(VaultkgError):
    """The local Neo4j server could not be fetched, started, or stopped."""

    code = "LOCAL_SERVER"
