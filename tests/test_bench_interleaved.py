"""The query benchmark's overhead ratio for one client comes from alternating batches: HTTP, then
the driver, on the same arguments, round after round; a slow side shows in the ratio, and an
error in a GraphQL answer stops the measurement instead of timing an error."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import pytest

from benchmarks.http_client import HttpError
from benchmarks.query_bench import Case, _interleaved
from tests.test_bench_http_client import _read_request, _serve

Calls = list[tuple[str, Any]]


def _server(calls: Calls, delay_s: float, errors: bool = False) -> Any:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            try:
                request = await _read_request(reader)
            except asyncio.IncompleteReadError:
                break
            assert isinstance(request, dict)
            calls.append(("http", request["variables"]["i"]))
            await asyncio.sleep(delay_s)
            body = orjson.dumps({"errors": [{"message": "no"}]} if errors else {"data": {}})
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
            await writer.drain()
        writer.close()

    return handler


def _case(calls: Calls, delay_s: float) -> Case:
    def direct(_ctx: object, i: int) -> None:
        calls.append(("driver", i))
        time.sleep(delay_s)

    return Case("toy", "query($i: Int) { x }", lambda i: {"i": i}, direct)


def test_batches_alternate_on_the_same_arguments_and_give_the_ratio() -> None:
    calls: Calls = []
    found: dict[str, Any] = {}

    async def scenario(url: str) -> None:
        # ~4 ms a request over HTTP, ~2 ms through the "driver"; single_ms 100 -> batches of 4.
        found.update(await _interleaved(url, None, _case(calls, 0.002),  # type: ignore[arg-type]
                                        100.0, rounds=3))

    asyncio.run(_serve(_server(calls, 0.004), scenario))
    assert found["batch"] == 4 and found["rounds"] == 3
    expected = [(side, i) for r in range(3) for side in ("http", "driver")
                for i in range(r * 4, r * 4 + 4)]
    assert calls == expected
    assert found["http_p50_ms"] > found["driver_p50_ms"] >= 2.0
    assert found["ratio"] == pytest.approx(found["http_p50_ms"] / found["driver_p50_ms"],
                                           rel=0.01)
    assert found["ratio"] > 1.3


def test_an_error_in_the_answer_stops_the_measurement() -> None:
    calls: Calls = []

    async def scenario(url: str) -> None:
        with pytest.raises(HttpError, match="toy"):
            await _interleaved(url, None, _case(calls, 0.0), 5.0)  # type: ignore[arg-type]

    asyncio.run(_serve(_server(calls, 0.0, errors=True), scenario))
    assert calls == [("http", 0)]
