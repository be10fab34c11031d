"""Query benchmark: latency percentiles and throughput of lineage (depth 3 and 10),
lineagePath, contradictions, search, pages filtered by author or concept, and fold (16, 256,
1,024 entries) at 1, 8 and 32 concurrent clients, over HTTP (GraphQL on a uvicorn server of
`api.app:create_app`, in its own process) and through the driver directly (the same `queries`
functions the resolvers call, in threads), so the API's overhead is a ratio.

Runs against whatever graph the database holds (the ingest benchmark leaves the vault's graph
there). The few Cypher reads below only pick sample arguments (keys, subjects, dates)."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, LiteralString

import httpx

from api.http_protocol import HTTP
from benchmarks import common
from benchmarks.cpu_meter import CpuMeter, per_request_ms
from benchmarks.http_client import HttpError, KeepAliveConnection
from loaders.gc_pause import leave_startup_out
from queries.base import GraphContext

CLIENTS = (1, 8, 32)
REQUEST_TIMEOUT_S = 120.0
# A query slower than this with one client is not run with more: that only measures queueing.
SLOW_MS = 2000.0
# The API's overhead (one client) is measured again in this many alternating batches.
INTERLEAVED_ROUNDS = 8
ROOTS: LiteralString = (
    "MATCH (p:Paper) WHERE EXISTS { (p)-[:BUILDS_ON]->() } "
    "WITH p ORDER BY p.year DESC, p.key LIMIT 400 RETURN p.key AS key")
ANCESTOR_3: LiteralString = (
    "MATCH (:Page {key: $key})-[:BUILDS_ON]->()-[:BUILDS_ON]->()-[:BUILDS_ON]->(d) "
    "RETURN d.key AS key LIMIT 1")
SUBJECTS: LiteralString = (
    "MATCH (x:Contradiction) WHERE x.subject IS NOT NULL "
    "RETURN x.subject AS key, count(*) AS n ORDER BY n DESC, key LIMIT 20")
TERMS: LiteralString = "MATCH (c:Concept) RETURN c.title AS t ORDER BY c.key LIMIT 30"
# Filters by name: the most prolific authors and the concepts with most works.
AUTHORS: LiteralString = (
    "MATCH (a:Person)<-[:AUTHORED_BY]-() WITH a, count(*) AS n "
    "RETURN a.title AS name ORDER BY n DESC, a.key LIMIT 10")
CONCEPTS: LiteralString = (
    "MATCH (c:Concept)<-[:ABOUT]-() WITH c, count(*) AS n "
    "RETURN c.title AS name ORDER BY n DESC, c.key LIMIT 10")
LOG_DATES: LiteralString = (
    "MATCH (e:LogEntry) WITH e ORDER BY e.seq DESC WITH collect(e.date) AS dates "
    "RETURN dates[0] AS last, size(dates) AS n, dates[size(dates) / 4] AS q3, "
    "dates[size(dates) / 2] AS mid")
WORDS = ("スループット", "latency", "パイプライン", "KV キャッシュ", "scheduling", "メモリ",
         "Gradient Compression", "推論")

LINEAGE = """query($k: String!, $d: Int!) { lineage(from: $k, maxDepth: $d) { truncated
  root { key } nodes { depth side page { key title } }
  edges { relation childKey parentKey provenance { pageKey line mechanism } } } }"""
PATH = """query($a: String!, $b: String!) { lineagePath(from: $a, to: $b) { fromIsAncestor
  truncated paths { length nodes { key } edges { relation childKey parentKey } } } }"""
CONTRADICTIONS = """query($s: String) { contradictions(subject: $s, first: 20) { nodes {
  contradictionId kind status summary pageKeys evidence { source line text } } } }"""
# The same, as a screen would ask: the first 5 evidence lines of each and how many there are.
CONTRADICTIONS_5 = """query($s: String) { contradictions(subject: $s, first: 20) { nodes {
  contradictionId kind status summary pageKeys evidenceCount evidence(first: 5) {
  source line text } } } }"""
# As a list screen asks since round 27: 5 evidence lines and 5 page keys of each, with their
# counts (a hub subject's contradictions involve ~500 pages each).
CONTRADICTIONS_SCREEN = """query($s: String) { contradictions(subject: $s, first: 20) { nodes {
  contradictionId kind status summary pageCount pageKeys(first: 5) evidenceCount
  evidence(first: 5) { source line text } } } }"""
SEARCH = """query($t: String!) { search(text: $t, first: 10) {
  score nameMatch snippet page { key title } } }"""
PAGES = """query($f: PageFilter!) { pages(filter: $f, first: 20, sort: {field: YEAR}) {
  totalCount nodes { key title ... on Work { year } } } }"""
FOLD = """query($l: Int!, $d: Date!) { foldEnding(level: $l, ending: $d) {
  foldId entryCount markdown } }"""


@dataclass
class Case:
    """One benchmarked query: its GraphQL text and variables, and the same work done through
    the `queries` functions directly."""

    name: str
    gql: str
    variables: Callable[[int], dict[str, Any]]
    direct: Callable[[GraphContext, int], object]


def _samples(ctx: GraphContext) -> dict[str, Any]:
    roots = [r["key"] for r in ctx.read(ROOTS)]
    roots = roots[:: max(1, len(roots) // 20)][:20]
    pairs = []
    for key in roots:
        found = ctx.read(ANCESTOR_3, key=key)
        if found:
            pairs.append((key, found[0]["key"]))
    dates = ctx.read(LOG_DATES)[0]
    return {"roots": roots, "pairs": pairs,
            "subjects": [r["key"] for r in ctx.read(SUBJECTS)] or [None],
            "terms": [r["t"] for r in ctx.read(TERMS)][:12] + list(WORDS),
            "filters": [{"author": r["name"]} for r in ctx.read(AUTHORS)]
            + [{"concept": r["name"]} for r in ctx.read(CONCEPTS)],
            "dates": [d.to_native() if hasattr(d, "to_native") else d
                      for d in (dates["last"], dates["q3"], dates["mid"]) if d is not None],
            "entries": dates["n"] or 0}


def _cases(s: dict[str, Any]) -> list[Case]:
    from queries import lineage as lq
    from queries.contradictions import contradictions
    from queries.fold_render import render
    from queries.fold_resolver import fold_ending
    from queries.pages import PageFilter, SortField, count_pages, list_pages
    from queries.search import search

    roots, pairs, subjects, terms, dates = (s["roots"], s["pairs"], s["subjects"], s["terms"],
                                            s["dates"])

    def lineage(depth: int) -> Case:
        def direct(ctx: GraphContext, i: int) -> object:
            return lq.lineage_of_work(ctx, roots[i % len(roots)], lq.Direction.ANCESTORS, None,
                                      depth)
        return Case(f"lineage depth {depth}", LINEAGE,
                    lambda i: {"k": roots[i % len(roots)], "d": depth}, direct)

    def path_direct(ctx: GraphContext, i: int) -> object:
        a, b = pairs[i % len(pairs)]
        return lq.paths_of_works(ctx, a, b, None, 10, 10)

    def fold(level: int) -> Case:
        def direct(ctx: GraphContext, i: int) -> object:
            return render(fold_ending(ctx, level, dates[i % len(dates)]))
        return Case(f"fold {2 ** level} entries", FOLD,
                    lambda i: {"l": level, "d": str(dates[i % len(dates)])}, direct)

    cases = [lineage(3), lineage(10)]
    if pairs:
        cases.append(Case("lineagePath", PATH,
                          lambda i: {"a": pairs[i % len(pairs)][0], "b": pairs[i % len(pairs)][1]},
                          path_direct))
    cases.append(Case(
        "contradictions (by subject)", CONTRADICTIONS,
        lambda i: {"s": subjects[i % len(subjects)]},
        lambda ctx, i: contradictions(ctx, subject=subjects[i % len(subjects)], first=20,
                                      with_claims=False)))
    cases.append(Case(
        "contradictions, 5 evidence lines", CONTRADICTIONS_5,
        lambda i: {"s": subjects[i % len(subjects)]},
        lambda ctx, i: contradictions(ctx, subject=subjects[i % len(subjects)], first=20,
                                      with_claims=False, evidence=5)))
    cases.append(Case(
        "contradictions, 5 lines and 5 pages", CONTRADICTIONS_SCREEN,
        lambda i: {"s": subjects[i % len(subjects)]},
        lambda ctx, i: contradictions(ctx, subject=subjects[i % len(subjects)], first=20,
                                      with_claims=False, evidence=5, pages=5)))
    cases.append(Case("search", SEARCH, lambda i: {"t": terms[i % len(terms)]},
                      lambda ctx, i: search(ctx, terms[i % len(terms)], 10)))
    filters = s["filters"]

    def pages_direct(ctx: GraphContext, i: int) -> object:
        where = PageFilter(**filters[i % len(filters)])
        return list_pages(ctx, where, SortField.YEAR, first=20), count_pages(ctx, where)

    if filters:
        cases.append(Case("pages by author or concept", PAGES,
                          lambda i: {"f": filters[i % len(filters)]}, pages_direct))
    for level in (4, 8, 10):
        # Late dates leave fewer entries before them; a fold needs 2^level of them.
        if dates and s["entries"] >= 2 ** level * 2:
            cases.append(fold(level))
    return cases


def _stats(latencies: list[float], errors: int, wall: float, first_error: str | None
           ) -> dict[str, Any]:
    ordered = sorted(latencies)

    def pct(p: float) -> float | None:
        if not ordered:
            return None
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 2)

    return {"requests": len(ordered), "errors": errors, "p50_ms": pct(0.50),
            "p95_ms": pct(0.95), "p99_ms": pct(0.99),
            "mean_ms": round(statistics.fmean(ordered) * 1000, 2) if ordered else None,
            "rps": round(len(ordered) / wall, 1) if wall else None, "first_error": first_error}


def _problem(status: int, body: object) -> str | None:
    """What went wrong with a GraphQL answer (its errors, or the HTTP status), if anything."""
    errors = body.get("errors") if isinstance(body, dict) else None
    return str(errors or status)[:300] if status != 200 or errors else None


async def _http(url: str, case: Case, clients: int, duration: float, warmup: int,
                meter: CpuMeter) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    first_error: str | None = None
    counter = 0
    connections = [KeepAliveConnection(url, REQUEST_TIMEOUT_S) for _ in range(clients)]

    async def one(connection: KeepAliveConnection, i: int) -> tuple[float, str | None]:
        started = time.perf_counter()
        try:
            status, body = await connection.post_json(
                "/graphql", {"query": case.gql, "variables": case.variables(i)})
        except (OSError, TimeoutError, HttpError, asyncio.IncompleteReadError,
                ValueError) as exc:  # a timeout is a result, not a crash
            return time.perf_counter() - started, repr(exc)[:300]
        return time.perf_counter() - started, _problem(status, body)

    try:
        for i in range(warmup):
            await one(connections[0], i)
        cpu_before = meter.sample()
        deadline = time.perf_counter() + duration
        started = time.perf_counter()

        async def worker(connection: KeepAliveConnection) -> None:
            nonlocal counter, errors, first_error
            while time.perf_counter() < deadline:
                counter += 1
                elapsed, problem = await one(connection, counter)
                if problem:
                    errors += 1
                    first_error = first_error or problem
                else:
                    latencies.append(elapsed)

        await asyncio.gather(*(worker(c) for c in connections))
        wall = time.perf_counter() - started
        cpu_after = meter.sample()
    finally:
        for connection in connections:
            await connection.close()
    return {**_stats(latencies, errors, wall, first_error),
            "cpu_ms": per_request_ms(cpu_before, cpu_after, len(latencies) + errors)}


def _direct(ctx: GraphContext, case: Case, clients: int, duration: float, warmup: int,
            meter: CpuMeter) -> dict[str, Any]:
    for i in range(warmup):
        try:
            case.direct(ctx, i)
        except Exception:  # reported by the measured calls below
            break
    latencies: list[float] = []
    errors = 0
    first_error: str | None = None
    lock = threading.Lock()
    counter = iter(range(10**9))
    deadline = time.perf_counter() + duration

    def worker() -> None:
        nonlocal errors, first_error
        while time.perf_counter() < deadline:
            with lock:
                i = next(counter)
            started = time.perf_counter()
            try:
                case.direct(ctx, i)
            except Exception as exc:  # a failing query is a result to report, not a crash
                with lock:
                    errors += 1
                    first_error = first_error or repr(exc)[:300]
                continue
            with lock:
                latencies.append(time.perf_counter() - started)

    cpu_before = meter.sample()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        for future in [pool.submit(worker) for _ in range(clients)]:
            future.result()
    wall = time.perf_counter() - started
    return {**_stats(latencies, errors, wall, first_error),
            "cpu_ms": per_request_ms(cpu_before, meter.sample(), len(latencies) + errors)}


async def _interleaved(url: str, ctx: GraphContext, case: Case, single_ms: float,
                       rounds: int = INTERLEAVED_ROUNDS) -> dict[str, Any]:
    """The API's overhead for one client as a ratio that drift cannot skew: batches over HTTP
    and through the driver alternate (the same arguments on both sides), so a JIT still
    warming, a collector's pause or a busier minute falls on both. Batches last ~0.4 s."""
    batch = max(2, min(40, round(400 / max(single_ms, 1.0))))
    http: list[float] = []
    driver: list[float] = []
    connection = KeepAliveConnection(url, REQUEST_TIMEOUT_S)
    try:
        for r in range(rounds):
            for i in range(r * batch, (r + 1) * batch):
                started = time.perf_counter()
                status, body = await connection.post_json(
                    "/graphql", {"query": case.gql, "variables": case.variables(i)})
                http.append(time.perf_counter() - started)
                problem = _problem(status, body)
                if problem:
                    raise HttpError(f"{case.name}: {problem}")
            for i in range(r * batch, (r + 1) * batch):
                started = time.perf_counter()
                case.direct(ctx, i)
                driver.append(time.perf_counter() - started)
    finally:
        await connection.close()
    http_ms, driver_ms = statistics.median(http) * 1000, statistics.median(driver) * 1000
    return {"http_p50_ms": round(http_ms, 2), "driver_p50_ms": round(driver_ms, 2),
            "ratio": round(http_ms / driver_ms, 3), "rounds": rounds, "batch": batch}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ApiServer:
    """uvicorn serving `api.app:create_app` in its own process (so the load generator does not
    share its interpreter)."""

    def __init__(self, workers: int = 1) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "VAULTKG_QUERY_TIMEOUT": str(REQUEST_TIMEOUT_S)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "api.app:create_app", "--factory", "--host",
             "127.0.0.1", "--port", str(self.port), "--log-level", "warning",
             "--no-access-log", "--workers", str(workers), "--http", HTTP], env=env,
            cwd=str(Path(__file__).resolve().parents[1]))

    def wait(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("the API server exited")
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise RuntimeError("the API server did not become ready")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def bench_queries(vault: Path | None = None, *, quick: bool = False,
                  clients: tuple[int, ...] = CLIENTS, http: bool = True,
                  log: Callable[[str], None] = print, api_workers: int = 1) -> dict[str, Any]:
    """Every case at every concurrency, over HTTP (to `api_workers` server processes) and
    directly; the graph must be loaded."""
    s = common.settings()
    drv = common.driver(s)
    ctx = GraphContext(drv, s.neo4j_database, timeout_s=REQUEST_TIMEOUT_S)
    duration, warmup = (2.0, 2) if quick else (8.0, 5)
    rows: list[dict[str, Any]] = []
    server = ApiServer(api_workers) if http else None
    note = None
    try:
        samples = _samples(ctx)
        cases = _cases(samples)
        # As the API server does at startup: a program that calls the driver can keep its
        # imports out of the collector's walks too, so the ratio compares like with like.
        leave_startup_out()
        if server is not None:
            try:
                server.wait()
            except RuntimeError as exc:
                note = f"HTTP pending: {exc}"
                server.stop()
                server = None
        for case in cases:
            single: float | None = None
            for n in clients:
                if n > 1 and single is not None and single > SLOW_MS:
                    rows.append({"query": case.name, "clients": n, "skipped":
                                 f"p50 with one client is {single:.0f} ms (> {SLOW_MS:.0f})"})
                    continue
                log(f"query {case.name} x{n}")
                row: dict[str, Any] = {"query": case.name, "clients": n, "driver": _direct(
                    ctx, case, n, duration, warmup, CpuMeter.local(None))}
                if server is not None:
                    row["http"] = asyncio.run(_http(server.url, case, n, duration, warmup,
                                                    CpuMeter.local(server.process.pid)))
                if n == 1:
                    single = row["driver"]["p50_ms"]
                    if server is not None and single is not None and not row["driver"][
                            "errors"] and not row["http"]["errors"]:
                        row["interleaved"] = asyncio.run(
                            _interleaved(server.url, ctx, case, single,
                                         2 if quick else INTERLEAVED_ROUNDS))
                rows.append(row)
    finally:
        if server is not None:
            server.stop()
        drv.close()
    return {"rows": rows, "samples": {k: (v if k != "dates" else [str(d) for d in v])
                                      for k, v in samples.items() if k != "terms"},
            "duration_s": duration, "note": note, "api_workers": api_workers,
            "measured_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}


if __name__ == "__main__":
    import json

    print(json.dumps(bench_queries(quick="--quick" in sys.argv), indent=2, default=str))
