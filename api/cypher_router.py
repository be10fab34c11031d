"""`POST /cypher`: read-only Cypher for trusted users. The caller needs the API key
(`Authorization: Bearer <VAULTKG_API_KEY>`); with no key configured the endpoint is off. What
counts as read-only is decided by Neo4j's own plan (queries/readonly.py), never by matching
the query text."""

from __future__ import annotations

from typing import Any

import neo4j
from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, Field

from api.auth import bearer_token, key_matches
from graph.errors import GraphError, GraphUnavailable
from graph.settings import Settings, get_settings
from loaders.errors import BadUserInput, VaultkgError
from queries.readonly import MAX_ROWS, CypherResult, NotReadOnly, QueryTimedOut, run_read_only

router = APIRouter(tags=["cypher"])

STATUS: dict[type[VaultkgError], int] = {
    NotReadOnly: 403, BadUserInput: 400, QueryTimedOut: 504, GraphUnavailable: 503,
    GraphError: 502,
}


class CypherRequest(BaseModel):
    """A query and its parameters (pass values as parameters, not inside the text)."""

    query: str = Field(max_length=100_000)
    params: dict[str, Any] = Field(default_factory=dict)
    max_rows: int = Field(default=MAX_ROWS, ge=1, le=MAX_ROWS)


def _settings(request: Request) -> Settings:
    settings = getattr(request.app.state, "settings", None)
    return settings if isinstance(settings, Settings) else get_settings()


def error(status: int, code: str, message: str) -> HTTPException:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return HTTPException(status, detail={"code": code, "message": message}, headers=headers)


@router.post("/cypher", response_model=CypherResult)
def run_cypher(body: CypherRequest, request: Request) -> CypherResult:
    """Run one read-only query; 401 without the key, 403 for anything but a read."""
    settings = _settings(request)
    if settings.api_key is None or not settings.api_key.get_secret_value():
        raise error(403, "DISABLED", "the Cypher endpoint is off: no API key is configured "
                    "(VAULTKG_API_KEY)")
    if not key_matches(settings, bearer_token(request)):
        raise error(401, "UNAUTHENTICATED", "the Cypher endpoint needs the API key "
                    "(Authorization: Bearer <VAULTKG_API_KEY>)")
    driver: neo4j.Driver = request.app.state.driver
    try:
        return run_read_only(driver, settings.neo4j_database, body.query, body.params,
                             timeout_s=settings.query_timeout_s, max_rows=body.max_rows)
    except VaultkgError as exc:
        status = next((s for cls, s in STATUS.items() if isinstance(exc, cls)), 500)
        message = str(exc) if status < 500 or status == 504 else (
            "the graph database could not answer this query")
        raise error(status, exc.code, message) from None
