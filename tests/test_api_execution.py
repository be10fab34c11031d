"""How the schema executes a request, without Neo4j: each executor thread keeps one event loop
(and its executor for blocking calls) across requests, leaves no task of one request running
into the next, and a repeated document is validated once, with the depth and alias limits
still applied."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from strawberry.extensions.validation_cache import _get_validate_cache

from api.context import in_thread
from api.request_loops import run_on_thread_loop
from api.schema import MAX_DEPTH, schema


async def _loop_and_worker() -> tuple[int, int]:
    """This request's loop, and the thread its blocking call ran on."""
    worker = await asyncio.to_thread(threading.get_ident)
    return id(asyncio.get_running_loop()), worker


def test_an_executor_thread_keeps_its_loop_and_workers() -> None:
    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(run_on_thread_loop, _loop_and_worker()).result()
        second = pool.submit(run_on_thread_loop, _loop_and_worker()).result()
    assert first == second  # same loop, and the blocking call reused the same worker thread


def test_tasks_a_request_leaves_behind_are_cancelled() -> None:
    left: list[asyncio.Task[None]] = []

    async def leaves_a_task() -> str:
        left.append(asyncio.get_running_loop().create_task(asyncio.sleep(3600)))
        return "done"

    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(run_on_thread_loop, leaves_a_task()).result() == "done"
    assert left[0].done() and left[0].cancelled()


async def _read_threads(siblings: int) -> list[int]:
    """The threads `in_thread` ran a blocking call on, for 1 + `siblings` concurrent calls."""
    calls = [in_thread(_slow_ident) for _ in range(1 + siblings)]
    return list(await asyncio.gather(*calls)) if siblings else [await calls[0]]


def _slow_ident() -> int:
    time.sleep(0.01)
    return threading.get_ident()


def test_a_lone_read_runs_in_place_and_concurrent_ones_on_threads() -> None:
    with ThreadPoolExecutor(1) as pool:
        here = pool.submit(threading.get_ident).result()
        assert pool.submit(run_on_thread_loop, _read_threads(0)).result() == [here]
        # Two reads of one request (two root fields, two loader batches) must not queue.
        both = pool.submit(run_on_thread_loop, _read_threads(1)).result()
        assert here not in both and len(set(both)) == 2
    # Outside a request's loop (the server's own), never in place.
    assert asyncio.run(_read_threads(0)) != [threading.get_ident()]


def test_a_repeated_document_is_validated_once() -> None:
    cache = cast("Any", _get_validate_cache(256))  # an lru_cache wrapper
    query = "{ __typename }"
    assert not asyncio.run(schema.execute(query)).errors  # now cached
    misses = cache.cache_info().misses
    for _ in range(3):
        result = asyncio.run(schema.execute(query))
        assert result.data == {"__typename": "Query"} and not result.errors
    assert cache.cache_info().misses == misses


def test_cached_validation_still_applies_the_limits() -> None:
    deep = '{ page(key: "log") { ' + "linksTo { " * MAX_DEPTH + "key" + " }" * MAX_DEPTH + " } }"
    for _ in range(2):  # the second answer comes from the cache
        result = asyncio.run(schema.execute(deep))
        assert result.errors and "exceeds maximum operation depth" in result.errors[0].message
        assert result.errors[0].extensions == {"code": "QUERY_TOO_COMPLEX"}
