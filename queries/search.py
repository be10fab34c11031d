"""Full-text search over titles, aliases and bodies (index `page_text`, cjk analyzer: Japanese
bigrams and Latin words). User text is always escaped, never Lucene syntax. A page whose name
(key, title or alias) equals the text ranks first, whatever the body scores say."""

from __future__ import annotations

import re
from typing import LiteralString

from loaders.errors import BadUserInput
from loaders.records import PageKind
from queries.base import GraphContext
from queries.common import PAGE_PROJECTION, PageRecord, Row, folded, name_term, pages_named
from queries.paging import check_first

MAX_TEXT = 200
SNIPPET_CHARS = 60
LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/&|])')

# Lucene keeps only the best $pool hits; name matches join them (index lookup), and only the
# $first kept rows are projected (a body is large: never read for the rest of the pool).
SEARCH: LiteralString = (
    "CALL () { "
    "  CALL db.index.fulltext.queryNodes('page_text', $lucene, {limit: $pool}) "
    "  YIELD node, score RETURN node AS p, score, 0 AS exact "
    "  UNION ALL "
    "  " + pages_named("$name", "p") + "RETURN p, 0.0 AS score, 1 AS exact } "
    "WITH p, sum(score) AS score, max(exact) AS exact "
    "WHERE $kinds IS NULL OR p.kind IN $kinds "
    "WITH p, score, exact ORDER BY exact DESC, score DESC, p.key LIMIT $first "
    "RETURN " + PAGE_PROJECTION + " AS page, score, exact = 1 AS name_match, p.body AS body "
    "ORDER BY exact DESC, score DESC, p.key")

NAME_ONLY: LiteralString = (
    pages_named("$name", "p") + "WITH p WHERE $kinds IS NULL OR p.kind IN $kinds "
    "RETURN " + PAGE_PROJECTION + " AS page, 0.0 AS score, true AS name_match, "
    "p.body AS body ORDER BY p.key LIMIT $first")


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
        rows = ctx.read(SEARCH, lucene=lucene_query(text), name=name_term(folded(text)),
                        kinds=kind_values,
                        first=first, pool=min(1000, first * 10))
    else:  # nothing the analyzer would index: names only
        rows = ctx.read(NAME_ONLY, name=name_term(folded(text)), kinds=kind_values,
                        first=first)
    return [SearchHit(page=PageRecord.from_row(r["page"]), score=r["score"],
                      name_match=r["name_match"], snippet=snippet(r["body"], text))
            for r in rows]
