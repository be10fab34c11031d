"""Markdown tables from `benchmarks/out/results.json`: one section per vault size plus a
scaling table, for RESULTS.md."""

from __future__ import annotations

from typing import Any

INGEST_ROWS = (("parse", "parse only (no database)"), ("full", "full ingest (empty db)"),
               ("reingest_0", "re-ingest, nothing changed"),
               ("reingest_1 page", "re-ingest, 1 page edited"),
               ("reingest_1%", "re-ingest, 1% edited"), ("reingest_10%", "re-ingest, 10% edited"),
               ("reingest_warm", "re-ingest, 1 page edited, warm process (median of 5 pages)"),
               ("reingest_warm_log", "re-ingest, 1 page edited and a log entry added at the "
                                     "top, warm process (median of 5)"),
               ("reingest_session", "re-ingest, 1 page edited, warm process keeping a session "
                                    "(the `ingest` mutation; median of 5)"),
               ("reingest_watch", "re-ingest in `vaultkg watch`, 1 page edited (median of 5)"),
               ("reingest_watch_log", "re-ingest in `vaultkg watch`, 1 page edited and logged "
                                      "(median of 5)"),
               ("naive", "naive baseline (1 statement/element)"))


def _fmt(value: Any, digits: int = 1) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _ingest_table(ingest: dict[str, Any]) -> list[str]:
    lines = ["| run | wall s | pages parsed | pages/s | elements created | elements/s | "
             "db write elements/s | client CPU s | Neo4j CPU s | elements/CPU s | "
             "peak RSS MiB | worker peak RSS MiB |", "|---|" + "---:|" * 11]
    for key, label in INGEST_ROWS:
        row = ingest.get(key)
        if not row:
            continue
        parsed = row.get("parsed", row.get("records", {}).get("pages"))
        pages_per_s = (parsed / row["elapsed_s"]) if parsed else None
        lines.append(
            f"| {label} | {_fmt(row['elapsed_s'], 2)} | {_fmt(parsed)} | {_fmt(pages_per_s)} | "
            f"{_fmt(row.get('elements'))} | {_fmt(row.get('elements_per_s'))} | "
            f"{_fmt(row.get('db_elements_per_s'))} | {_fmt(row.get('cpu_s'))} | "
            f"{_fmt(row.get('server_cpu_s'))} | {_fmt(row.get('elements_per_cpu_s'))} | "
            f"{_fmt(row['peak_rss_mb'])} | {_fmt(row.get('workers_peak_rss_mb'))} |")
    for key, label in INGEST_ROWS:
        row = ingest.get(key) or {}
        if row.get("save_to_graph_samples_s"):
            lines += ["", f"{label}: ingest s per edit {row['samples_s']}; from the save until "
                          f"the graph has it, s: {row['save_to_graph_samples_s']}."]
    ratio = ingest.get("naive_vs_full")
    if ratio:
        lines += ["", f"Batched vs naive, elements/s: end to end **{ratio['end_to_end']}x**, "
                      f"database write phase alone **{ratio['db_write']}x**; same graph "
                      f"(node and relationship counts equal): {ratio['same_graph']}."]
    return lines


def _phase_table(ingest: dict[str, Any]) -> list[str]:
    keys = [k for k, _ in INGEST_ROWS if k in ingest and ingest[k].get("phases_s")
            and k != "naive"]
    names: list[str] = []
    for k in keys:
        for name in ingest[k]["phases_s"]:
            if name not in names:
                names.append(name)
    lines = ["| phase (s) | " + " | ".join(keys) + " |",
             "|---|" + "---:|" * len(keys)]
    for name in names:
        lines.append(f"| {name} | " + " | ".join(
            _fmt(ingest[k]["phases_s"].get(name), 2) for k in keys) + " |")
    return lines


def _query_table(query: dict[str, Any]) -> list[str]:
    lines = ["| query | clients | HTTP p50 ms | p95 | p99 | req/s | driver p50 ms | p95 | p99 | "
             "req/s | HTTP/driver (p50) | errors HTTP/driver |", "|---|" + "---:|" * 11]
    for row in query.get("rows", []):
        if row.get("skipped"):
            lines.append(f"| {row['query']} | {row['clients']} | skipped: {row['skipped']} |"
                         + " |" * 9)
            continue
        http, drv = row.get("http") or {}, row.get("driver") or {}
        ratio = (http["p50_ms"] / drv["p50_ms"]) if http.get("p50_ms") and drv.get(
            "p50_ms") else None
        if row.get("interleaved"):
            ratio = row["interleaved"]["ratio"]
        lines.append(
            f"| {row['query']} | {row['clients']} | {_fmt(http.get('p50_ms'), 2)} | "
            f"{_fmt(http.get('p95_ms'), 2)} | {_fmt(http.get('p99_ms'), 2)} | "
            f"{_fmt(http.get('rps'))} | {_fmt(drv.get('p50_ms'), 2)} | "
            f"{_fmt(drv.get('p95_ms'), 2)} | {_fmt(drv.get('p99_ms'), 2)} | "
            f"{_fmt(drv.get('rps'))} | {_fmt(ratio, 2)} | "
            f"{_fmt(http.get('errors'))}/{_fmt(drv.get('errors'))} |")
    alternating = [row for row in query.get("rows", []) if row.get("interleaved")]
    if alternating:
        lines += ["", "HTTP/driver for one client is measured again in alternating batches "
                      "(HTTP, then the driver, on the same arguments; medians over all "
                      "batches): " + "; ".join(
                          f"{row['query']} {row['interleaved']['http_p50_ms']} / "
                          f"{row['interleaved']['driver_p50_ms']} ms" for row in alternating)
                  + "."]
    if query.get("note"):
        lines += ["", query["note"]]
    return lines


def _floor_ms(clients: int, cpu_ms: float | None, cores: int | None) -> float | None:
    """The mean latency no schedule beats: N closed-loop clients on C cores, each request
    costing `cpu_ms` of CPU in all, finish at most C / cpu_ms requests per ms (Little's law:
    mean = N / throughput). Below C clients the cores are not all taken and it says little."""
    if cpu_ms is None or not cores or clients < cores:
        return None
    return clients * cpu_ms / cores


def _mean_ms(stats: dict[str, Any], clients: int) -> float | None:
    """The mean latency of a run; for runs recorded before it was kept, what Little's law
    gives for closed-loop clients: clients / throughput."""
    if stats.get("mean_ms") is not None:
        return float(stats["mean_ms"])
    return clients * 1000 / stats["rps"] if stats.get("rps") else None


def _cpu_table(query: dict[str, Any], cores: int | None) -> list[str]:
    rows = [r for r in query.get("rows", []) if not r.get("skipped")
            and ((r.get("http") or {}).get("cpu_ms") or (r.get("driver") or {}).get("cpu_ms"))]
    if not rows:
        return []
    lines = [f"CPU per request, by process (ms; client = the load generator, on the same "
             f"{cores} cores). Floor: the mean latency that this much CPU allows at that "
             f"concurrency, clients x total / cores (shown from {cores} clients up); the "
             f"measured mean latency sits at or above it (p99 well above: a mean under 50 ms "
             f"is not a p99 under 50 ms).", "",
             "| query | clients | HTTP: API | Neo4j | client | total | floor ms | mean ms | "
             "driver: Neo4j | client | total | floor ms | mean ms |", "|---|" + "---:|" * 12]
    for row in rows:
        http, drv = row.get("http") or {}, row.get("driver") or {}
        h, d = http.get("cpu_ms") or {}, drv.get("cpu_ms") or {}
        n = row["clients"]
        lines.append(
            f"| {row['query']} | {n} | {_fmt(h.get('api'), 2)} | {_fmt(h.get('neo4j'), 2)} | "
            f"{_fmt(h.get('client'), 2)} | {_fmt(h.get('total'), 2)} | "
            f"{_fmt(_floor_ms(n, h.get('total'), cores), 1)} | {_fmt(_mean_ms(http, n), 2)} | "
            f"{_fmt(d.get('neo4j'), 2)} | {_fmt(d.get('client'), 2)} | "
            f"{_fmt(d.get('total'), 2)} | {_fmt(_floor_ms(n, d.get('total'), cores), 1)} | "
            f"{_fmt(_mean_ms(drv, n), 2)} |")
    return lines


def _ingest_floor(ingest: dict[str, Any], cores: int | None) -> list[str]:
    """The full ingest's CPU in all (the ingest process with its parse workers, and Neo4j)
    spread over every core: no schedule of that work finishes sooner."""
    full = ingest.get("full") or {}
    client, server = full.get("cpu_s"), full.get("server_cpu_s")
    if client is None or server is None or not cores:
        return []
    floor = (client + server) / cores
    return [f"CPU floor of the full ingest: ({_fmt(client)} client + {_fmt(server)} Neo4j) "
            f"CPU-s / {cores} cores = **{_fmt(floor)} s**; measured {_fmt(full['elapsed_s'])} s, "
            f"{_fmt(full['elapsed_s'] / floor, 2)}x the floor."]


def _scaling(data: dict[str, Any]) -> list[str]:
    lines = ["| pages | graph nodes | graph rels | full ingest s | pages/s | elements/s | "
             "parse-only s | peak RSS (full) MiB | re-ingest 1 page s | 1 page in watch s "
             "(save to graph s) |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for pages, entry in sorted(data.get("sizes", {}).items(), key=lambda kv: int(kv[0])):
        ingest = entry.get("ingest") or {}
        full, parse = ingest.get("full") or {}, ingest.get("parse") or {}
        one = ingest.get("reingest_1 page") or {}
        watch = ingest.get("reingest_watch") or {}
        lines.append(
            f"| {int(pages):,} | {_fmt(full.get('graph_nodes'))} | "
            f"{_fmt(full.get('graph_relationships'))} | {_fmt(full.get('elapsed_s'), 1)} | "
            f"{_fmt(full.get('pages_per_s'))} | {_fmt(full.get('elements_per_s'))} | "
            f"{_fmt(parse.get('elapsed_s'), 1)} | {_fmt(full.get('peak_rss_mb'))} | "
            f"{_fmt(one.get('elapsed_s'), 2)} | {_fmt(watch.get('elapsed_s'), 2)} "
            f"({_fmt(watch.get('save_to_graph_s'), 2)}) |")
    return lines


def render_markdown(data: dict[str, Any]) -> str:
    m = data.get("machine", {})
    out = ["# Benchmark results (generated)", "",
           f"Machine: {m.get('nproc')} cores ({m.get('cpu')}), {m.get('ram_gib')} GiB RAM, "
           f"Python {m.get('python')}, Neo4j {m.get('neo4j_server')}, driver "
           f"{m.get('neo4j_driver')}; load average at start {m.get('load_avg')}.", "",
           "## Scaling", "", *_scaling(data), ""]
    for pages, entry in sorted(data.get("sizes", {}).items(), key=lambda kv: int(kv[0])):
        out += [f"## {int(pages):,} pages", "",
                f"Load average before/after: {entry.get('load_before')} / "
                f"{entry.get('load_after')}.", ""]
        if entry.get("ingest"):
            floor = _ingest_floor(entry["ingest"], m.get("nproc"))
            out += ["### Ingest", "", *_ingest_table(entry["ingest"]), "",
                    *([*floor, ""] if floor else []),
                    "### Where the time goes (seconds, per run)", "",
                    *_phase_table(entry["ingest"]), ""]
        if entry.get("query"):
            workers = entry["query"].get("api_workers", 1)
            served = f" (API: {workers} server processes)" if workers != 1 else ""
            cpu = _cpu_table(entry["query"], m.get("nproc"))
            out += [f"### Queries{served}", "", *_query_table(entry["query"]), "",
                    *([*cpu, ""] if cpu else [])]
    return "\n".join(out) + "\n"
