"""Per-request state of the GraphQL API: the GraphContext (one driver per process, shared),
the DataLoaders (new per request, so caching never leaks between requests or users), whether
the caller presented the API key, and a budget on how many objects one response may hold."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, LiteralString, TypeVar

from strawberry.dataloader import DataLoader
from strawberry.fastapi import BaseContext

from api.errors import QueryTooComplex
from api.ingest_sessions import IngestSessions
from api.request_loops import may_block
from graph.connection import read
from graph.settings import Settings
from queries import contradictions as contradiction_queries
from queries import lineage as lineage_queries
from queries import log as log_queries
from queries import pages as page_queries
from queries.base import GraphContext
from queries.common import PageRecord
from queries.contradictions import ClaimRecord, ContradictionRecord

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

# One response may carry at most this many objects (pages, entries, edges...): a cheap guard
# against fan-out queries (links of links of links...) that depth limits alone allow.
MAX_OBJECTS = 20_000


@dataclass
class CountingGraphContext(GraphContext):
    """GraphContext whose round-trip counter stays exact when DataLoaders run queries in
    parallel worker threads (`+=` on a shared int is not atomic)."""

    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def read(self, query: LiteralString, **params: Any) -> list[dict[str, Any]]:
        with self._lock:
            self.queries_run += 1
        return read(self.driver, self.database, query, timeout=self.timeout_s, **params)


async def in_thread(fn: Callable[..., V], *args: Any) -> V:
    """Run a blocking query function off the event loop, or in place when nothing else of the
    request could run meanwhile (api/request_loops.py)."""
    if may_block():
        return fn(*args)
    return await asyncio.to_thread(fn, *args)


def batch_loader(graph: GraphContext, fetch: Callable[[GraphContext, list[K]], Mapping[K, V]],
                 missing: Callable[[], V]) -> DataLoader[K, V]:
    """A DataLoader over a `queries` batch function: one round trip per batch of keys."""

    async def load(keys: list[K]) -> list[V]:
        found = await in_thread(fetch, graph, list(keys))
        return [found[k] if k in found else missing() for k in keys]

    return DataLoader(load_fn=load)


def _none() -> None:
    return None


def _parents(graph: GraphContext, keys: list[str]
             ) -> Mapping[str, list[lineage_queries.LineageEdgeRecord]]:
    return lineage_queries.edges_of(graph, keys, up=True)


def _children(graph: GraphContext, keys: list[str]
              ) -> Mapping[str, list[lineage_queries.LineageEdgeRecord]]:
    return lineage_queries.edges_of(graph, keys, up=False)


def _loader(fetch: Callable[[GraphContext, list[K]], Mapping[K, V]],
            missing: Callable[[], V]) -> cached_property[DataLoader[K, V]]:
    """A `Loaders` attribute: the DataLoader over `fetch`, made on first use in a request."""
    def make(loaders: Loaders) -> DataLoader[K, V]:
        return batch_loader(loaders.graph, fetch, missing)
    return cached_property(make)


class Loaders:
    """Every DataLoader of one request, each made on first use: most requests need one or two
    of them, and making all fourteen was a measurable share of a short request."""

    pages: cached_property[DataLoader[str, PageRecord | None]] = _loader(
        page_queries.pages_by_keys, _none)
    bodies: cached_property[DataLoader[str, str]] = _loader(
        page_queries.bodies, str)
    venue_of: cached_property[DataLoader[str, str | None]] = _loader(
        page_queries.venues_of, _none)
    venue_papers: cached_property[DataLoader[str, list[PageRecord]]] = _loader(
        page_queries.venue_papers, list)
    parents: cached_property[DataLoader[str, list[lineage_queries.LineageEdgeRecord]]] = _loader(
        _parents, list)
    children: cached_property[DataLoader[str, list[lineage_queries.LineageEdgeRecord]]] = _loader(
        _children, list)
    log_entries: cached_property[DataLoader[str, log_queries.LogEntryRecord | None]] = _loader(
        log_queries.entries_by_keys, _none)
    touches: cached_property[DataLoader[str, list[log_queries.TouchRecord]]] = _loader(
        log_queries.touches, list)
    history: cached_property[DataLoader[str, list[log_queries.PageHistoryItem]]] = _loader(
        log_queries.page_history, list)
    fold_entries: cached_property[DataLoader[str, list[log_queries.LogEntryRecord]]] = _loader(
        log_queries.fold_entries, list)
    claims: cached_property[DataLoader[str, ClaimRecord | None]] = _loader(
        contradiction_queries.claims_by_ids, _none)
    contradictions: cached_property[DataLoader[str, ContradictionRecord | None]] = _loader(
        contradiction_queries.contradictions_by_ids, _none)
    contradiction_claims: cached_property[DataLoader[str, list[ClaimRecord]]] = _loader(
        contradiction_queries.claims_of_contradictions, list)
    claim_contradictions: cached_property[DataLoader[str, list[str]]] = _loader(
        contradiction_queries.contradictions_of_claims, list)

    def __init__(self, graph: GraphContext) -> None:
        self.graph = graph
        self._related: dict[page_queries.Relation, DataLoader[str, list[PageRecord]]] = {}

    def related(self, relation: page_queries.Relation) -> DataLoader[str, list[PageRecord]]:
        """The loader of one page relation (authors, affiliations, links...)."""
        loader = self._related.get(relation)
        if loader is None:
            loader = batch_loader(
                self.graph, lambda g, keys: page_queries.related(g, relation, keys), list)
            self._related[relation] = loader
        return loader


class ApiContext(BaseContext):
    """What every resolver gets as `info.context`."""

    def __init__(self, graph: GraphContext, settings: Settings, authenticated: bool,
                 ingest_sessions: IngestSessions | None = None) -> None:
        super().__init__()
        self.graph = graph
        self.settings = settings
        self.authenticated = authenticated
        self.ingest_sessions = ingest_sessions  # the server's, kept between requests
        self.loaders = Loaders(graph)
        self.objects = 0

    def spend(self, n: int = 1) -> None:
        """Count objects put into the response; refuse once the budget is gone."""
        self.objects += n
        if self.objects > MAX_OBJECTS:
            raise QueryTooComplex(
                f"the response would hold more than {MAX_OBJECTS} objects; ask for fewer "
                "fields, smaller `first`, or less nesting")

    async def run(self, fn: Callable[..., V], *args: Any) -> V:
        """Run a `queries` function (blocking) for this request."""
        return await in_thread(fn, self.graph, *args)
