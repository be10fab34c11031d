"""Ingest benchmark: full ingest, re-ingest after editing 1 page / 1% / 10% of pages, parsing
alone, and the naive one-statement-per-element baseline. Each measurement runs in its own
subprocess (`python -m benchmarks.ingest_bench MODE VAULT`) so its peak RSS is its own.

Where the time goes is measured by wrapping the real functions `graph.ingest.ingest` calls
(schema, previous hashes, load, write and the writer's steps, and inside the load: header pass,
mention index, log, mentions and numbers) with timers: the run is the production code path."""

from __future__ import annotations

import argparse
import cProfile
import functools
import os
import pstats
import queue
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

from benchmarks import common
from benchmarks.generate import chosen_pages, edit_pages, log_edit, restore
from loaders.gc_pause import keep_long_lived

WARM_SEED, WARMUP_TAG, WARM_TAG = 0, "warm-up", "warm"
# A warm re-ingest's cost depends on the page (an edit about a popular concept re-derives its
# conflicts): several pages are edited one after another, and the median is reported.
WARM_EDITS = 5
# How long the watch benchmark waits for the first ingest or a batch (a 100k vault's first
# ingest takes minutes when the graph is behind).
WATCH_WAIT_S = 1800.0


def warm_tags() -> list[str]:
    return [WARM_TAG] + [f"{WARM_TAG}-{i}" for i in range(1, WARM_EDITS)]
MAX_PAGE_ENV = "VAULTKG_BENCH_MAX_PAGE_MIB"
WRITE_LABEL = "write (db, with parse waits)"
WAIT_LABEL = "parse (writer waited)"
WRITER_STEPS = ("remove_facts", "_pages", "_links", "_relations", "_log", "_claims",
                "_derive_detected", "_derive_all", "_existing")
PARSE_STEPS = (("loaders.scan", "read_file", "header pass"),
               ("loaders.vault", "MentionFinder", "mention index"),
               ("loaders.vault", "parse_log", "log"),
               ("loaders.page_parser", "mentions_and_numbers", "mentions+numbers"),
               ("loaders.page_parser", "read_body", "links"),
               ("loaders.page_parser", "body_lineage", "lineage"))


def _timed(store: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            store[name] += time.perf_counter() - started
    return wrapper


def _timed_iter(store: dict[str, float], name: str,
                fn: Callable[..., Generator[Any, None, None]]
                ) -> Callable[..., Generator[Any, None, None]]:
    """`_timed` for a generator: the time spent in each `next`, not in creating it."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Generator[Any, None, None]:
        items = fn(*args, **kwargs)
        while True:
            started = time.perf_counter()
            try:
                item = next(items)
            except StopIteration:
                return
            finally:
                store[name] += time.perf_counter() - started
            yield item
    return wrapper


def _instrument(store: dict[str, float], writer: bool) -> None:
    """Wrap the functions whose time we report (module attributes, looked up at call time)."""
    import importlib

    for module_name, attr, label in PARSE_STEPS:
        module = importlib.import_module(module_name)
        setattr(module, attr, _timed(store, label, getattr(module, attr)))
    if not writer:
        return
    import graph.ingest as gi
    import loaders.vault as lv
    from graph.writer import GraphWriter

    for attr, label in (("ensure_schema", "schema"), ("stream_vault", "plan (headers, log)")):
        setattr(gi, attr, _timed(store, label, getattr(gi, attr)))
    # Pages are parsed while the writer writes (streamed): what shows is the writer's wait.
    lv._parsed_chunks = _timed_iter(store, WAIT_LABEL, lv._parsed_chunks)
    for name in ("write", "previous_pages", *WRITER_STEPS):
        label = {"write": WRITE_LABEL, "previous_pages": "previous hashes"}.get(
            name, "write:" + name.lstrip("_"))
        setattr(GraphWriter, name, _timed(store, label, getattr(GraphWriter, name)))
    from graph.log_update import LogUpdate

    LogUpdate.apply = _timed(store, "write:log moves", LogUpdate.apply)  # type: ignore[method-assign]


def _parse(vault: Path, store: dict[str, float]) -> dict[str, Any]:
    from loaders.vault import load_vault

    started = time.perf_counter()
    snapshot = load_vault(vault)
    elapsed = time.perf_counter() - started
    counts: dict[str, int] = defaultdict(int)
    for f in snapshot.facts:
        counts["pages"] += 1
        for name in ("links", "authorships", "relations", "lineage", "claims",
                     "contradictions", "mentions", "log_entries"):
            counts[name] += len(getattr(f, name))
    return {"elapsed_s": elapsed, "records": dict(counts), "pages": counts["pages"]}


def _edit(vault: Path, tag: str, logged: bool) -> dict[Path, bytes]:
    """One warm edit: a page, and with `logged` its entry at the top of the log."""
    return log_edit(vault, WARM_SEED, tag) if logged else edit_pages(vault, 1, WARM_SEED, tag)


def _outcome(elapsed: float, report: Any) -> dict[str, Any]:
    """A timed ingest's result row, from its `IngestReport`."""
    return {"elapsed_s": elapsed, "report": report.model_dump(mode="json"),
            "pages": report.pages, "parsed": report.parsed,
            "elements": report.nodes_created + report.relationships_created,
            "graph_nodes": report.nodes, "graph_relationships": report.relationships}


def _ingest(vault: Path, store: dict[str, float], warm: bool = False,
            logged: bool = False, session: bool = False) -> dict[str, Any]:
    """One ingest; with `warm`, first an untimed one in this same process after editing another
    page (imports loaded, tokenizers built, driver connected, as in a long-lived server or
    `vaultkg watch`), then `WARM_EDITS` pages edited one at a time, each ingest timed: the
    median run is reported, with every time in `samples_s`. With `logged`, each edit also
    adds its entry to the top of the log (`log_edit`); with `session`, the ingests share an
    `IngestSession` and are not told what changed, as the `ingest` mutation without
    `changed`."""
    from graph.ingest import IngestSession, ingest

    s = common.settings()
    drv = common.driver(s)
    runs: list[tuple[float, dict[str, float], Any]] = []
    kept = IngestSession() if session else None
    try:
        if warm:
            _edit(vault, WARMUP_TAG, logged)
            ingest(drv, s.neo4j_database, vault, session=kept)
            keep_long_lived()
        for tag in warm_tags() if warm else [None]:
            if tag is not None:
                _edit(vault, tag, logged)
            store.clear()
            started = time.perf_counter()
            report = ingest(drv, s.neo4j_database, vault, session=kept)
            runs.append((time.perf_counter() - started, dict(store), report))
            if warm:
                keep_long_lived()  # as `vaultkg watch` does after each ingest
    finally:
        drv.close()
    elapsed, phases, report = sorted(runs, key=lambda run: run[0])[len(runs) // 2]
    store.clear()
    store.update(phases)
    out = _outcome(elapsed, report)
    if warm:
        out["samples_s"] = [round(run[0], 3) for run in runs]
    return out


def _watch(vault: Path, store: dict[str, float], logged: bool = False) -> dict[str, Any]:
    """`vaultkg watch` itself (`watch_vault`, its real file watcher and ingest session): after
    its first ingest and one untimed edit, `WARM_EDITS` pages edited one at a time (with
    `logged`, each also logged at the top of the log). Reported: the median batch's ingest
    time as the watch measures it, and the time from the save until the graph has it (which
    adds the watcher's wait for saves to settle, `DEFAULT_QUIET_MS`)."""
    from api.watch import WatchBatch, watch_vault
    from loaders.files import vault_root

    s = common.settings()
    drv = common.driver(s)
    batches: queue.Queue[WatchBatch] = queue.Queue()
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=watch_vault, daemon=True, kwargs={
        "driver": drv, "database": s.neo4j_database, "vault": vault, "on_batch": batches.put,
        "on_ready": lambda report: ready.set(), "stop": stop})
    root = vault_root(vault)
    runs: list[tuple[float, float, dict[str, float], Any]] = []
    thread.start()
    try:
        if not ready.wait(WATCH_WAIT_S):
            raise RuntimeError("the watch's first ingest did not finish")
        for tag in (WARMUP_TAG, *warm_tags()):
            store.clear()
            edited = _edit(vault, tag, logged)
            saved = time.perf_counter()  # the last write of the edit has returned
            waiting = {path.resolve().relative_to(root).as_posix() for path in edited}
            seen: list[Any] = []
            while waiting:  # saves may settle in more than one batch
                batch = batches.get(timeout=WATCH_WAIT_S)
                seen.append(batch.report)
                waiting -= {c.path for c in batch.changes}
            if tag != WARMUP_TAG:
                runs.append((sum(r.elapsed_s for r in seen), time.perf_counter() - saved,
                             dict(store), seen[-1]))
    finally:
        stop.set()
        thread.join(timeout=60)
        drv.close()
    elapsed, latency, phases, report = sorted(runs, key=lambda run: run[0])[len(runs) // 2]
    store.clear()
    store.update(phases)
    return {**_outcome(elapsed, report), "save_to_graph_s": round(latency, 3),
            "samples_s": [round(run[0], 3) for run in runs],
            "save_to_graph_samples_s": [round(run[1], 3) for run in runs]}


def _naive(vault: Path, store: dict[str, float]) -> dict[str, Any]:
    from benchmarks.naive import naive_write
    from graph.schema import ensure_schema
    from loaders.vault import load_vault

    s = common.settings()
    drv = common.driver(s)
    try:
        started = time.perf_counter()
        snapshot = load_vault(vault)
        parse_s = time.perf_counter() - started
        ensure_schema(drv, s.neo4j_database)
        stats, write_s = naive_write(drv, s.neo4j_database, snapshot)
        elapsed = time.perf_counter() - started
        records, _, _ = drv.execute_query(
            "MATCH (n) RETURN count(n) AS n", database_=s.neo4j_database)
        rels, _, _ = drv.execute_query(
            "MATCH ()-[r]->() RETURN count(r) AS n", database_=s.neo4j_database)
    finally:
        drv.close()
    store["load (parse)"] = parse_s
    store["write (db)"] = write_s
    return {"elapsed_s": elapsed, "write_s": write_s, "pages": len(snapshot.facts),
            "elements": stats.elements, "statements": stats.statements,
            "graph_nodes": records[0]["n"], "graph_relationships": rels[0]["n"]}


def worker(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("parse", "ingest", "ingest-warm", "ingest-warm-log",
                                         "ingest-session", "watch", "watch-log", "naive"))
    parser.add_argument("vault", type=Path)
    parser.add_argument("--profile", type=Path, default=None,
                        help="write a cProfile dump here and print the top functions")
    args = parser.parse_args(argv)
    limit = os.environ.get(MAX_PAGE_ENV)
    if limit:  # lets a 100k vault's log (about 19 MiB) load; see RESULTS.md
        import loaders.files

        loaders.files.MAX_PAGE_BYTES = int(limit) * 1024 * 1024
    store: dict[str, float] = defaultdict(float)
    _instrument(store, writer=args.mode.startswith(("ingest", "watch")))
    profiler = cProfile.Profile() if args.profile else None
    if profiler:
        profiler.enable()
    if args.mode == "parse":
        result = _parse(args.vault, store)
    elif args.mode.startswith("ingest"):
        result = _ingest(args.vault, store,
                         warm=args.mode.startswith(("ingest-warm", "ingest-session")),
                         logged=args.mode == "ingest-warm-log",
                         session=args.mode == "ingest-session")
    elif args.mode.startswith("watch"):
        result = _watch(args.vault, store, logged=args.mode == "watch-log")
    else:
        result = _naive(args.vault, store)
    if profiler:
        profiler.disable()
        profiler.dump_stats(str(args.profile))
        with args.profile.with_suffix(".txt").open("w") as out:
            pstats.Stats(str(args.profile), stream=out).sort_stats("cumulative").print_stats(40)
    result["phases_s"] = {k: round(v, 3) for k, v in store.items()}
    result["peak_rss_mb"] = common.peak_rss_mb()
    result["workers_peak_rss_mb"] = common.workers_peak_rss_mb()
    result["cpu_s"] = common.cpu_s()
    common.emit(result)


# -- orchestration (runs in the parent process) -----------------------------------------------


def run_mode(mode: str, vault: Path, profile: Path | None = None) -> dict[str, Any]:
    """One measurement (`worker`'s `mode`) in a fresh process, with the local server's CPU
    seconds over it when the server is ours to see."""
    args = [mode, str(vault)] + (["--profile", str(profile)] if profile else [])
    before = common.server_cpu_s()
    result = common.run_worker("benchmarks.ingest_bench", args)
    after = common.server_cpu_s()
    result["server_cpu_s"] = round(after - before, 3) if before is not None and \
        after is not None else None
    result["load_avg"] = [round(x, 2) for x in os.getloadavg()]
    return result


def _rates(result: dict[str, Any], pages: int | None = None) -> dict[str, Any]:
    elapsed = max(result["elapsed_s"], 1e-9)
    pages = result.get("pages") if pages is None else pages
    out = {"elapsed_s": round(elapsed, 3), "peak_rss_mb": result["peak_rss_mb"],
           "workers_peak_rss_mb": result.get("workers_peak_rss_mb"),
           "phases_s": result.get("phases_s", {}), "cpu_s": result.get("cpu_s"),
           "server_cpu_s": result.get("server_cpu_s"), "load_avg": result.get("load_avg")}
    cpu = (result.get("cpu_s") or 0) + (result.get("server_cpu_s") or 0)
    if cpu and "elements" in result:
        out["elements_per_cpu_s"] = round(result["elements"] / cpu, 1)
    if pages:
        out["pages_per_s"] = round(pages / elapsed, 1)
    if "elements" in result:
        out["elements"] = result["elements"]
        out["elements_per_s"] = round(result["elements"] / elapsed, 1)
        phases = result.get("phases_s", {})
        write_s = result.get("write_s") or (
            phases.get(WRITE_LABEL, 0.0) - phases.get(WAIT_LABEL, 0.0))
        if write_s:
            out["db_elements_per_s"] = round(result["elements"] / write_s, 1)
    for key in ("parsed", "graph_nodes", "graph_relationships", "statements", "records",
                "samples_s", "save_to_graph_s", "save_to_graph_samples_s"):
        if key in result:
            out[key] = result[key]
    return out


def bench_ingest(vault: Path, pages: int, seed: int, *, naive: bool, profile_dir: Path | None,
                 reingest: bool = True, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Every ingest measurement for one vault (without `reingest`: parse and full ingest
    only); the database is wiped first."""
    s = common.settings()
    drv = common.driver(s)
    try:
        common.wipe(drv, s.neo4j_database)
    finally:
        drv.close()
    results: dict[str, Any] = {"pages": pages}
    log(f"[{pages}] parse only")
    results["parse"] = _rates(run_mode("parse", vault))
    log(f"[{pages}] full ingest")
    results["full"] = _rates(run_mode("ingest", vault))
    if not reingest:
        return results
    log(f"[{pages}] re-ingest, nothing changed")
    results["reingest_0"] = _rates(run_mode("ingest", vault))
    originals: dict[Path, bytes] = {}
    try:
        for label, count in (("1 page", 1), ("1%", max(1, pages // 100)),
                             ("10%", max(1, pages // 10))):
            changed = edit_pages(vault, count, seed, label)
            for path, data in changed.items():
                originals.setdefault(path, data)
            log(f"[{pages}] re-ingest after editing {label} ({count} pages)")
            results[f"reingest_{label}"] = _rates(run_mode("ingest", vault))
        log(f"[{pages}] re-ingest after editing 1 page, warm process")
        for tag in (WARMUP_TAG, *warm_tags()):
            for path in chosen_pages(vault, 1, WARM_SEED, tag):
                originals.setdefault(path, path.read_bytes())
        results["reingest_warm"] = _rates(run_mode("ingest-warm", vault))
        log(f"[{pages}] re-ingest after editing 1 page and logging it, warm process")
        originals.setdefault(vault / "wiki" / "log.md", (vault / "wiki" / "log.md").read_bytes())
        results["reingest_warm_log"] = _rates(run_mode("ingest-warm-log", vault))
        log(f"[{pages}] re-ingest after editing 1 page, warm process with a session")
        results["reingest_session"] = _rates(run_mode("ingest-session", vault))
        log(f"[{pages}] re-ingest after editing 1 page, in `vaultkg watch`")
        results["reingest_watch"] = _rates(run_mode("watch", vault))
        log(f"[{pages}] re-ingest after editing 1 page and logging it, in `vaultkg watch`")
        results["reingest_watch_log"] = _rates(run_mode("watch-log", vault))
    finally:
        restore(originals)
    if profile_dir is not None:
        log(f"[{pages}] parse only, profiled (not in the tables)")
        run_mode("parse", vault, _profile(profile_dir, pages, "parse"))
    if not naive:
        run_mode("ingest", vault)  # the graph matches the restored vault again
    else:
        drv = common.driver(s)
        try:
            common.wipe(drv, s.neo4j_database)
        finally:
            drv.close()
        log(f"[{pages}] naive baseline (one statement per element)")
        results["naive"] = _rates(run_mode("naive", vault))
        results["naive_vs_full"] = {
            "end_to_end": round(results["full"]["elements_per_s"]
                                / results["naive"]["elements_per_s"], 2),
            "db_write": round(results["full"]["db_elements_per_s"]
                              / results["naive"]["db_elements_per_s"], 2),
            "same_graph": (results["naive"]["graph_nodes"], results["naive"]
                           ["graph_relationships"]) == (results["full"]["graph_nodes"],
                                                        results["full"]["graph_relationships"]),
        }
        # Leave the database holding the batched ingest, for the query benchmark.
        drv = common.driver(s)
        try:
            common.wipe(drv, s.neo4j_database)
        finally:
            drv.close()
        run_mode("ingest", vault)
    return results


def _profile(profile_dir: Path | None, pages: int, name: str) -> Path | None:
    if profile_dir is None:
        return None
    profile_dir.mkdir(parents=True, exist_ok=True)
    return profile_dir / f"{name}-{pages}.prof"


if __name__ == "__main__":
    worker()
