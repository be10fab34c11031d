"""Query fields for the append-only log."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import strawberry

from api.connections import Connection, connection
from api.decorators import read_field
from api.types import Ctx, LogEntry, entry_by_key, log_entry
from queries import log as log_queries
from queries.paging import DEFAULT_FIRST


@strawberry.type
class LogQueries:
    @read_field(description="Log entries dated within [from, to] (inclusive), oldest first "
                            "unless newestFirst; `op` matches `op` and `op-*` (ingest matches "
                            "ingest-paper).")
    async def log_entries(
            self, info: Ctx,
            from_: Annotated[dt.date | None, strawberry.argument(name="from")] = None,
            to: dt.date | None = None, op: str | None = None, first: int = DEFAULT_FIRST,
            after: str | None = None, newest_first: bool = False) -> Connection[LogEntry]:
        found = await info.context.run(log_queries.log_entries, from_, to, op, first, after,
                                       newest_first)
        info.context.spend(len(found.items))
        return connection([log_entry(e) for e in found.items], found.cursors, found.has_next,
                          after)

    @read_field(description="One log entry by key (`log/YYYY-MM-DD/NN`).")
    async def log_entry(self, info: Ctx, key: str) -> LogEntry | None:
        return await entry_by_key(info, key)
