"""A real uvicorn server in a background thread, so API tests talk HTTP like any client does
(and the app's lifespan opens and closes its driver as in production)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from api.app import create_app
from api.http_protocol import HTTP
from graph.settings import Settings
from tests.db import TestDatabase

API_KEY = "test-key-0123456789"


def settings_for(db: TestDatabase, **overrides: Any) -> Settings:
    """Settings pointing at the test database (never at the environment's)."""
    values: dict[str, Any] = {**db.env(), "VAULTKG_QUERY_TIMEOUT": 30.0}
    values.update(overrides)
    return Settings(_env_file=None, **values)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(settings: Settings, lean_graphql: bool = True) -> Iterator[str]:
    """Serve create_app(settings) on a free loopback port; yields the base URL."""
    port = free_port()
    app = create_app(settings, lean_graphql=lean_graphql)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, http=HTTP,
                                           log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


class Api:
    """A tiny GraphQL-over-HTTP client for tests: posts a query, returns the JSON body."""

    def __init__(self, base: str, token: str | None = None) -> None:
        self.base = base
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=base, headers=headers, timeout=60)

    def post(self, query: str, **variables: Any) -> dict[str, Any]:
        response = self.http.post("/graphql", json={"query": query, "variables": variables})
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        assert "Traceback" not in response.text
        return body

    def data(self, query: str, **variables: Any) -> dict[str, Any]:
        """The `data` of a query that must succeed."""
        body = self.post(query, **variables)
        assert not body.get("errors"), body.get("errors")
        data: dict[str, Any] = body["data"]
        return data

    def error_codes(self, query: str, **variables: Any) -> list[str]:
        body = self.post(query, **variables)
        return [e["extensions"]["code"] for e in body.get("errors", [])]

