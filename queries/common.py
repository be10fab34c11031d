"""Small helpers every read query shares: Neo4j temporal values -> Python, how a user's page
name is cleaned and folded before lookup, and the page projection every page query returns."""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any, LiteralString

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from loaders.text import fold_name, nfc


def native(value: Any) -> Any:
    """neo4j.time.Date/DateTime -> datetime.date/datetime; anything else unchanged."""
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value


# A date read as the driver's Date or as ISO text (`toString` in Cypher; pydantic parses it).
NeoDate = Annotated[dt.date | None, BeforeValidator(native)]


class Row(BaseModel):
    """Base of every query result: immutable, and ignores properties it does not name."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def touch_line(touch: LiteralString, entry: LiteralString = "e") -> LiteralString:
    """Cypher for the line in log.md of the touch `touch` of the log entry `entry`: stored as
    an offset from the entry's line (`graph.log_update.touch_props`), or as the line itself by
    graphs written before."""
    return "coalesce(" + touch + ".line, " + entry + ".line + " + touch + ".offset)"


def stored_bullets(raw: list[str], entry_line: int | None) -> list[dict[str, Any]]:
    """A log entry's bullets as the graph stores them (JSON strings), each with its line in
    log.md: stored as an offset from the entry's line (`graph.log_update.bullet_rows`), or as
    the line itself by graphs written before."""
    out = []
    for text in raw:
        data = json.loads(text)
        offset = data.pop("offset", None)
        if offset is not None:
            data["line"] = None if entry_line is None else entry_line + int(offset)
        out.append(data)
    return out


def clean_name(text: str) -> str:
    """What a user typed as a page name -> the name itself: `[[Page#h|shown]]` -> `Page`."""
    name = nfc(text.strip())
    if name.startswith("[[") and name.endswith("]]"):
        name = name[2:-2]
    name = name.split("|", 1)[0]
    if "#" in name and not name.startswith("#"):
        name = name.split("#", 1)[0]
    return name.strip()


def folded(text: str) -> str:
    """The loose form stored in `Page.names_folded` (same function the loader uses)."""
    return fold_name(clean_name(text))


def name_term(name: str) -> str:
    """A folded name as one exact term of the `page_names` index (keyword analyzer: each list
    element is one term): a Lucene phrase, so operators, `*` or `:` in a name are plain text.
    Pass it as the parameter of `pages_named`."""
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def pages_named(term: LiteralString, var: LiteralString) -> LiteralString:
    """Cypher binding `var` to every page that has the name `term` (a Cypher expression,
    usually a parameter, holding a `name_term`) among its folded names: a `page_names` index
    lookup, where `$name IN p.names_folded` scans every page (a range index cannot serve IN on
    a list). `term` must not be null."""
    return ("CALL db.index.fulltext.queryNodes('page_names', " + term + ") "
            "YIELD node AS " + var + " ")


# Every page query projects a page through this map (the body is fetched only on demand). Its
# dates come as ISO text, which `PageRecord` parses: the driver decodes each date in Python
# (~10 µs), and a search of 10 pages returns 30 of them.
PAGE_PROJECTION: LiteralString = (
    "p {.key, .kind, .path, .title, .aliases, .tags, .status, .source_type, .entity_type, "
    ".year, .venue, .url, created: toString(p.created), updated: toString(p.updated), "
    "date_published: toString(p.date_published), .link_count, .dangling_count, .dangling, "
    ".fold_id, .level, .entry_count, range_from: toString(p.range_from), "
    "range_to: toString(p.range_to), .child_keys}")
# A page `p`'s body: the log page keeps its own apart (`log_body`, out of the full-text index of
# bodies: its entries are indexed one by one).
PAGE_BODY: LiteralString = "coalesce(p.body, p.log_body)"


class PageRecord(Row):
    """A page's properties as the API shows them (graph model: docs/graph-model.md)."""

    key: str
    kind: str = "Note"
    path: str | None = None
    title: str | None = None
    aliases: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    status: str | None = None
    source_type: str | None = None
    entity_type: str | None = None
    year: int | None = None
    venue: str | None = None
    url: str | None = None
    created: NeoDate = None
    updated: NeoDate = None
    date_published: NeoDate = None
    link_count: int = 0
    dangling_count: int = 0
    dangling: list[str] = Field(default_factory=list)
    fold_id: str | None = None
    level: int | None = None
    entry_count: int | None = None
    range_from: NeoDate = None
    range_to: NeoDate = None
    child_keys: list[str] = Field(default_factory=list)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PageRecord:
        """Build from a projected map; null lists become empty lists."""
        return cls.model_validate({k: v for k, v in row.items() if v is not None})
