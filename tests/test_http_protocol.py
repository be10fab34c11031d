"""The API's HTTP protocol (api/http_protocol.py): httptools with h11's 16 KiB bound on a
request's head. A head past it, sent at once or in pieces, is answered 400 and the connection
closed; a head under it, a large body after a small head, and several requests on one
kept-alive connection are served. A real uvicorn server with the protocol, over raw sockets."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from api.http_protocol import HTTP, MAX_HEAD_BYTES, BoundedHttpToolsProtocol
from graph.settings import Settings
from tests.api_server import running


@pytest.fixture(scope="module")
def address() -> Iterator[tuple[str, int]]:
    """A server whose Neo4j is never asked (only /healthz and a refused body are used)."""
    settings = Settings(_env_file=None, NEO4J_URI="bolt://127.0.0.1:9")
    with running(settings) as base:
        host, port = base.removeprefix("http://").split(":")
        yield host, int(port)


def exchange(address: tuple[str, int], *pieces: bytes, pause: float = 0.0) -> bytes:
    """Send `pieces` (with `pause` between them) on one connection; all it answers until it
    closes or stays quiet for a second."""
    with socket.create_connection(address, timeout=10) as sock:
        for piece in pieces:
            try:
                sock.sendall(piece)
            except (BrokenPipeError, ConnectionResetError):
                break  # refused before the rest was sent
            time.sleep(pause)
        sock.settimeout(1.0)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return answer


def health(extra_header: bytes = b"", close: bool = True) -> bytes:
    return (b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + extra_header
            + (b"Connection: close\r\n" if close else b"") + b"\r\n")


def test_the_server_speaks_through_the_bounded_protocol(address: tuple[str, int]) -> None:
    assert f"{BoundedHttpToolsProtocol.__module__}:{BoundedHttpToolsProtocol.__name__}" == HTTP
    assert exchange(address, health()).startswith(b"HTTP/1.1 200")


def test_a_head_past_the_bound_is_refused(address: tuple[str, int]) -> None:
    huge = b"X-Big: " + b"k" * (4 * MAX_HEAD_BYTES) + b"\r\n"
    request = health(huge)
    at_once = exchange(address, request)
    assert at_once.startswith(b"HTTP/1.1 400")
    pieces = [request[i:i + 4096] for i in range(0, len(request), 4096)]
    in_pieces = exchange(address, *pieces, pause=0.002)  # h11 would not say "too large"
    assert in_pieces.startswith(b"HTTP/1.1 400") and b"Request head too large." in in_pieces


def test_a_head_past_the_bound_in_one_read_is_refused(address: tuple[str, int]) -> None:
    """Arriving whole (one read), the head never waits incomplete: its parsed size refuses
    it, as h11 does, with uvicorn's answer to a request it cannot parse."""
    request = health(b"X-Big: " + b"k" * (MAX_HEAD_BYTES + 1024) + b"\r\n")
    assert len(request) < 60_000  # one loopback segment, one read
    answer = exchange(address, request)
    assert answer.startswith(b"HTTP/1.1 400") and b"Invalid HTTP request" in answer
    many = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(200))  # ~21 KiB
    assert exchange(address, health(many)).startswith(b"HTTP/1.1 400")


def test_heads_under_the_bound_and_large_bodies_are_served(address: tuple[str, int]) -> None:
    near = b"X-Near: " + b"n" * (MAX_HEAD_BYTES - 1024) + b"\r\n"
    assert exchange(address, health(near)).startswith(b"HTTP/1.1 200")
    body = b'{"query": "' + b"q" * (8 * MAX_HEAD_BYTES) + b'"}'
    post = (b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n")
    answer = exchange(address, post + body)
    assert answer.startswith(b"HTTP/1.1 405")  # the route's answer, not the protocol's 400
    pieces = [body[i:i + 8192] for i in range(0, len(body), 8192)]
    kept = post.replace(b"Connection: close\r\n", b"")
    answer = exchange(address, kept, *pieces, health(), pause=0.002)  # body read after read
    assert answer.count(b"HTTP/1.1 405") == 1 and answer.count(b"HTTP/1.1 200") == 1, answer


def test_each_request_of_a_kept_alive_connection_has_its_own_bound(
        address: tuple[str, int]) -> None:
    half = b"X-Half: " + b"h" * (MAX_HEAD_BYTES // 2) + b"\r\n"
    requests = [health(half, close=False) for _ in range(5)] + [health(half)]
    answer = exchange(address, *requests, pause=0.05)
    assert answer.count(b"HTTP/1.1 200") == 6 and b"HTTP/1.1 400" not in answer
