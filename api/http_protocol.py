"""The API's HTTP/1.1 protocol: uvicorn's httptools one (its C parser: ~0.35 ms less CPU per
request than h11's pure Python at 8 clients, benchmarks/HISTORY.md, round 25), with the
bound on a request's head that h11 has and httptools lacks.

h11 refuses a request whose line and headers pass 16 KiB; httptools keeps whatever a client
sends until the head ends, so one connection could make the server hold megabytes of header.
Here a request is answered 400 and its connection closed, as uvicorn answers a request
httptools cannot parse, when its target and headers pass `MAX_HEAD_BYTES` (counted as the
parser hands them over), or when the bytes received while its head is still incomplete do
(httptools holds a header until its line ends)."""

from __future__ import annotations

from h11._connection import DEFAULT_MAX_INCOMPLETE_EVENT_SIZE
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD_BYTES = DEFAULT_MAX_INCOMPLETE_EVENT_SIZE  # 16 KiB, h11's bound
# How uvicorn is told to use it (`uvicorn.run(..., http=HTTP)`, `uvicorn --http HTTP`).
HTTP = "api.http_protocol:BoundedHttpToolsProtocol"


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """httptools with h11's bound on the request head (see the module)."""

    _in_head = False  # from a request's first byte to the end of its headers
    _head_bytes = 0  # received in reads that began and ended inside the head
    _parsed_bytes = 0  # of the target and headers parsed

    def data_received(self, data: bytes) -> None:
        began_in_head = self._in_head
        super().data_received(data)
        if not (began_in_head and self._in_head) or self.transport.is_closing():
            return
        # A read that neither starts nor ends the head counts against the bound: a head held
        # by httptools is never more than the bound and two reads.
        self._head_bytes += len(data)
        if self._head_bytes > MAX_HEAD_BYTES:
            self.send_400_response("Request head too large.")

    def on_message_begin(self) -> None:
        self._in_head, self._head_bytes, self._parsed_bytes = True, 0, 0
        super().on_message_begin()

    def on_url(self, url: bytes) -> None:
        self._parsed(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed(len(name) + len(value) + 4)  # as sent: `name: value` and CRLF
        super().on_header(name, value)

    def _parsed(self, size: int) -> None:
        self._parsed_bytes += size
        if self._parsed_bytes > MAX_HEAD_BYTES:
            # Raised inside the parser's callback: uvicorn answers its parse error, a 400.
            raise HeadTooLarge(f"the request's head passes {MAX_HEAD_BYTES} bytes")

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()


class HeadTooLarge(Exception):
    """A request's target and headers pass `MAX_HEAD_BYTES`."""
