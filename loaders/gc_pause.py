"""Python's cyclic garbage collector paused while a vault is read.

A load allocates millions of small objects (records, tuples, strings) and keeps most of them;
each full collection walks every live object, so a warm process holding a large vault's name
index and log parse paid up to 0.4 s per one-page re-ingest in collections that found nothing
(measured in benchmarks/RESULTS.md). The records form no reference cycles, so nothing is lost
by collecting only reference-counted garbage meanwhile; the collector resumes afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused() -> Iterator[None]:
    """Nested uses are fine: only the outermost turns the collector back on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def keep_long_lived() -> None:
    """In a long-lived process (`vaultkg watch`, the API), after an ingest: what the process
    keeps from it (the name index, the log parse: millions of objects at 100k pages) leaves the
    collector's generations, so later full collections no longer walk it. Each such collection
    took ~2 s at 100k pages, every few one-page re-ingests. Objects that die later are still
    freed by reference counting; only a reference cycle among objects alive now would be kept
    until the process ends, and the records form none."""
    gc.freeze()


def leave_startup_out() -> None:
    """In a server, once it has started: the modules, the GraphQL schema and the driver (about
    125k objects) leave the collector's generations. Each full collection walked all of them
    while requests waited: at 8 clients, 15-22 collections in 24 s of load took 1.0-1.5 s in
    all and up to 79-143 ms each, the requests' slowest 1% (benchmarks/HISTORY.md, round 23).
    Garbage made since startup is walked before the freeze, so none is kept for good."""
    gc.collect()
    gc.freeze()


@contextmanager
def set_aside() -> Iterator[None]:
    """What is alive now is left out of the collector's walks until the block ends: an
    ingest's plan (headers, name index, the log's parse: millions of objects at 100k pages,
    made while the collector was paused) lives through the writes, and the collections that
    walked it took 4.5 s of a 32 s edit recorded in the log at 100k. Garbage made meanwhile is
    collected as usual. On leaving, everything frozen goes back to the collector's oldest
    generation (a long-lived process then calls `keep_long_lived`)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
