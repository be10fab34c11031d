"""The offline import's benchmark table (`benchmarks/bulk_bench.py`)."""

from __future__ import annotations

from benchmarks.bulk_bench import render


def _run(elapsed: float) -> dict[str, object]:
    return {"elapsed_s": elapsed, "nodes": 1, "relationships": 2,
            "phases": {"parse_and_files": elapsed / 2, "admin_import": elapsed / 4}}


def test_the_table_lists_every_run_and_the_upper_median_phases() -> None:
    table = render({"sizes": {"100000": {"runs": {
        "ingest": [{"elapsed_s": 300.0}, {"elapsed_s": 360.0}],
        "offline_import": [_run(200.0), _run(240.0), _run(220.0)]}},
        "10000": {"runs": {"ingest": [{"elapsed_s": 50.0}],
                           "offline_import": [_run(60.0)]}}}})
    rows = table.strip().splitlines()
    assert rows[2] == "| 10,000 | 50.0 | 60.0 | parse_and_files 30.0, admin_import 15.0 |"
    assert rows[3] == ("| 100,000 | 300.0, 360.0 | 200.0, 240.0, 220.0 "
                       "| parse_and_files 110.0, admin_import 55.0 |")
