"""A lean HTTP/1.1 keep-alive client for the query benchmark's load generator.

The load generator shares the machine (2 cores) with the API and Neo4j, and with one client its
own CPU sits in every request's latency. httpx spent ~2.2 ms of CPU per GraphQL request here,
about a quarter of what the API server itself spends, and that was being charged to the API.
This client writes one request per call on one persistent connection and reads a
`Content-Length` or chunked response; orjson decodes the body."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

import orjson


class HttpError(Exception):
    """The server closed the connection or sent something that is not an HTTP response."""


class KeepAliveConnection:
    """One connection, one request in flight at a time (a benchmark client is sequential)."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"only http://host:port URLs are supported, not {url!r}")
        self.host = parts.hostname
        self.port = parts.port or 80
        self.timeout = timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def post_json(self, path: str, payload: object) -> tuple[int, Any]:
        """POST `payload` as JSON; the status and the decoded JSON body. Reconnects once when
        the server has closed an idle connection."""
        body = orjson.dumps(payload)
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
        for attempt in (1, 2):
            reader, writer = await self._connection()
            try:
                writer.write(head.encode("ascii") + body)
                status, raw = await asyncio.wait_for(self._response(reader), self.timeout)
            except TimeoutError:
                await self.close()  # a late answer would be read as the next request's
                raise
            except (ConnectionError, asyncio.IncompleteReadError, HttpError):
                await self.close()
                if attempt == 2:
                    raise
                continue
            return status, orjson.loads(raw) if raw else None
        raise AssertionError("unreachable")

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._writer.is_closing():
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    @staticmethod
    async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        try:
            status = int(lines[0].split(" ", 2)[1])
        except (IndexError, ValueError):
            raise HttpError(f"not an HTTP status line: {lines[0][:80]!r}") from None
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            return status, await KeepAliveConnection._chunked(reader)
        return status, await reader.readexactly(int(headers.get("content-length", "0")))

    @staticmethod
    async def _chunked(reader: asyncio.StreamReader) -> bytes:
        parts: list[bytes] = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await reader.readexactly(size))
            await reader.readexactly(2)

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()
