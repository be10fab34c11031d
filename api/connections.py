"""Relay-style connections: edges with opaque cursors, pageInfo, and a totalCount that costs a
query only when it is asked for."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

import strawberry

from api.decorators import described, pure_field

T = TypeVar("T")


@strawberry.type
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type
class Edge(Generic[T]):
    cursor: str
    node: T


@strawberry.type(description="A slice of a list; pass `pageInfo.endCursor` as `after` for more.")
class Connection(Generic[T]):
    edges: list[Edge[T]]
    page_info: PageInfo
    count: strawberry.Private[Callable[[], Awaitable[int]] | None] = None

    @described("Items in the whole list (costs one more query).")
    async def total_count(self) -> int | None:
        return await self.count() if self.count is not None else None

    @pure_field("The nodes of `edges`, for clients that need no cursors.")
    def nodes(self) -> list[T]:
        return [e.node for e in self.edges]


def connection(nodes: Sequence[T], cursors: Sequence[str], has_next: bool, after: str | None,
               count: Callable[[], Awaitable[int]] | None = None) -> Connection[T]:
    """Build a connection from one keyset slice."""
    edges = [Edge(cursor=c, node=n) for n, c in zip(nodes, cursors, strict=True)]
    return Connection(
        edges=edges, count=count,
        page_info=PageInfo(has_next_page=has_next, has_previous_page=after is not None,
                           start_cursor=cursors[0] if cursors else None,
                           end_cursor=cursors[-1] if cursors else None))
