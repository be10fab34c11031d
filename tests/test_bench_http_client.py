"""The benchmark's lean HTTP client against a real socket server: keep-alive, Content-Length and
chunked bodies, a server that closes idle connections, and a status line that is not HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import orjson
import pytest

from benchmarks.http_client import HttpError, KeepAliveConnection

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> object:
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    length = next(int(line.split(":")[1]) for line in head.split("\r\n")
                  if line.lower().startswith("content-length"))
    assert head.startswith("POST /graphql HTTP/1.1\r\n")
    return orjson.loads(await reader.readexactly(length))


async def _serve(handler: Handler, scenario: Callable[[str], Awaitable[None]]) -> None:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        await scenario(f"http://127.0.0.1:{port}")
    finally:
        server.close()
        await server.wait_closed()


def test_keeps_one_connection_and_reads_both_body_framings() -> None:
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        n = 0
        while True:
            try:
                request = await _read_request(reader)
            except asyncio.IncompleteReadError:
                break
            n += 1
            body = orjson.dumps({"echo": request, "n": n})
            if n % 2:
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s"
                             % (len(body), body))
            else:  # chunked, in two chunks
                half = len(body) // 2
                writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                             + b"%x\r\n%s\r\n" % (half, body[:half])
                             + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body) - half, body[half:]))
            await writer.drain()
        writer.close()

    async def scenario(url: str) -> None:
        client = KeepAliveConnection(url, timeout=5)
        answers = [await client.post_json("/graphql", {"query": f"q{i}"}) for i in range(4)]
        await client.close()
        assert [status for status, _ in answers] == [200] * 4
        assert [body["echo"]["query"] for _, body in answers] == ["q0", "q1", "q2", "q3"]
        assert [body["n"] for _, body in answers] == [1, 2, 3, 4]

    asyncio.run(_serve(handler, scenario))
    assert connections == 1


def test_reconnects_when_the_server_closed_the_idle_connection() -> None:
    connections = 0

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await _read_request(reader)
        body = b'{"ok":true}'
        writer.write(b"HTTP/1.1 500 Oops\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()  # one request per connection

    async def scenario(url: str) -> None:
        client = KeepAliveConnection(url, timeout=5)
        first = await client.post_json("/graphql", {"query": "a"})
        await asyncio.sleep(0.05)
        second = await client.post_json("/graphql", {"query": "b"})
        await client.close()
        assert first == (500, {"ok": True}) and second == (500, {"ok": True})

    asyncio.run(_serve(handler, scenario))
    assert connections == 2


def test_not_http_is_an_error_not_a_hang() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
        await writer.drain()

    async def scenario(url: str) -> None:
        client = KeepAliveConnection(url, timeout=5)
        with pytest.raises(HttpError, match="not an HTTP status line"):
            await client.post_json("/graphql", {"query": "a"})
        await client.close()

    asyncio.run(_serve(handler, scenario))


def test_only_http_urls() -> None:
    with pytest.raises(ValueError, match="only http://"):
        KeepAliveConnection("https://example.org", timeout=1)
