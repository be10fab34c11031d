"""`GraphWriter.concurrently`, without a database: every job runs to its end, at the same time,
and a failure reaches the caller only after all of them are done."""

from __future__ import annotations

import threading
from typing import Any, cast

import pytest

from graph.writer import GraphWriter


def _writer() -> GraphWriter:
    return GraphWriter(cast(Any, None), "neo4j")


def test_jobs_run_at_the_same_time() -> None:
    together = threading.Barrier(3, timeout=10)  # breaks unless all three wait at once
    ran: list[int] = []

    def job(n: int) -> None:
        together.wait()
        ran.append(n)

    _writer().concurrently(*(lambda n=n: job(n) for n in range(3)))
    assert sorted(ran) == [0, 1, 2]


def test_a_failure_is_raised_after_every_job_is_done() -> None:
    release = threading.Event()
    finished: list[str] = []

    def fails() -> None:
        raise RuntimeError("first")

    def slow() -> None:
        release.wait(timeout=10)
        finished.append("slow")

    def fails_later() -> None:
        release.set()
        raise ValueError("second")

    with pytest.raises(RuntimeError, match="first"):
        _writer().concurrently(fails, slow, fails_later)
    assert finished == ["slow"]
    with pytest.raises(ValueError, match="second"):
        _writer().concurrently(slow, fails_later)
