"""Full-text search over titles, aliases and bodies (index `page_text`, cjk analyzer: Japanese
bigrams and Latin words), and over the log's entries (`log_text`: a hit on the log page). User
text is always escaped, never Lucene syntax. A page whose name (key, title or alias) equals the
text ranks first, whatever the body scores say."""

from __future__ import annotations

import re
from typing import LiteralString

from loaders.errors import BadUserInput
from loaders.records import PageKind
from queries.base import GraphContext
from queries.common import (
    PAGE_BODY,
    PAGE_PROJECTION,
    PageRecord,
    Row,
    folded,
    name_term,
    pages_named,
)
from queries.paging import check_first

MAX_TEXT = 200
SNIPPET_CHARS = 60
# A body longer than this is not sent whole for a snippet when the text occurs within its
# first `OPENING_CHARS` (see `_BODY`): the log's is 17 MB at 100k pages, matched by most
# searches, and took 230 ms per hit to send.
WHOLE_BODY_CHARS = 20_000
OPENING_CHARS = 200_000
LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')

# What a hit sends of its body for the snippet: a short body whole; of a long one, when its
# opening holds `$needle` (the text, lower-cased), only a window around the first occurrence,
# cut in Cypher, reaching `$around` (twice the snippet's margin) beyond it on each side or to
# the body's end: `snippet` cuts from it what it would from the whole body. Otherwise the whole
# body. A hit on the log through one of its entries (`log_text`) sends that entry's heading
# and bullets (`LogEntry.search_text`): the log's body (17 MB at 100k pages) is not read.
_BODY: LiteralString = (
    "WITH p, score, exact, entry, CASE WHEN entry IS NULL "
    "     THEN " + PAGE_BODY + " END AS text "
    "WITH p, score, exact, entry, text, CASE WHEN size(text) > $whole "
    "     THEN toLower(substring(text, 0, $opening)) END AS opening "
    "WITH p, score, exact, entry, text, CASE WHEN opening CONTAINS $needle "
    "     THEN size(split(opening, $needle)[0]) END AS at "
    "WITH p, score, exact, entry, text, at, "
    "     CASE WHEN at > $around THEN at - $around ELSE 0 END AS start_at "
    "WITH " + PAGE_PROJECTION + " AS page, score, exact = 1 AS name_match, "
    "CASE WHEN entry IS NOT NULL THEN entry.search_text "
    "     WHEN at IS NULL THEN text "
    "     ELSE substring(text, start_at, at - start_at + $around + size($needle)) END AS body ")

# The hits, in the order of the `WITH ... ORDER BY` before, as one list
# (`GraphContext.read_rows`).
_HITS: LiteralString = (
    "RETURN collect({page: page, score: score, name_match: name_match, body: body}) AS rows")

# Lucene keeps only the best $pool hits of pages, and the best log entry (a hit on the log
# page, the one page entries belong to: it gives the page's score and snippet; the best 100
# took 1.5-2 ms more at 100k pages); name matches join them (index lookup), and only the $first
# kept rows are projected (a body is large: never read for the rest of the pool).
SEARCH: LiteralString = (
    "CALL () { "
    "  CALL db.index.fulltext.queryNodes('page_text', $lucene, {limit: $pool}) "
    "  YIELD node, score RETURN node AS p, score, 0 AS exact, null AS entry "
    "  UNION ALL "
    "  CALL db.index.fulltext.queryNodes('log_text', $lucene, {limit: 1}) "
    "  YIELD node, score MATCH (p:Page {key: node.page}) "
    "  RETURN p, score, 0 AS exact, node AS entry "
    "  UNION ALL "
    "  " + pages_named("$name", "p") + "RETURN p, 0.0 AS score, 1 AS exact, null AS entry } "
    "WITH p, score, exact, entry ORDER BY score DESC "
    "WITH p, max(score) AS score, max(exact) AS exact, collect(entry)[0] AS entry "
    "WHERE $kinds IS NULL OR p.kind IN $kinds "
    "WITH p, score, exact, entry ORDER BY exact DESC, score DESC, p.key LIMIT $first "
    + _BODY + "ORDER BY exact DESC, score DESC, p.key " + _HITS)

NAME_ONLY: LiteralString = (
    pages_named("$name", "p") + "WITH p WHERE $kinds IS NULL OR p.kind IN $kinds "
    "WITH p, 0.0 AS score, 1 AS exact, null AS entry ORDER BY p.key LIMIT $first " + _BODY
    + "ORDER BY page.key " + _HITS)


class SearchHit(Row):
    page: PageRecord
    score: float
    name_match: bool  # the text is the page's key, title or an alias
    snippet: str | None  # body text around the first occurrence, if any


def lucene_query(text: str) -> str:
    """Plain user text -> a Lucene query: words anywhere, the exact phrase boosted, and title
    and alias matches boosted. Lower-cased so AND/OR/NOT stay words."""
    escaped = LUCENE_SPECIAL.sub(r"\\\1", " ".join(text.lower().split()))
    return (f'({escaped}) OR "{escaped}"^4 OR title:({escaped})^2 '
            f"OR aliases_text:({escaped})^2")


def snippet(body: str | None, text: str) -> str | None:
    """A short window of `body` around the text (or its first word), on one line."""
    if not body:
        return None
    low = body.casefold()
    for needle in (text.casefold(), *text.casefold().split()):
        at = low.find(needle)
        if at >= 0:
            start, end = max(0, at - SNIPPET_CHARS), at + len(needle) + SNIPPET_CHARS
            window = " ".join(body[start:end].split())
            return ("…" if start else "") + window + ("…" if end < len(body) else "")
    return None


def _cut(text: str) -> dict[str, object]:
    """The parameters `_BODY` cuts a long body's window with (none when lower-casing and
    `snippet`'s case folding disagree on the text: then bodies are sent whole)."""
    needle = text.lower() if text.lower() == text.casefold() else None
    return {"needle": needle, "around": 2 * SNIPPET_CHARS, "whole": WHOLE_BODY_CHARS,
            "opening": OPENING_CHARS}


def search(ctx: GraphContext, text: str, first: int = 10,
           kinds: list[PageKind] | None = None) -> list[SearchHit]:
    """The pages that best match `text`, best first."""
    check_first(first)
    text = " ".join(text.split())
    if not text:
        raise BadUserInput("search text must not be empty")
    if len(text) > MAX_TEXT:
        raise BadUserInput(f"search text must be at most {MAX_TEXT} characters")
    kind_values = [k.value for k in kinds] if kinds else None
    if re.search(r"\w", text):
        rows = ctx.read_rows(SEARCH, lucene=lucene_query(text),
                             name=name_term(folded(text)), kinds=kind_values, first=first,
                             pool=min(1000, first * 10), **_cut(text))
    else:  # nothing the analyzer would index: names only
        rows = ctx.read_rows(NAME_ONLY, name=name_term(folded(text)), kinds=kind_values,
                             first=first, **_cut(text))
    return [SearchHit(page=PageRecord.from_row(r["page"]), score=r["score"],
                      name_match=r["name_match"],
                      snippet=snippet(r["body"], text))
            for r in rows]
