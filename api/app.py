"""The HTTP app: GraphQL at /graphql (GraphiQL in a browser), /healthz (process up) and
/readyz (Neo4j answers). One Neo4j driver per process, opened in the lifespan and closed on
shutdown; a fresh GraphContext and DataLoaders per request."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import orjson
from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool
from strawberry.fastapi import GraphQLRouter

from api.context import ApiContext
from api.cypher_router import router as cypher_router
from api.ingest_sessions import IngestSessions
from api.lean_graphql import LeanGraphQL
from api.rdf_router import router as rdf_router
from api.request_context import request_context
from api.schema import schema
from api.ui_router import ui_router
from graph.connection import create_driver, verify
from graph.settings import Settings, get_settings
from loaders.errors import VaultkgError
from loaders.gc_pause import leave_startup_out

health = APIRouter()


@health.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up (says nothing about Neo4j)."""
    return {"status": "ok"}


@health.get("/readyz", response_model=None)
async def readyz(request: Request) -> dict[str, str] | JSONResponse:
    """Neo4j answers a trivial query; 503 otherwise."""
    settings: Settings = request.app.state.settings
    try:
        await run_in_threadpool(verify, request.app.state.driver, settings.neo4j_database)
    except VaultkgError as exc:
        return JSONResponse({"status": "unavailable", "code": exc.code}, status_code=503)
    return {"status": "ready"}


class JsonSafeGraphQLRouter(GraphQLRouter[ApiContext, None]):
    """JSON in and out with orjson (the stdlib's encoder showed in profiles of every request),
    and a body nested too deeply (`[[[[...`) is its JSONDecodeError, i.e. a 400 like any other
    unparsable body, not a RecursionError and a 500."""

    def decode_json(self, data: str | bytes) -> object:
        return orjson.loads(data)

    def encode_json(self, data: object) -> bytes:
        return orjson.dumps(data)


def graphql_router(settings: Settings) -> GraphQLRouter[ApiContext, None]:
    async def context(request: Request) -> ApiContext:
        return await request_context(request, settings)

    return JsonSafeGraphQLRouter(schema, path="/graphql", context_getter=context)


def create_app(settings: Settings | None = None, lean_graphql: bool = True) -> FastAPI:
    """The app for `settings` (default: the environment). Routers are appended below. With
    `lean_graphql`, plain JSON POSTs to /graphql skip the router (api/lean_graphql.py)."""
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.driver = create_driver(settings)
        leave_startup_out()
        try:
            yield
        finally:
            app.state.driver.close()

    app = FastAPI(title="vaultkg", lifespan=lifespan)
    app.state.settings = settings
    app.state.schema_ready = False
    app.state.schema_lock = asyncio.Lock()
    app.state.ingest_sessions = IngestSessions()
    app.include_router(health)
    app.include_router(graphql_router(settings))
    app.include_router(cypher_router)
    app.include_router(rdf_router)
    app.include_router(ui_router)
    if lean_graphql:
        app.add_middleware(LeanGraphQL)
    return app
