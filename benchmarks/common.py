"""What every benchmark needs: a driver from the usual settings, a wipe, the machine's
description, peak memory, and running one measurement in a fresh subprocess (so peak RSS and
import costs belong to that measurement alone)."""

from __future__ import annotations

import json
import os
import platform
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any, LiteralString

import neo4j

from graph.connection import create_driver
from graph.settings import Settings
from graph.wipe import wipe as wipe  # the benchmarks' wipe is the tests' one

OUT_DIR = Path(__file__).resolve().parent / "out"
VERSION: LiteralString = "CALL dbms.components() YIELD name, versions RETURN versions[0] AS v"


def settings() -> Settings:
    return Settings()


def driver(s: Settings | None = None) -> neo4j.Driver:
    return create_driver(s or settings())


def cpu_s(children: bool = True) -> float:
    """CPU seconds (user + system, every thread) of this process and, unless told not to, its
    finished children (the ingest's parse workers): unlike wall time, hardly affected by other
    work on the machine."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    if children:
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        total += kids.ru_utime + kids.ru_stime
    return round(total, 3)


def server_pid(s: Settings | None = None) -> int | None:
    """The process of the local Neo4j server (VAULTKG_NEO4J_HOME), if it runs."""
    from graph.local_server import neo4j_home, running_pid

    return running_pid(neo4j_home(s or settings()))


def server_cpu_s(s: Settings | None = None) -> float | None:
    """CPU seconds the local Neo4j server (VAULTKG_NEO4J_HOME) has used so far; None when it is
    not a local server we can see."""
    pid = server_pid(s)
    return None if pid is None else process_cpu_s(pid)


def _stat_fields(pid: int) -> list[str] | None:
    """`/proc/PID/stat` after the command name (which may hold spaces and parentheses)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system, every thread) process `pid` has used so far; None when it
    is gone or not visible."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 3)


def _children(pid: int) -> list[int]:
    """Live child processes of `pid`: the kernel's lists (one per thread) where it keeps them,
    else a scan of /proc for processes whose parent is `pid`."""
    try:
        return [int(c) for task in Path(f"/proc/{pid}/task").iterdir()
                for c in (task / "children").read_text().split()]
    except OSError:
        pass
    kids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None and fields[1] == str(pid):
                kids.append(int(entry.name))
    return kids


def process_tree_cpu_s(pid: int) -> float | None:
    """CPU seconds of `pid` and its live descendants (uvicorn's worker processes); None when
    `pid` is gone."""
    own = process_cpu_s(pid)
    if own is None:
        return None
    return round(own + sum(process_tree_cpu_s(kid) or 0.0 for kid in _children(pid)), 3)


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MiB (Linux reports KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def workers_peak_rss_mb() -> float:
    """Peak RSS of the largest finished child (a parse worker), in MiB. Forked, it shares the
    parent's pages until either writes them; RSS counts shared pages in both."""
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)


def _meminfo_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine(drv: neo4j.Driver | None, database: str) -> dict[str, Any]:
    """nproc, RAM, CPU, load, Python, Neo4j server and driver versions."""
    server = "unknown"
    if drv is not None:
        records, _, _ = drv.execute_query(VERSION, database_="system")
        server = str(records[0]["v"]) if records else "unknown"
    return {"nproc": os.cpu_count(), "ram_gib": _meminfo_gib(), "cpu": _cpu_model(),
            "load_avg": [round(x, 2) for x in os.getloadavg()],
            "python": platform.python_version(), "neo4j_server": server,
            "neo4j_driver": neo4j.__version__, "platform": platform.platform()}


def run_worker(module: str, args: list[str], timeout: float = 3600) -> dict[str, Any]:
    """Run `python -m module args` and return the JSON object it prints last."""
    done = subprocess.run([sys.executable, "-m", module, *args], capture_output=True,
                          text=True, timeout=timeout, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"{module} {' '.join(args)} failed ({done.returncode}):\n"
                           f"{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def emit(result: dict[str, Any]) -> None:
    """A worker's answer: one JSON line on stdout."""
    print(json.dumps(result, default=str), flush=True)
