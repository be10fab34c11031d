"""Where Neo4j spends its CPU during a full ingest, by layer, from a Java Flight Recorder
recording of the local server.

    python -m benchmarks.neo4j_profile VAULT [--keep FILE.jfr]

The client's side of an ingest has phases and cProfile (`ingest_bench`); the server's side was
one number, its CPU seconds, and that number is what bounds a full ingest (RESULTS.md). This
splits it: building the transaction's commands, writing the records, updating the indexes,
the transaction log, locks, the query's index seeks and property writes, decoding Bolt
messages. It needs the JDK's `jcmd` and `jfr` and a server started by `scripts/neo4j-local.sh`
(its pid file). The database is WIPED, then the vault is ingested once while recording."""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from benchmarks import common

RECORDING = "vaultkg-bench"
STACK_DEPTH = 512

# A sample belongs to the layer of the first marker met walking its stack from the innermost
# frame out, so a lock taken inside an index seek counts as a lock and a B-tree read counts as
# the seek or the index update that called it. Markers are substrings of `class.method`.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("full-text index (Lucene)", ("org/apache/lucene/",)),
    ("locks", ("org/neo4j/kernel/impl/locking/", "org/neo4j/lock/")),
    ("bolt: decoding parameters", ("org/neo4j/packstream/",)),
    ("commit: transaction log", ("TransactionLogWriter.", "LogEntryWriter.",
                                 "TransactionAppender", "PhysicalFlushableChannel.")),
    ("commit: index updates", ("IndexingService.", "IndexUpdatesWorkSync",
                               "OnlineIndexUpdates.", "applyPendingIndexUpdates")),
    ("commit: writing records", ("RecordStorageEngine.apply", "NeoStoreTransactionApplier.",
                                 "TransactionApplierFacade.", "CommonAbstractStore.")),
    ("commit: building commands", ("extractCommands", "createCommands",
                                   "TransactionRecordState.", "TxState.accept")),
    ("query: index seeks", ("IndexSeek", "indexSeek", "UniqueIndexSeek")),
    ("query: creating and setting properties", ("setProperties", "SetPropertyFromMap",
                                                "SetProperty", "Operations.relationshipCreate",
                                                "Operations.nodeCreate", "Operations.nodeAddLabel",
                                                "Operations.relationshipDelete",
                                                "Operations.nodeDelete")),
    ("query: rest of execution", ("org/neo4j/cypher/",)),
    ("bolt: rest", ("org/neo4j/bolt/", "io/netty/")),
)
BACKGROUND_THREADS: tuple[tuple[str, str], ...] = (
    ("Lucene Merge", "full-text index merges (background)"),
    ("StorageMaintenance", "store maintenance (background)"),
    ("CheckPoint", "checkpoints (background)"),
)
OTHER = "other"


def frame_name(frame: Mapping[str, Any]) -> str:
    method = frame["method"]
    return f"{method['type']['name']}.{method['name']}"


def layer_of(frames: Iterable[str], thread: str = "") -> str:
    """The layer of one sample: its stack's frames, innermost first."""
    for marker, layer in BACKGROUND_THREADS:
        if marker in thread:
            return layer
    for name in frames:
        for layer, markers in LAYERS:
            if any(m in name for m in markers):
                return layer
    return OTHER


def split(events: Iterable[Mapping[str, Any]]) -> Counter[str]:
    """Samples per layer, from `jfr print --json` execution samples."""
    counts: Counter[str] = Counter()
    for event in events:
        values = event["values"]
        stack = values.get("stackTrace")
        if not stack:
            continue
        thread = (values.get("sampledThread") or {}).get("javaName") or ""
        counts[layer_of((frame_name(f) for f in stack["frames"]), thread)] += 1
    return counts


def shares(counts: Counter[str], cpu_s: float | None) -> list[dict[str, Any]]:
    """Each layer's share of the samples, and of the server's CPU seconds when known."""
    total = sum(counts.values())
    rows = []
    for layer, n in counts.most_common():
        share = n / total if total else 0.0
        rows.append({"layer": layer, "samples": n, "share": round(share, 4),
                     "cpu_s": round(share * cpu_s, 1) if cpu_s is not None else None})
    return rows


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: it comes with a JDK (e.g. openjdk-17-jdk-headless)")
    return found


def _call(args: list[str]) -> str:
    """Run a JDK tool; its failure as one line (e.g. a JVM of another user cannot be attached)."""
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        said = [line.strip() for line in (done.stderr + done.stdout).splitlines()
                if line.strip() and not line.startswith(("\tat ", " ")) and
                not line.rstrip().endswith(":")]
        raise SystemExit(f"{Path(args[0]).name} {' '.join(args[1:3])} failed: "
                         f"{said[0] if said else f'exit code {done.returncode}'}")
    return done.stdout


@contextlib.contextmanager
def recording(pid: int, path: Path) -> Iterator[None]:
    """A JFR recording of the JVM `pid` into `path` while the block runs (default settings:
    Java code sampled every ~20 ms, a few percent of overhead)."""
    jcmd = _tool("jcmd")
    _call([jcmd, str(pid), "JFR.start", f"name={RECORDING}", "settings=default",
           f"filename={path}"])
    try:
        yield
    finally:
        _call([jcmd, str(pid), "JFR.stop", f"name={RECORDING}"])


def samples(path: Path) -> list[dict[str, Any]]:
    """The recording's execution samples, as `jfr print --json` gives them."""
    out = _call([_tool("jfr"), "print", "--json", "--stack-depth", str(STACK_DEPTH),
                 "--events", "jdk.ExecutionSample", str(path)])
    events: list[dict[str, Any]] = json.loads(out)["recording"]["events"]
    return events


def profile_ingest(vault: Path, keep: Path | None = None) -> dict[str, Any]:
    """Wipe, then ingest `vault` in a fresh process while the local server records."""
    from benchmarks.ingest_bench import run_mode

    pid = common.server_pid()
    if pid is None:
        raise SystemExit("no local Neo4j server found (scripts/neo4j-local.sh start): "
                         "the recording needs its process")
    drv = common.driver()
    try:
        common.wipe(drv, common.settings().neo4j_database)
    finally:
        drv.close()
    with tempfile.TemporaryDirectory() as tmp:
        path = keep or Path(tmp) / "ingest.jfr"
        with recording(pid, path):
            result = run_mode("ingest", vault)
        counts = split(samples(path))
    return {"vault": str(vault), "elapsed_s": result.get("elapsed_s"),
            "server_cpu_s": result.get("server_cpu_s"), "samples": sum(counts.values()),
            "layers": shares(counts, result.get("server_cpu_s"))}


def render(report: Mapping[str, Any]) -> str:
    lines = [f"full ingest of {report['vault']}: {report['elapsed_s']:.1f} s, "
             f"Neo4j CPU {report['server_cpu_s']} s (with the recording's own cost), "
             f"{report['samples']} samples",
             "", "| layer | share | CPU s |", "|---|---:|---:|"]
    for row in report["layers"]:
        lines.append(f"| {row['layer']} | {row['share'] * 100:.1f}% | {row['cpu_s']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--keep", type=Path, default=None, help="keep the recording here")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = profile_ingest(args.vault, args.keep)
    print(json.dumps(report, indent=2) if args.json else render(report))


if __name__ == "__main__":
    main()
