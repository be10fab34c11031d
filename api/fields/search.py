"""Query field for full-text search (Japanese and English)."""

from __future__ import annotations

import strawberry

from api.decorators import read_field
from api.types import Ctx, SearchHit, page
from loaders.records import PageKind
from queries import search as search_queries


@strawberry.type
class SearchQueries:
    @read_field(description="Pages whose title, aliases or body match `text`, best first; a "
                            "page named exactly `text` comes first. The log matches through "
                            "its entries, its snippet from the best one. Text is plain words, "
                            "not query syntax.")
    async def search(self, info: Ctx, text: str, first: int = 10,
                     kinds: list[PageKind] | None = None) -> list[SearchHit]:
        hits = await info.context.run(search_queries.search, text, first, kinds)
        info.context.spend(len(hits))
        info.context.loaders.pages.prime_many({h.page.key: h.page for h in hits})
        return [SearchHit(page=page(h.page), score=h.score, name_match=h.name_match,
                          snippet=h.snippet) for h in hits]
