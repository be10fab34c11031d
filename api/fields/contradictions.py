"""Query field for contradictions, with claims, values, evidence and how each was found."""

from __future__ import annotations

import strawberry

from api.connections import Connection, connection
from api.decorators import read_field
from api.types import Contradiction, ContradictionKind, ContradictionStatus, Ctx, contradiction
from queries import contradictions as contradiction_queries
from queries.paging import DEFAULT_FIRST


@strawberry.type
class ContradictionQueries:
    @read_field(description="Contradictions, explicit and detected; `subject` is a page key, "
                            "title or alias.")
    async def contradictions(self, info: Ctx, subject: str | None = None,
                             status: ContradictionStatus | None = None,
                             kind: ContradictionKind | None = None,
                             first: int = DEFAULT_FIRST,
                             after: str | None = None) -> Connection[Contradiction]:
        # Claims come through a DataLoader, and only when the query asks for them.
        found = await info.context.run(
            contradiction_queries.contradictions, subject, status.value if status else None,
            kind.value if kind else None, first, after, False)
        info.context.spend(len(found.items))
        return connection([contradiction(x) for x in found.items], found.cursors,
                          found.has_next, after)
