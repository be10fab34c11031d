"""Reads run as auto-commit queries (graph/connection.py), which the driver never retries:
`retried` does, as the driver retries a managed transaction. No Neo4j needed: the attempts
fail as the driver would, and the clock is the test's."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from neo4j.exceptions import ClientError, ServiceUnavailable, SessionExpired, TransientError

from graph import connection


class Clock:
    """`time.monotonic` and `time.sleep` for `graph.connection`: sleeping moves it on."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr("graph.connection.time.monotonic", fake.monotonic)
    monkeypatch.setattr("graph.connection.time.sleep", fake.sleep)
    return fake


def failing(errors: list[Exception], answer: str = "rows"
            ) -> tuple[list[int], Callable[[], str]]:
    """An attempt that raises `errors` one per call, then answers; and its call count."""
    calls: list[int] = []

    def attempt() -> str:
        calls.append(len(calls))
        if errors:
            raise errors.pop(0)
        return answer

    return calls, attempt


def test_transient_failures_are_retried_with_growing_delays(clock: Clock) -> None:
    calls, attempt = failing([
        SessionExpired("stale connection"),  # type: ignore[no-untyped-call]
        TransientError("busy"),
        ServiceUnavailable("restarting")])  # type: ignore[no-untyped-call]
    assert connection.retried(attempt) == "rows"
    assert len(calls) == 4
    # The driver's delays: 1 s, doubling, each ±20%.
    assert len(clock.slept) == 3
    assert all(0.8 * 2 ** i <= s <= 1.2 * 2 ** i for i, s in enumerate(clock.slept))


def test_retries_stop_once_the_time_is_up(clock: Clock) -> None:
    errors: list[Exception] = [
        ServiceUnavailable(f"down {i}") for i in range(10)]  # type: ignore[no-untyped-call]
    calls, attempt = failing(errors)
    with pytest.raises(ServiceUnavailable, match="down 4"):
        connection.retried(attempt, within_s=10)
    # Failures at ~0, 1, 3, 7 s are retried; the one at ~15 s is past the 10 s.
    assert len(calls) == 5 and len(clock.slept) == 4


def test_an_error_that_is_not_transient_is_raised_at_once(clock: Clock) -> None:
    calls, attempt = failing([ClientError("Neo.ClientError.Statement.SyntaxError")])
    with pytest.raises(ClientError):
        connection.retried(attempt)
    assert len(calls) == 1 and clock.slept == []
