"""`GET /rdf`: the whole graph as RDF, streamed. The format follows the Accept header
(text/turtle, application/ld+json, application/n-triples; Turtle for */* or none) or an explicit
`?format=` (turtle, json-ld, nt). Reads are open unless the server requires the API key for
them (VAULTKG_READ_REQUIRES_KEY)."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from api.auth import bearer_token, key_matches
from graph.connection import verify
from graph.errors import GraphUnavailable
from graph.settings import Settings, get_settings
from queries.base import GraphContext
from queries.rdf_export import FORMATS, RdfExport

router = APIRouter(tags=["rdf"])
MEDIA_TYPES: dict[str, str] = {media: fmt for fmt, media in FORMATS.items()}
MEDIA_TYPES.update({"application/json": "json-ld", "text/plain": "nt"})
DEFAULT_FORMAT = "turtle"


def negotiate(accept: str | None) -> str | None:
    """The format for an Accept header (by q-value, then order); None if nothing fits."""
    if not accept or not accept.strip():
        return DEFAULT_FORMAT
    offers: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept.split(",")):
        media, *options = [p.strip() for p in part.split(";")]
        q = 1.0
        for option in options:
            name, _, value = option.partition("=")
            if name.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        offers.append((q, index, media.lower()))
    for q, _, media in sorted(offers, key=lambda o: (-o[0], o[1])):
        if q <= 0:
            continue
        if media in MEDIA_TYPES:
            return MEDIA_TYPES[media]
        if media in ("*/*", "text/*", "application/*"):
            return DEFAULT_FORMAT if media != "application/*" else "json-ld"
    return None


def _settings(request: Request) -> Settings:
    settings = getattr(request.app.state, "settings", None)
    return settings if isinstance(settings, Settings) else get_settings()


@router.get("/rdf", response_class=StreamingResponse)
async def export_rdf(request: Request, format: str | None = None) -> StreamingResponse:
    """Stream the graph as RDF in the negotiated format (406 if none fits)."""
    settings = _settings(request)
    if settings.read_requires_key and not key_matches(settings, bearer_token(request)):
        raise HTTPException(401, detail={"code": "UNAUTHENTICATED",
                                         "message": "this server requires the API key"},
                            headers={"WWW-Authenticate": "Bearer"})
    fmt = format if format is not None else negotiate(request.headers.get("accept"))
    if fmt not in FORMATS:
        raise HTTPException(406, detail={
            "code": "NOT_ACCEPTABLE",
            "message": f"available: {', '.join(FORMATS.values())} (or ?format="
                       f"{'|'.join(FORMATS)})"})
    driver: neo4j.Driver = request.app.state.driver
    graph = GraphContext(driver, settings.neo4j_database, settings.query_timeout_s)
    try:
        # Checked before answering, so an unreachable database is a 503, not a cut-off stream.
        await run_in_threadpool(verify, driver, settings.neo4j_database)
    except GraphUnavailable as exc:
        raise HTTPException(503, detail={"code": exc.code, "message": str(exc)}) from None
    extension = {"turtle": "ttl", "json-ld": "jsonld", "nt": "nt"}[fmt]
    return StreamingResponse(
        _encoded(RdfExport(graph, fmt, settings.rdf_base)),
        media_type=f"{FORMATS[fmt]}; charset=utf-8",
        headers={"Content-Disposition": f'inline; filename="vaultkg.{extension}"',
                 "Vary": "Accept"})


def _encoded(chunks: RdfExport) -> Iterator[bytes]:
    for text in chunks:
        if text:
            yield text.encode()
