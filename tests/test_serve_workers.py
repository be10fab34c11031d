"""`vaultkg serve --workers N` runs N server processes on one port, each with its own app
(driver, sessions) made from the environment, and they answer GraphQL. Against a real Neo4j."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api_server import free_port
from tests.db import TestDatabase

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found += [int(child) for child in text]
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc (Linux)")
def test_two_workers_serve_graphql(example_graph: object, test_database: TestDatabase) -> None:
    port = free_port()
    env = {**os.environ, **test_database.env()}
    server = subprocess.Popen([sys.executable, "-m", "api.cli", "serve", "--port", str(port),
                               "--workers", "2"], env=env, cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, "the server exited"
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the server did not become ready"
            time.sleep(0.3)
        answered = {httpx.post(f"http://127.0.0.1:{port}/graphql", timeout=30,
                               json={"query": '{ page(key: "テンソル並列") { key } }'}).json()
                    ["data"]["page"]["key"] for _ in range(8)}
        assert answered == {"テンソル並列"}
        # uvicorn spawns each worker with multiprocessing (its resource tracker is no worker)
        workers = [child for child in _children(server.pid)
                   if "spawn_main" in Path(f"/proc/{child}/cmdline").read_text()]
        assert len(workers) == 2, _children(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
