"""Query fields of the fold resolver: digests of log ranges, folds of folds, the Fold nodes of a
level, and the fold template's checks. Read-only: writing fold pages is the CLI's job."""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import Annotated

import strawberry

from api.decorators import read_field
from api.fold_types import FoldCheck, FoldDigest, fold_check, fold_digest, size
from api.types import Ctx, Fold, page_by_key
from queries import fold_resolver as resolver
from queries.fold_models import FoldDigest as Digest


async def _digest(info: Ctx, digest: Digest) -> FoldDigest:
    info.context.spend(size(digest))
    return fold_digest(digest)


@strawberry.type
class FoldQueries:
    @read_field(description="Extractive digest (fold) of the log entries dated within "
                            "[from, to]. With asOf, only what the vault knew at that date; "
                            "without it, later corrections are listed as `later`.")
    async def fold(self, info: Ctx,
                   from_: Annotated[dt.date, strawberry.argument(name="from")],
                   to: dt.date, as_of: dt.date | None = None) -> FoldDigest:
        return await _digest(info, await info.context.run(resolver.fold_range, from_, to, as_of))

    @read_field(description="Digest of the 2^level log entries ending at `ending`.")
    async def fold_ending(self, info: Ctx, level: int, ending: dt.date,
                          as_of: dt.date | None = None) -> FoldDigest:
        return await _digest(info, await info.context.run(resolver.fold_ending, level, ending,
                                                          as_of))

    @read_field(description="Level K+1 digest of two adjacent level-K folds (by fold id).")
    async def fold_of_folds(self, info: Ctx, left: str, right: str,
                            as_of: dt.date | None = None) -> FoldDigest:
        return await _digest(info, await info.context.run(resolver.fold_of_fold_ids, left,
                                                          right, as_of))

    @read_field(description="The fold pages (Fold nodes) of one level (or all), oldest range "
                            "first: what `folds(level:)` of the fold issue asks for.")
    async def folds_by_level(self, info: Ctx, level: int | None = None) -> list[Fold]:
        found = await info.context.run(resolver.folds, level)
        info.context.spend(len(found))
        pages = await asyncio.gather(*(page_by_key(info, f.key) for f in found))
        return [p for p in pages if isinstance(p, Fold)]

    @read_field(description="The fold template's checks on a fold page's markdown, against "
                            "the graph's log.")
    async def check_fold(self, info: Ctx, markdown: str,
                         path: str | None = None) -> FoldCheck:
        return fold_check(await info.context.run(resolver.check_markdown, markdown, path))
