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
