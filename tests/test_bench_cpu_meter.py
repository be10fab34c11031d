"""CPU per request, by process: the numbers that say which process a latency target under
concurrency waits on. Read from /proc for other processes (and their children: uvicorn's
workers), from getrusage for the load generator; the report turns them into a floor."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

from benchmarks import common
from benchmarks.cpu_meter import CpuMeter, CpuSample, per_request_ms
from benchmarks.query_bench import Case, _direct, _stats
from benchmarks.report import _floor_ms, render_markdown

BURN_THEN_SLEEP = ("import time\nt = time.process_time()\n"
                   "while time.process_time() - t < 0.4: pass\n"
                   "print('burnt', flush=True)\ntime.sleep(30)\n")


def _burn(seconds: float) -> None:
    started = time.process_time()
    while time.process_time() - started < seconds:
        pass


def test_process_cpu_grows_with_work_and_is_none_once_gone() -> None:
    before = common.process_cpu_s(os.getpid())
    _burn(0.2)
    after = common.process_cpu_s(os.getpid())
    assert before is not None and after is not None and after - before >= 0.15
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert common.process_cpu_s(gone.pid) is None
    assert common.process_tree_cpu_s(gone.pid) is None


def test_a_process_tree_counts_its_children() -> None:
    child = subprocess.Popen([sys.executable, "-c", BURN_THEN_SLEEP], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "burnt"
        own = common.process_cpu_s(os.getpid())
        tree = common.process_tree_cpu_s(os.getpid())
        child_cpu = common.process_cpu_s(child.pid)
        assert own is not None and tree is not None and child_cpu is not None
        assert child_cpu >= 0.35
        assert tree - own >= child_cpu - 0.02  # /proc counts in clock ticks
    finally:
        child.kill()
        child.wait()


def test_per_request_shares_and_total() -> None:
    before, after = CpuSample(1.0, 2.0, None), CpuSample(1.5, 3.0, None)
    assert per_request_ms(before, after, 100) == {"client": 5.0, "api": 10.0, "neo4j": None,
                                                  "total": 15.0}
    assert per_request_ms(before, after, 0) == {"client": None, "api": None, "neo4j": None,
                                                "total": None}


def test_the_driver_run_reports_the_cpu_its_calls_burn() -> None:
    def direct(_ctx: object, _i: int) -> None:
        _burn(0.004)

    case = Case("burner", "query { x }", lambda i: {}, direct)
    stats = _direct(None, case, 1, 0.4, 1, CpuMeter(None, None))  # type: ignore[arg-type]
    cpu = stats["cpu_ms"]
    assert stats["requests"] > 10
    assert 3.5 <= cpu["client"] <= 8.0, cpu  # 4 ms burnt per call, plus the loop's own
    assert cpu["api"] is None and cpu["neo4j"] is None and cpu["total"] == cpu["client"]


def test_floors_follow_littles_law_from_as_many_clients_as_cores() -> None:
    assert _floor_ms(8, 10.0, 2) == 40.0
    assert _floor_ms(2, 10.0, 2) == 10.0
    assert _floor_ms(1, 10.0, 2) is None
    assert _floor_ms(8, None, 2) is None


def _data() -> dict[str, Any]:
    timing = {"p50_ms": 45.0, "p95_ms": 60.0, "p99_ms": 70.0, "rps": 160.0, "errors": 0}
    return {"machine": {"nproc": 2}, "sizes": {"10000": {
        "ingest": {"full": {"elapsed_s": 300.0, "cpu_s": 300.0, "server_cpu_s": 200.0,
                            "peak_rss_mb": 500.0}},
        "query": {"rows": [{"query": "lineage depth 3", "clients": 8,
                            "http": {**timing, "mean_ms": 48.5,
                                     "cpu_ms": {"client": 1.0, "api": 5.0,
                                                          "neo4j": 4.0, "total": 10.0}},
                            "driver": {**timing, "cpu_ms": {"client": 2.5, "api": None,
                                                            "neo4j": 4.0, "total": 6.5}}}]}}}}


def test_the_report_shows_the_cpu_split_and_the_floors() -> None:
    text = render_markdown(_data())
    assert "CPU floor of the full ingest: (300.0 client + 200.0 Neo4j) CPU-s / 2 cores = " \
           "**250.0 s**; measured 300.0 s, 1.20x the floor." in text
    # The driver run has no mean recorded (an older run): 8 clients / 160 req/s = 50 ms.
    assert "| lineage depth 3 | 8 | 5.00 | 4.00 | 1.00 | 10.00 | 40.0 | 48.50 | 4.00 | 2.50 | " \
           "6.50 | 26.0 | 50.00 |" in text


def test_a_report_without_cpu_figures_has_no_cpu_table() -> None:
    data = _data()
    entry = data["sizes"]["10000"]
    for side in ("http", "driver"):
        del entry["query"]["rows"][0][side]["cpu_ms"]
    del entry["ingest"]["full"]["server_cpu_s"]  # a server whose process is not visible
    text = render_markdown(data)
    assert "CPU per request" not in text and "CPU floor" not in text


def test_a_run_keeps_its_mean_latency() -> None:
    stats = _stats([0.010, 0.030, 0.020], 0, 1.0, None)
    assert stats["mean_ms"] == 20.0 and stats["p50_ms"] == 20.0
    assert _stats([], 1, 1.0, "boom")["mean_ms"] is None
