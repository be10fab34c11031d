"""The picture pages: /ui/lineage (a work's lineage, years on the x axis, provenance on hover)
and /ui/fold (a fold's entries and themes). Static files built from ui/ (`make ui`) into
api/static/ui/ and shipped with the package; the pages fetch their data from /graphql, so
they see exactly what API clients see. Nothing is loaded from elsewhere at run time."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, HTTPException
from fastapi.responses import FileResponse, RedirectResponse

STATIC = Path(__file__).with_name("static") / "ui"
ASSETS = STATIC / "assets"
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".txt": "text/plain"}
# Everything the pages load comes from this server; the data comes from /graphql.
HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self'; "
                                "connect-src 'self'; img-src 'self' data:; base-uri 'none'; "
                                "form-action 'self'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
PAGES = {"lineage": STATIC / "lineage.html", "fold": STATIC / "fold.html"}

ui_router = APIRouter(prefix="/ui", include_in_schema=False)


def _page(name: str) -> FileResponse:
    path = PAGES[name]
    if not path.is_file():  # a source checkout where `make ui` never ran
        raise HTTPException(404, f"{path.name} is not built; run `make ui`")
    return FileResponse(path, media_type="text/html; charset=utf-8", headers=HEADERS)


@ui_router.get("")
@ui_router.get("/")
async def ui_index() -> RedirectResponse:
    return RedirectResponse("/ui/lineage")


@ui_router.get("/lineage")
async def lineage_page() -> FileResponse:
    """`?from=WORK&direction=ANCESTORS|DESCENDANTS|BOTH&depth=N`; without `from`, a list of
    works to pick from."""
    return _page("lineage")


@ui_router.get("/fold")
async def fold_page() -> FileResponse:
    """`?from=YYYY-MM-DD&to=YYYY-MM-DD`; without a range, the vault's fold pages."""
    return _page("fold")


@ui_router.get("/assets/{name}")
async def asset(name: str) -> FileResponse:
    """Only files directly in the built assets folder (no paths, no dotfiles)."""
    path = ASSETS / name
    if ("/" in name or "\\" in name or name.startswith(".") or path.suffix not in MEDIA_TYPES
            or not path.is_file()):
        raise HTTPException(404, "no such asset")
    return FileResponse(path, media_type=MEDIA_TYPES[path.suffix], headers={
        **HEADERS, "Cache-Control": "no-cache"})
