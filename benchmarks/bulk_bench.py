"""The offline import against `vaultkg ingest`, side by side on one local server of its own.

    python -m benchmarks.bulk_bench [--sizes 10k,100k] [--rounds 2]

Each round starts both from a fresh store (the database's files deleted, the server started
again): an ingest, then an offline import (`graph.bulk_import`), each timed with its phases and
the server's CPU. The server is a home beside the project's (`.neo4j/home-bulk-bench`, port
7708 unless VAULTKG_BULK_BENCH_PORT says otherwise), since the import stops and starts it; its
heap and page cache come from VAULTKG_NEO4J_HEAP / VAULTKG_NEO4J_PAGECACHE (2g / 2g here)."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.generate import DEFAULT_SEED, SIZES, ensure_vault
from graph import local_server
from graph.bulk_import import bulk_import
from graph.connection import create_driver
from graph.ingest import ingest
from graph.settings import Settings

HOME = Path(__file__).resolve().parent.parent / ".neo4j" / "home-bulk-bench"
RESULTS = common.OUT_DIR / "bulk.json"


def bench_settings() -> Settings:
    port = int(os.environ.get("VAULTKG_BULK_BENCH_PORT", "7708"))
    return Settings().model_copy(update={
        "neo4j_home": HOME, "neo4j_bolt_port": port, "neo4j_uri": f"bolt://127.0.0.1:{port}",
        "neo4j_heap": os.environ.get("VAULTKG_NEO4J_HEAP", "2g"),
        "neo4j_pagecache": os.environ.get("VAULTKG_NEO4J_PAGECACHE", "2g")})


def _fresh(settings: Settings) -> None:
    """A server on an empty store: the database's files deleted while it is down."""
    local_server.stop(settings)
    local_server.drop_store(settings)
    local_server.start(settings)


def _online(settings: Settings, vault: Path) -> dict[str, Any]:
    _fresh(settings)
    cpu = (common.server_cpu_s(settings) or 0.0)
    started = time.perf_counter()
    with create_driver(settings) as driver:
        report = ingest(driver, settings.neo4j_database, vault)
    return {"elapsed_s": round(time.perf_counter() - started, 1),
            "neo4j_cpu_s": round((common.server_cpu_s(settings) or 0.0) - cpu, 1),
            "nodes": report.nodes, "relationships": report.relationships}


def _offline(settings: Settings, vault: Path) -> dict[str, Any]:
    _fresh(settings)
    started = time.perf_counter()
    report = bulk_import(settings, vault)
    return {"elapsed_s": round(time.perf_counter() - started, 1),
            "nodes": report.nodes, "relationships": report.relationships,
            "phases": report.timings.model_dump()}


def bench_bulk(vault: Path, rounds: int) -> dict[str, Any]:
    """`rounds` alternations of an ingest and an offline import; the medians, and each run."""
    settings = bench_settings()
    runs: dict[str, list[dict[str, Any]]] = {"ingest": [], "offline_import": []}
    try:
        for _ in range(rounds):
            runs["ingest"].append(_online(settings, vault))
            print("ingest", runs["ingest"][-1], flush=True)
            runs["offline_import"].append(_offline(settings, vault))
            print("offline import", runs["offline_import"][-1], flush=True)
    finally:
        local_server.stop(settings)
    for mode in runs.values():
        assert len({(r["nodes"], r["relationships"]) for r in mode}) == 1
    assert runs["ingest"][0]["nodes"] == runs["offline_import"][0]["nodes"]
    return {"median_s": {mode: statistics.median(r["elapsed_s"] for r in done)
                         for mode, done in runs.items()}, "runs": runs}


def render(results: dict[str, Any]) -> str:
    lines = ["| pages | `vaultkg ingest` (s) | offline import (s) "
             "| import phases, upper-median run (s) |",
             "|---|---|---|---|"]
    for pages, entry in sorted(results["sizes"].items(), key=lambda kv: int(kv[0])):
        runs = entry["runs"]
        ingest_s = ", ".join(str(r["elapsed_s"]) for r in runs["ingest"])
        offline_s = ", ".join(str(r["elapsed_s"]) for r in runs["offline_import"])
        middle = sorted(runs["offline_import"], key=lambda r: r["elapsed_s"])[
            len(runs["offline_import"]) // 2]
        phases = ", ".join(f"{k} {v}" for k, v in middle["phases"].items())
        lines.append(f"| {int(pages):,} | {ingest_s} | {offline_s} | {phases} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10k", help="comma list of 1k,10k,100k or numbers")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    results: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    results.setdefault("sizes", {})
    for size in (s.strip() for s in args.sizes.split(",") if s.strip()):
        pages = SIZES.get(size) or int(size)
        results["sizes"][str(pages)] = bench_bulk(ensure_vault(pages, args.seed), args.rounds)
        common.OUT_DIR.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(render(results))


if __name__ == "__main__":
    main()
