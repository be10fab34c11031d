"""What to show first in a freshly loaded vault (for `vaultkg demo`): the work with the richest
ancestry, the range of the newest fold, and the concept most works are about. The demo's
example queries and links are built from these, so they work on any vault, not one."""

from __future__ import annotations

import datetime as dt
from typing import LiteralString

from graph.schema import LINEAGE_TYPES
from queries.base import GraphContext
from queries.common import NeoDate, Row

_TYPES: LiteralString = "|".join(LINEAGE_TYPES)
# Candidates are the newest works that build on something; each is scored by how many works
# it reaches within four steps (bounded, so a large vault stays fast).
RICHEST_WORK: LiteralString = (
    "MATCH (w:Source) WHERE EXISTS { (w)-[:" + _TYPES + "]->(:Page) } "
    "WITH w ORDER BY coalesce(w.year, 0) DESC, w.key LIMIT 200 "
    "WITH w, COUNT { MATCH (w)-[:" + _TYPES + "]->{1,4}(a:Page) WHERE a <> w "
    "  RETURN DISTINCT a } AS reach "
    "ORDER BY reach DESC, coalesce(w.year, 0) DESC, w.key LIMIT 1 "
    "RETURN w.key AS key, coalesce(w.aliases, []) AS aliases, reach")
NEWEST_FOLD: LiteralString = (
    "MATCH (f:Fold) WHERE f.range_from IS NOT NULL AND f.range_to IS NOT NULL "
    "RETURN f.range_from AS range_from, f.range_to AS range_to "
    "ORDER BY f.range_to DESC, f.range_from LIMIT 1")
LAST_LOG_DAY: LiteralString = "MATCH (e:LogEntry) RETURN max(e.date) AS day"
TOP_CONCEPT: LiteralString = (
    "MATCH (c:Concept) WITH c, COUNT { (c)<-[:ABOUT]-(:Page) } AS works "
    "WHERE works > 0 RETURN coalesce(c.title, c.key) AS name ORDER BY works DESC, c.key LIMIT 1")


class Showcase(Row):
    work: str | None = None  # how to name it in `from:` (its short alias, else its key)
    work_reach: int = 0
    fold_from: NeoDate = None
    fold_to: NeoDate = None
    concept: str | None = None


def _name(key: str, aliases: list[str]) -> str:
    """The shortest alias that starts with `@` (`@2025__arXiv__X`), else the key."""
    short = sorted((a for a in aliases if a.startswith("@")), key=len)
    return short[0] if short and len(short[0]) < len(key) else key


def showcase(ctx: GraphContext) -> Showcase:
    """Picks for the demo; a field is None when the vault has nothing of the kind."""
    found: dict[str, object] = {}
    work = ctx.read(RICHEST_WORK)
    if work:
        found["work"] = _name(work[0]["key"], work[0]["aliases"])
        found["work_reach"] = work[0]["reach"]
    fold = ctx.read(NEWEST_FOLD)
    if fold:
        found["fold_from"], found["fold_to"] = fold[0]["range_from"], fold[0]["range_to"]
    else:
        day = ctx.read(LAST_LOG_DAY)
        if day and day[0]["day"] is not None:
            found["fold_from"] = found["fold_to"] = day[0]["day"]
    concept = ctx.read(TOP_CONCEPT)
    if concept:
        found["concept"] = concept[0]["name"]
    return Showcase.model_validate(found)


def iso(day: dt.date | None) -> str:
    return day.isoformat() if day else ""
