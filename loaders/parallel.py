"""Run a pure per-item function over many items on every core, results in input order.

Parsing a page is CPU-bound Python (tokenizers, regexes, pydantic), so threads do not help; forked
worker processes do. With `fork` the function and its inputs (name index, mention matcher, file
texts) are inherited, not pickled; only the results travel back. Where `fork` is unavailable, or
the job is small, it runs serially: the output is the same either way."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
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


def ordered_map(fn: Callable[[T], R], items: Sequence[T], *, workers: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> list[R]:
    """`[fn(x) for x in items]`, spread over `workers` forked processes (default: one per core
    for large jobs). `fn` must not depend on state it changes: each worker has its own copy."""
    global _job
    count = workers if workers is not None else default_workers(len(items))
    total = len(items)
    if count <= 1 or total < 2:
        out: list[R] = []
        for item in items:
            out.append(fn(item))
            if progress:
                progress(len(out), total)
        return out
    _job = (fn, items)
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=count, mp_context=context) as pool:
            futures = [pool.submit(_run_chunk, (start, min(start + CHUNK, total)))
                       for start in range(0, total, CHUNK)]
            results: list[R] = []
            for future in futures:
                results.extend(future.result())
                if progress:
                    progress(len(results), total)
        return results
    finally:
        _job = None
