"""`make bench`: generate the vaults, run the ingest and query benchmarks, write the results.

    python -m benchmarks.run [--sizes 1k,10k] [--quick] [--skip-ingest] [--skip-query]
        [--no-reingest] [--naive-size 1k] [--profile]

Results go to `benchmarks/out/results.json` (merged per size across runs) and
`benchmarks/out/results.md` (tables to copy into RESULTS.md). Neo4j comes from the usual
settings (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE); the database is WIPED."""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

from benchmarks import common
from benchmarks.generate import DEFAULT_SEED, SIZES, ensure_vault
from benchmarks.report import render_markdown

RESULTS = common.OUT_DIR / "results.json"


def _load() -> dict[str, Any]:
    if RESULTS.exists():
        data: dict[str, Any] = json.loads(RESULTS.read_text())
        return data
    return {"sizes": {}}


def _save(data: dict[str, Any]) -> None:
    common.OUT_DIR.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(data, indent=2, default=str) + "\n")
    (common.OUT_DIR / "results.md").write_text(render_markdown(data))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="vaultkg benchmarks")
    parser.add_argument("--sizes", default="1k,10k", help="comma list of 1k,10k,100k or numbers")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--quick", action="store_true",
                        help="1k only, fewer query requests: a smoke run")
    parser.add_argument("--naive-size", default="1k",
                        help="the size on which the naive baseline also runs ('' for none)")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-query", action="store_true")
    parser.add_argument("--max-page-mib", type=int, default=None,
                        help="raise the loader's per-page size limit (8 MiB) for the ingest "
                             "workers: a 100k vault's log.md is about 19 MiB")
    parser.add_argument("--no-reingest", action="store_true",
                        help="parse and full ingest only (for the largest vaults)")
    parser.add_argument("--api-workers", type=int, default=1,
                        help="server processes of the API under test (`vaultkg serve --workers`)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the parse and full ingest (benchmarks/out/*.prof)")
    args = parser.parse_args(argv)
    if args.max_page_mib:
        from benchmarks.ingest_bench import MAX_PAGE_ENV

        os.environ[MAX_PAGE_ENV] = str(args.max_page_mib)
    sizes = ["1k"] if args.quick else [s.strip() for s in args.sizes.split(",") if s.strip()]
    data = _load()
    drv = common.driver()
    try:
        data["machine"] = common.machine(drv, common.settings().neo4j_database)
    finally:
        drv.close()
    data["seed"] = args.seed
    for size in sizes:
        pages = SIZES.get(size) or int(size)
        started = time.perf_counter()
        vault = ensure_vault(pages, args.seed)
        entry: dict[str, Any] = data["sizes"].setdefault(str(pages), {})
        entry["generate_s"] = round(time.perf_counter() - started, 2)
        entry["load_before"] = [round(x, 2) for x in os.getloadavg()]
        if not args.skip_ingest:
            from benchmarks.ingest_bench import bench_ingest

            # Merged: rows this run does not measure (`--no-reingest`) keep their last values.
            entry["ingest"] = {**entry.get("ingest", {}), **bench_ingest(
                vault, pages, args.seed, naive=size == args.naive_size,
                profile_dir=common.OUT_DIR if args.profile else None,
                reingest=not args.no_reingest)}
            _save(data)
        if not args.skip_query:
            from benchmarks.query_bench import bench_queries

            entry["query"] = bench_queries(vault, quick=args.quick,
                                           api_workers=args.api_workers)
            _save(data)
        entry["load_after"] = [round(x, 2) for x in os.getloadavg()]
        _save(data)
    print(f"results: {RESULTS} and {common.OUT_DIR / 'results.md'}")


if __name__ == "__main__":
    main()
