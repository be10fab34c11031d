"""What a GraphQL request runs with: the graph's schema made sure of once per process, and the
request's ApiContext. Shared by strawberry's router and the lean path (api/lean_graphql.py), so
both build the same context."""

from __future__ import annotations

import neo4j
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from api.auth import bearer_token, key_matches
from api.context import ApiContext, CountingGraphContext
from graph.errors import GraphUnavailable
from graph.schema import ensure_schema
from graph.settings import Settings
from loaders.errors import VaultkgError


async def schema_once(request: Request) -> None:
    """Create the graph's indexes before the first query of this process, so that an API
    serving a database no ingest has touched yet answers "nothing" instead of failing on a
    missing index (`page_names`). Unreachable: tried again on the next request. Refused (a
    read-only user): the queries run on whatever schema the database has."""
    state = request.app.state
    if state.schema_ready:
        return
    async with state.schema_lock:
        if state.schema_ready:
            return
        try:
            # Fails at once when Neo4j is down, where ensure_schema would retry for seconds
            # before the request's own query does the same.
            await run_in_threadpool(state.driver.verify_connectivity)
        except (neo4j.exceptions.DriverError, neo4j.exceptions.Neo4jError):
            return
        try:
            await run_in_threadpool(ensure_schema, state.driver, state.settings.neo4j_database)
        except GraphUnavailable:
            return
        except VaultkgError:
            pass
        state.schema_ready = True


async def request_context(request: Request, settings: Settings) -> ApiContext:
    """A fresh context (graph counter, DataLoaders, the caller's key checked) for `request`."""
    await schema_once(request)
    state = request.app.state
    graph = CountingGraphContext(state.driver, settings.neo4j_database, settings.query_timeout_s)
    return ApiContext(graph, settings, key_matches(settings, bearer_token(request)),
                      state.ingest_sessions)
