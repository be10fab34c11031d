"""Run a pure per-item function over many items on every core, results in input order.

Parsing a page is CPU-bound Python (tokenizers, regexes, pydantic), so threads do not help; forked
worker processes do. With `fork` the function and its inputs (name index, mention matcher, file
texts) are inherited, not pickled; only the results travel back. Where `fork` is unavailable, or
the job is small, it runs serially: the output is the same either way."""

from __future__ import annotations

import functools
import multiprocessing
import os
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MIN_ITEMS = 1000  # below this the fork and the result pickling cost more than they save
MAX_WORKERS = 8
CHUNK = 100

_job: tuple[Callable[[Any], Any], Sequence[Any]] | None = None


def default_workers(items: int) -> int:
    """Worker processes for `items` items: one per usable core, or 1 for small jobs."""
    if items < MIN_ITEMS or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_WORKERS))


def _run_chunk(bounds: tuple[int, int]) -> list[Any]:
    """Worker side: the job was inherited from the parent at fork time."""
    assert _job is not None
    fn, items = _job
    return [fn(items[i]) for i in range(*bounds)]


def ordered_imap(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 ahead: int | None = None, heavy_last: bool = False,
                 nice: int = 0) -> Iterator[R]:
    """`fn(x) for x in items`, in order, spread over `workers` forked processes (default: one
    per core for large jobs), yielded as they come: the caller can use (write) the first
    results while the workers compute the next. `fn` must not depend on state it changes: each
    worker has its own copy. With `ahead`, workers stay at most about that many items ahead
    of the caller, so results waiting to be taken stay bounded in memory. With `heavy_last`,
    the last item is known to take long (a vault's log): a worker starts on it first, apart,
    so that the others, and the caller, need not wait for it until the end. With `nice`, the
    workers run at that lower CPU priority: a caller that writes what they compute (and the
    database it writes to) then gets the cores it needs, and the workers the rest."""
    global _job
    count = workers if workers is not None else default_workers(len(items))
    total = len(items)
    if count <= 1 or total < 2:
        for done, item in enumerate(items, start=1):
            yield fn(item)
            if progress:
                progress(done, total)
        return
    rest = total - 1 if heavy_last else total
    todo = deque((start, min(start + CHUNK, rest)) for start in range(0, rest, CHUNK))
    window = len(todo) if ahead is None else max(2 * count, -(-ahead // CHUNK))
    _job = (fn, items)
    pool = ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("fork"),
                               initializer=functools.partial(os.nice, nice) if nice else None)
    try:
        pending: deque[Future[list[R]]] = deque()
        # Submitting forks every worker now (fork start method): they have inherited `_job`.
        heavy = pool.submit(_run_chunk, (rest, total)) if heavy_last else None

        def submit() -> None:
            while todo and len(pending) < window:
                pending.append(pool.submit(_run_chunk, todo.popleft()))

        submit()
        _job = None
        done = 0
        while pending:
            results = pending.popleft().result()
            submit()
            done += len(results)
            yield from results
            if progress:
                progress(done, total)
        if heavy is not None:
            yield from heavy.result()
            if progress:
                progress(total, total)
    finally:
        _job = None
        pool.shutdown(wait=True, cancel_futures=True)
