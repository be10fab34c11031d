"""The offline import (`vaultkg neo4j import`): its CSV says exactly what the writer's
statements store, and the graph it builds is the one an ingest builds.

The integration tests run their own local server (a home beside the project's, sharing its
jars), since the import stops and starts it."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from graph import local_server
from graph import writes as w
from graph.bulk_csv import (
    ARRAY_DELIMITER,
    CLAIM,
    DANGLING,
    EMPTY_LIST,
    LEAD,
    ONE_EMPTY_STRING,
    PAGE,
    QUOTE,
    SENTINELS,
    CsvFiles,
    ImportFiles,
    csv_reader,
    csv_writer,
)
from graph.bulk_import import _multiline_options, bulk_import
from graph.bulk_index import BulkIndex, page_rows
from graph.bulk_writer import BulkWriter, PageSink
from graph.connection import create_driver
from graph.errors import GraphError, LocalServerError
from graph.ingest import ingest
from graph.settings import Settings
from graph.wipe import wipe
from loaders.errors import VaultError
from tests.db import free_port
from tests.graph_dump import diff, dump
from tests.vaults import DEMO, ENGLISH_LAB, ROOT, SHARED_EXAMPLE

# -- the CSV ------------------------------------------------------------------------------------


def _read(path: Path) -> tuple[list[str], list[list[str]]]:
    """A file's header and rows, without the ignored lead column (checked: a 0 in each row)."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv_reader(f))
    assert rows[0][0] == LEAD and all(row[0] == "0" for row in rows[1:])
    return rows[0][1:], [row[1:] for row in rows[1:]]


def _decode(kind: str, text: str) -> Any:
    """A cell as neo4j-admin reads it (for the types the tables write)."""
    if kind.endswith("[]"):
        return [_decode(kind[:-2], part) for part in text.split(ARRAY_DELIMITER)]
    decoders: dict[str, Any] = {"string": str, "long": int, "double": float,
                                "boolean": lambda t: t == "true", "date": date.fromisoformat}
    return decoders[kind](text)


class _Tables:
    """A worker's sink and the index it reports to, in one process."""

    def __init__(self, folder: Path, workers: int = 1) -> None:
        self.folder = folder
        self.index = BulkIndex()
        self.files = [CsvFiles(folder, f"w{i}") for i in range(workers)]
        self.sinks = [PageSink(f, self.index) for f in self.files]
        self.sink = self.sinks[0]

    def report(self, worker: int = 0) -> None:
        """What the worker wrote since its last report, taken by the index (a page done)."""
        events, relationships = self.sinks[worker].take()
        files = self.files[worker]
        files.flush()
        self.index.take(page_rows(files, events, relationships, None))

    def close(self) -> ImportFiles:
        for i, files in enumerate(self.files):
            self.report(i)
            files.close()
        return self.index.close(CsvFiles(self.folder, "own"))


def _nodes(tables: _Tables) -> dict[str, tuple[str, dict[str, Any]]]:
    """Every node row of the import, by id: (labels, properties as the import stores them)."""
    return _read_back(tables.close())


def _gather(labels: str, path: Path, out: dict[str, tuple[str, dict[str, Any]]]) -> None:
    """One file's node rows into `out`."""
    header, rows = _read(path)
    for row in rows:
        props: dict[str, Any] = {}
        for column, cell in zip(header, row, strict=True):
            name, kind = column.split(":", 1)
            props[name] = cell if kind.startswith("ID(") else _decode(kind, cell)
        ident = row[0]
        assert ident not in out, f"{ident} twice"
        out[ident] = (labels, props)


TRICKY: dict[str, Any] = {
    "key": "p1", "empty": "", "quotes": 'say "hi", then ""', "lines": "a\nb\r\nc\n",
    "comma": "a,b", "japanese": "系譜 → 比較", "spaces": "  padded  ", "year": 2024,
    "negative": -7, "big": 2 ** 62, "ratio": 0.1, "tiny": 5e-324, "huge": 1.5e300,
    "yes": True, "no": False, "day": date(2026, 12, 7), "tags": ["a;b", "", "c d"],
    "numbers": [1, 2, 3], "floats": [0.5, 2.0],
}


# Values the tool's parallel reader would take for a cell's end (see `graph.bulk_csv`).
MISLEADING: dict[str, Any] = {**TRICKY, "path": "C:\\vault\\", "separator": f"a{QUOTE}b"}


def test_values_come_back_as_written(tmp_path: Path) -> None:
    tables = _Tables(tmp_path)
    tables.sink.node(PAGE, ("Page", "Paper"), "p1", TRICKY)
    labels, props = _nodes(tables)["p1"]
    assert labels == "Page:Paper"
    assert props == TRICKY
    assert all(type(props[k]) is type(v) for k, v in TRICKY.items())


def test_every_row_fills_every_column(tmp_path: Path) -> None:
    """An empty field would be no property: rows of different properties go to different
    files, and an empty string is quoted."""
    tables = _Tables(tmp_path)
    tables.sink.node(PAGE, ("Page",), "a", {"key": "a", "title": "", "year": 1})
    tables.sink.node(PAGE, ("Page",), "b", {"key": "b", "title": "t", "year": None})
    tables.sink.node(PAGE, ("Page",), "c", {"key": "c", "title": "t", "year": 2.5})
    files = tables.close()
    assert len(files.nodes) == 3
    for _, (path,) in files.nodes:
        header, rows = _read(path)
        assert all(len(r) == len(header) for r in rows)
    quoted = f"0,{QUOTE}a{QUOTE},{QUOTE}{QUOTE},"  # the lead unquoted, the empty title quoted
    assert quoted in (tmp_path / "node-w0-0000.csv").read_text(encoding="utf-8")


def _read_back(files: ImportFiles) -> dict[str, tuple[str, dict[str, Any]]]:
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for labels, paths in files.nodes:
        for path in paths:
            _gather(labels, path, out)
    return out


def test_files_with_line_breaks_are_read_in_parallel(tmp_path: Path) -> None:
    """Only the files holding a line break are named to the tool as multi-line, for its
    parallel reader; a value ending in a backslash elsewhere does not matter."""
    tables = _Tables(tmp_path, workers=2)
    tables.sink.node(PAGE, ("Page",), "a", {"key": "a", "body": "one\ntwo"})
    tables.report(0)
    tables.sinks[1].node(PAGE, ("Page",), "b", {"key": "b", "title": "one line\\"})
    files = tables.close()
    assert files.multiline == (tmp_path / "node-w0-0000.csv",)
    assert files.parallel
    assert _multiline_options(files) == [
        "--multiline-fields-format=v2", f"--multiline-fields={tmp_path / 'node-w0-0000.csv'}"]
    assert _read_back(files)["b"][1]["title"] == "one line\\"


@pytest.mark.parametrize("text", ["ends in a backslash\\", f"holds the quote {QUOTE} here"])
def test_a_value_that_would_mislead_the_parallel_reader_is_read_on_one_thread(
        tmp_path: Path, text: str) -> None:
    """In a file with line breaks, a value ending in a backslash or holding the quote
    character looks like a cell's end to the parallel reader: every file is read on one
    thread, and the value is written as it is."""
    tables = _Tables(tmp_path, workers=2)
    tables.sink.node(PAGE, ("Page",), "a", {"key": "a", "body": "one\ntwo"})
    tables.report(0)
    tables.sinks[1].node(PAGE, ("Page",), "b", {"key": "b", "body": text})
    tables.sinks[1].node(PAGE, ("Page",), "c", {"key": "c", "body": "\n"})
    files = tables.close()
    assert not files.parallel
    assert _multiline_options(files) == ["--multiline-fields=true"]
    assert _read_back(files)["b"][1]["body"] == text


def test_no_line_break_no_multiline_option(tmp_path: Path) -> None:
    tables = _Tables(tmp_path)
    tables.sink.node(PAGE, ("Page",), "a", {"key": "a", "title": "t\\"})
    files = tables.close()
    assert files.multiline == () and _multiline_options(files) == []


def test_nan_and_infinity_are_java_spellings(tmp_path: Path) -> None:
    tables = _Tables(tmp_path)
    tables.sink.node(PAGE, ("Page",), "x",
                     {"key": "x", "a": math.nan, "b": math.inf, "c": -math.inf})
    _, rows = _read(tables.close().nodes[0][1][0])
    assert rows == [["x", "NaN", "Infinity", "-Infinity"]]


def test_lists_csv_cannot_hold_are_sentinels(tmp_path: Path) -> None:
    """An empty list (and a list of one empty string) would be no property: the file holds a
    sentinel list, and the import says which columns to set right afterwards."""
    tables = _Tables(tmp_path)
    tables.sink.node(CLAIM, ("Claim",), "c1", {"id": "c1", "qualifiers": [], "pages": [""],
                                               "text": "t"})
    tables.sink.node(CLAIM, ("Claim",), "c2", {"id": "c2", "qualifiers": ["q"], "pages": []})
    nodes = _nodes(tables)
    assert nodes["c1"][1] == {"id": "c1", "text": "t", "qualifiers": [EMPTY_LIST],
                              "pages": [ONE_EMPTY_STRING]}
    assert nodes["c2"][1] == {"id": "c2", "qualifiers": ["q"], "pages": [EMPTY_LIST]}
    assert SENTINELS == {EMPTY_LIST: [], ONE_EMPTY_STRING: [""]}
    assert tables.index.close(CsvFiles(tmp_path, "again")).list_columns == (
        ("Claim", "pages"), ("Claim", "qualifiers"))


def test_a_node_merged_again_is_its_last_row(tmp_path: Path) -> None:
    tables = _Tables(tmp_path)
    tables.sink.merge(PAGE, "p")  # made first by key alone, as the writer does
    tables.sink.node(CLAIM, ("Claim",), "c", {"id": "c", "value": 1, "pages": ["x"]})
    tables.sink.node(CLAIM, ("Claim",), "d", {"id": "d", "value": 2})
    tables.sink.node(CLAIM, ("Claim",), "c", {"id": "c", "value": 3})
    tables.sink.merge(DANGLING, "gone")
    tables.sink.merge(DANGLING, "gone")
    nodes = _nodes(tables)
    assert nodes["c"] == ("Claim", {"id": "c", "value": 3})
    assert nodes["d"] == ("Claim", {"id": "d", "value": 2})
    assert nodes["p"] == ("Page", {"key": "p"})
    assert nodes["gone"] == ("Dangling", {"name": "gone"})


def test_merges_hold_across_workers(tmp_path: Path) -> None:
    """Two workers state one claim id and one dangling name: the claim is the later page's,
    its link to the page is made once, the name is one node."""
    tables = _Tables(tmp_path, workers=2)
    first, second = tables.sinks
    first.merge(PAGE, "p")
    tables.report(0)
    first.claim("c", {"id": "c", "value": 1}, [("STATED_IN", "p")])
    first.merge(DANGLING, "x")
    tables.report(0)
    second.claim("c", {"id": "c", "value": 2}, [("STATED_IN", "p"), ("CLAIM_ABOUT", "p")])
    second.merge(DANGLING, "x")
    tables.report(1)
    files = tables.close()
    counts: dict[str, int] = {}
    for rel_type, paths in files.relationships:
        for path in paths:
            counts[rel_type] = counts.get(rel_type, 0) + len(_read(path)[1])
    assert counts == {"CLAIM_ABOUT": 1, "STATED_IN": 1}
    assert files.relationship_count == 2
    # a file per worker, the files of one header one input
    assert [len(paths) for rel_type, paths in files.relationships
            if rel_type == "STATED_IN"] == [2]
    nodes: list[list[str]] = []
    for _, paths in files.nodes:
        for path in paths:
            nodes += _read(path)[1]
    assert sorted(nodes) == [["c", "2"], ["p"], ["x"]]
    assert files.node_count == 3


@pytest.mark.parametrize("props", [
    {"key": "k", "tags": ["a" + ARRAY_DELIMITER + "b"]},
    {"key": "k", "tags": ["a" + EMPTY_LIST]},
    {"key": "k", "n": 2 ** 63},
    {"key": "k", "mixed": ["a", 1]},
    {"key": "k", "bad name": 1},
    {"key": "other"},
])
def test_what_csv_cannot_say_is_refused(tmp_path: Path, props: dict[str, Any]) -> None:
    with pytest.raises(GraphError):
        _Tables(tmp_path).sink.node(PAGE, ("Page",), "k", props)


def test_the_writer_refuses_statements_it_has_no_csv_for(tmp_path: Path) -> None:
    writer = BulkWriter(_Tables(tmp_path).sink, batch_size=10)
    assert writer.read(w.EXISTING_PAGES, keys=["a"]) == []
    assert writer.read(w.PAGE_COUNT) == [{"n": 0}]
    with pytest.raises(GraphError, match="cannot write"):
        writer.run(w.DELETE_PAGES, keys=["a"])
    with pytest.raises(GraphError, match="cannot read"):
        writer.read(w.NUMERIC_CLAIMS)


def test_only_the_local_server_is_imported_into() -> None:
    """NEO4J_URI naming another server than the local one would check one database and
    replace the store of another."""
    settings = Settings().model_copy(update={
        "neo4j_uri": "bolt://db.example:7687", "neo4j_bolt_port": 7687})
    with pytest.raises(GraphError, match="not the local server"):
        bulk_import(settings, DEMO)
    elsewhere = settings.model_copy(update={"neo4j_uri": "bolt://127.0.0.1:7705"})
    with pytest.raises(GraphError, match="VAULTKG_NEO4J_BOLT_PORT"):
        bulk_import(elsewhere, DEMO)


def test_a_home_whose_path_holds_a_comma_is_refused_before_anything(tmp_path: Path) -> None:
    """neo4j-admin splits an input's file names at commas: refused before the server is
    started or anything is written."""
    home = tmp_path / "neo4j,home"
    settings = Settings().model_copy(update={
        "neo4j_home": home, "neo4j_uri": "bolt://127.0.0.1:7687", "neo4j_bolt_port": 7687})
    with pytest.raises(GraphError, match="comma"):
        bulk_import(settings, DEMO)
    assert not home.exists()


# -- the graph ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def own_server() -> Iterator[Settings]:
    """A local server of this module's own (its home beside the project's, sharing its jars),
    which the import may stop and start."""
    port = free_port(17788)
    settings = Settings().model_copy(update={
        "neo4j_home": ROOT / ".neo4j" / "home-bulk-test", "neo4j_bolt_port": port,
        "neo4j_uri": f"bolt://127.0.0.1:{port}"})
    local_server.start(settings)
    try:
        yield settings
    finally:
        local_server.stop(settings)


@pytest.mark.integration
@pytest.mark.parametrize(("vault", "workers"), [(DEMO, None), (SHARED_EXAMPLE, 2),
                                               (ENGLISH_LAB, 3)],
                         ids=["demo", "distributed-training-2-workers", "english-lab-3-workers"])
def test_the_import_builds_the_graph_an_ingest_builds(own_server: Settings, vault: Path,
                                                      workers: int | None) -> None:
    """In one process (a small vault), and with forked parse workers, each writing files of
    its own (a vault of 1,000 pages or more has them by default)."""
    with create_driver(own_server) as driver:
        wipe(driver, own_server.neo4j_database)
        online = ingest(driver, own_server.neo4j_database, vault)
        expected = dump(driver, own_server.neo4j_database)
    report = bulk_import(own_server, vault, replace=True, workers=workers)
    with create_driver(own_server) as driver:
        got = dump(driver, own_server.neo4j_database)
        assert diff(expected, got) == []
        assert (report.nodes, report.relationships, report.pages) == (
            online.nodes, online.relationships, online.pages)
        assert report.problems == online.problems
        assert report.parallel_reader  # the bodies' line breaks, read on every core
        # The pages carry their hashes: an ingest after the import has nothing to do.
        again = ingest(driver, own_server.neo4j_database, vault)
        assert not again.changed and again.parsed == 0


@pytest.mark.integration
def test_an_edit_after_the_import_is_an_ordinary_ingest(own_server: Settings,
                                                        tmp_path: Path) -> None:
    import shutil

    vault = tmp_path / "vault"
    shutil.copytree(DEMO, vault)
    bulk_import(own_server, vault, replace=True)
    page = next((vault / "wiki" / "concepts").glob("*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [[a page nobody wrote]].\n",
                    encoding="utf-8")
    with create_driver(own_server) as driver:
        report = ingest(driver, own_server.neo4j_database, vault)
        assert report.parsed >= 1 and report.changed
        after = dump(driver, own_server.neo4j_database)
        wipe(driver, own_server.neo4j_database)
        ingest(driver, own_server.neo4j_database, vault)
        assert diff(dump(driver, own_server.neo4j_database), after) == []


@pytest.mark.integration
def test_a_graph_with_pages_is_not_replaced_unasked(own_server: Settings) -> None:
    with create_driver(own_server) as driver:
        wipe(driver, own_server.neo4j_database)
        ingest(driver, own_server.neo4j_database, DEMO)
        before = dump(driver, own_server.neo4j_database)
    with pytest.raises(GraphError, match="--replace"):
        bulk_import(own_server, SHARED_EXAMPLE)
    with create_driver(own_server) as driver:
        assert diff(dump(driver, own_server.neo4j_database), before) == []


@pytest.mark.integration
def test_a_missing_vault_stops_nothing(own_server: Settings, tmp_path: Path) -> None:
    with create_driver(own_server) as driver:
        wipe(driver, own_server.neo4j_database)
        ingest(driver, own_server.neo4j_database, DEMO)
        before = dump(driver, own_server.neo4j_database)
    pid = local_server.status(own_server).pid
    with pytest.raises(VaultError):
        bulk_import(own_server, tmp_path / "nowhere", replace=True)
    assert local_server.status(own_server).pid == pid
    with create_driver(own_server) as driver:
        assert diff(dump(driver, own_server.neo4j_database), before) == []
    assert not list((local_server.neo4j_home(own_server) / "import").glob("vaultkg-*"))


@pytest.mark.integration
@pytest.mark.parametrize(("values", "parallel"), [(TRICKY, True), (MISLEADING, False)],
                         ids=["parallel-reader", "one-thread-reader"])
def test_neo4j_admin_reads_the_values_as_written(own_server: Settings, tmp_path: Path,
                                                 values: dict[str, Any], parallel: bool) -> None:
    """The tool itself, on every kind of value the tables write: quotes, line ends, the list
    delimiter's neighbours, Japanese, extreme numbers, dates; and the patched lists. With a
    value that would mislead its parallel reader, through the one-thread reader."""
    from graph.bulk_import import _admin_import, restore_lists
    from graph.writer import GraphWriter

    tables = _Tables(tmp_path)
    tables.sink.node(PAGE, ("Page", "Paper"), "p1", values)
    tables.sink.node(CLAIM, ("Claim",), "c1", {"id": "c1", "qualifiers": [], "pages": [""]})
    tables.sink.relationship("LINKS_TO", (PAGE, "p1"), (CLAIM, "c1"), {"line": 3, "raw": '"x"\n'})
    files = tables.close()
    assert files.parallel is parallel and files.multiline
    local_server.stop(own_server)
    _admin_import(own_server, local_server.neo4j_home(own_server), files)
    local_server.start(own_server)
    with create_driver(own_server) as driver:
        restore_lists(GraphWriter(driver, own_server.neo4j_database), files)
        records, _, _ = driver.execute_query(
            "MATCH (p:Page)-[r:LINKS_TO]->(c:Claim) RETURN labels(p) AS labels, "
            "properties(p) AS page, properties(r) AS link, properties(c) AS claim",
            database_=own_server.neo4j_database)
    assert len(records) == 1
    got = records[0]
    assert sorted(got["labels"]) == ["Page", "Paper"]
    page = dict(got["page"])
    page["day"] = page["day"].to_native()
    assert page == values
    assert all(type(page[k]) is type(v) for k, v in values.items())
    assert got["link"] == {"line": 3, "raw": '"x"\n'}
    assert got["claim"] == {"id": "c1", "qualifiers": [], "pages": [""]}


@pytest.mark.integration
def test_the_parallel_reader_finds_every_row(own_server: Settings, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Bodies of line breaks, commas, quotes, a `0,` after a line break and empty strings,
    after a cell ending in a quote, read with a small buffer so that the tool's parallel
    reader cuts them at many places: every row and value comes back. (With `"` as the quote
    character, or without the leading `0`, the tool stops at "found CR outside a text
    cell"; a cell ending in a backslash makes it stop at "Missing end for quote", which is
    why such a value sends the import to the one-thread reader.)"""
    from graph import bulk_index
    from graph.bulk_import import _admin_import

    monkeypatch.setattr(bulk_index, "READ_BUFFER_MIN", 64 * 1024)
    pieces = ["\n", "\r\n", ",", '"', '""', "0,", "\n0,", ",\n", "\n\n", " ", "系譜", "a",
              "\\x", "\x1f", "'"]
    rng = random.Random(7)
    # long keys: the first cell of a row, where a buffer's end often falls
    keys = [f"p{i}-{'k' * rng.randrange(300)}" for i in range(4000)]
    # a cell before the body that ends in what looks like a cell's end with the usual quote
    notes = ['ends in a quote"', 'a line\nthen "', "0,", "", "\\x"]
    pages = {key: {"key": key, "empty": "", "n": i, "note": rng.choice(notes),
                   "body": "".join(rng.choice(pieces) for _ in range(rng.randrange(400)))}
             for i, key in enumerate(keys)}
    tables = _Tables(tmp_path)
    for key, props in pages.items():
        tables.sink.node(PAGE, ("Page",), key, props)
    files = tables.close()
    assert files.parallel and files.multiline and files.read_buffer < 200 * 1024
    assert sum(path.stat().st_size for path in files.multiline) > 20 * files.read_buffer
    local_server.stop(own_server)
    _admin_import(own_server, local_server.neo4j_home(own_server), files)
    local_server.start(own_server)
    with create_driver(own_server) as driver:
        records, _, _ = driver.execute_query("MATCH (p:Page) RETURN properties(p) AS p",
                                             database_=own_server.neo4j_database)
    assert {r["p"]["key"]: dict(r["p"]) for r in records} == pages


def test_a_relationship_list_is_refused(tmp_path: Path) -> None:
    """The writer's relationships hold no lists; one would go unset after the import."""
    with pytest.raises(GraphError, match="list"):
        _Tables(tmp_path).sink.relationship("LINKS_TO", (PAGE, "a"), (PAGE, "b"), {"x": []})


@pytest.mark.integration
def test_a_failed_import_says_why_and_leaves_an_empty_graph(
        own_server: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A relationship to a node the files do not have makes the tool fail: the error names
    the cause in one line, and the server is up again with an empty database."""
    import dataclasses

    from graph import bulk_import as bulk

    real = bulk._write_files

    def broken(*args: Any, **kwargs: Any) -> Any:
        stream, done, files = real(*args, **kwargs)
        bad = args[1] / "rel-bad.csv"
        with bad.open("w", encoding="utf-8", newline="") as f:
            csv_writer(f).writerows([[LEAD, ":START_ID(Page)", ":END_ID(Page)"],
                                     [0, "nobody", "nothing"]])
        return stream, done, dataclasses.replace(
            files, relationships=(*files.relationships, ("LINKS_TO", (bad,))))

    monkeypatch.setattr(bulk, "_write_files", broken)
    with pytest.raises(LocalServerError) as failed:
        bulk_import(own_server, DEMO, replace=True)
    message = str(failed.value)
    assert message.startswith("neo4j-admin database import failed: ")
    assert "\n" not in message and "nobody" in message
    assert local_server.status(own_server).ready
    with create_driver(own_server) as driver:
        records, _, _ = driver.execute_query("MATCH (n) RETURN count(n) AS n",
                                             database_=own_server.neo4j_database)
        assert records[0]["n"] == 0


@pytest.mark.integration
def test_the_command_refuses_in_one_line_then_imports(
        own_server: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from typer.testing import CliRunner

    from api.cli import app
    from graph.settings import get_settings

    with create_driver(own_server) as driver:
        wipe(driver, own_server.neo4j_database)
        ingest(driver, own_server.neo4j_database, DEMO)
    monkeypatch.setenv("VAULTKG_NEO4J_HOME", str(own_server.neo4j_home))
    monkeypatch.setenv("VAULTKG_NEO4J_BOLT_PORT", str(own_server.neo4j_bolt_port))
    monkeypatch.setenv("NEO4J_URI", own_server.neo4j_uri)
    get_settings.cache_clear()
    try:
        refused = CliRunner().invoke(app, ["neo4j", "import", str(DEMO)])
        done = CliRunner().invoke(app, ["neo4j", "import", str(DEMO), "--replace", "--json"])
    finally:
        get_settings.cache_clear()
    assert isinstance(refused.exception, GraphError)  # main() prints it as `error: ...`
    assert "--replace" in str(refused.exception)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert report["imported_nodes"] > 0 and report["pages"] > 0 and report["parsed"] > 0


@pytest.mark.integration
def test_lists_are_restored_in_batches(own_server: Settings) -> None:
    """At 100k pages every one of 333k claims holds a sentinel list; restored in one
    transaction, they took more than the default server's transaction memory (1 GiB heap), so
    the restore commits in batches (`IN TRANSACTIONS`, which only an auto-commit run may
    hold). Past a batch's end, every list is set, with either sentinel, and counted."""
    from graph.bulk_csv import EMPTY_LIST, ONE_EMPTY_STRING, ImportFiles
    from graph.bulk_import import restore_lists
    from graph.writer import GraphWriter

    claims = 20_000 + 1_500  # one batch and part of the next
    assert all("IN TRANSACTIONS OF 20000 ROWS" in q for q in w.RESTORE_LISTS.values())
    database = own_server.neo4j_database
    files = ImportFiles(nodes=(), list_columns=(("Claim", "qualifiers"),), relationships=(),
                        multiline=(), parallel=True, read_buffer=0, node_count=claims,
                        relationship_count=0)
    with create_driver(own_server) as driver:
        wipe(driver, database)
        with driver.session(database=database) as session:
            session.run("UNWIND range(1, $n) AS i CALL { WITH i CREATE (:Claim {id: 'c' + i, "
                        "qualifiers: CASE i % 3 WHEN 0 THEN $one ELSE $empty END}) } "
                        "IN TRANSACTIONS OF 10000 ROWS", n=claims, one=[ONE_EMPTY_STRING],
                        empty=[EMPTY_LIST]).consume()
            writer = GraphWriter(driver, database)
            restore_lists(writer, files)
            got = session.run("MATCH (n:Claim) RETURN n.qualifiers AS q, count(*) AS n "
                              "ORDER BY n").data()
        assert got == [{"q": [""], "n": claims // 3}, {"q": [], "n": claims - claims // 3}]
        assert writer.stats.properties_set == claims
        wipe(driver, database)


@pytest.mark.integration
@pytest.mark.parametrize("stage", ["lists", "finish"])
def test_a_failure_after_the_tool_is_completed_by_an_ingest(
        own_server: Settings, monkeypatch: pytest.MonkeyPatch, stage: str) -> None:
    """Once the tool has built the store, a failure (the lists' restore, or what an ingest
    writes last) says in one line that an ingest completes the graph, and it does: the graph
    is then the one a clean ingest builds."""
    from graph import bulk_import as bulk
    from graph.writer import GraphWriter

    database = own_server.neo4j_database
    with create_driver(own_server) as driver:
        wipe(driver, database)
        ingest(driver, database, DEMO)
        expected = dump(driver, database)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise GraphError("the transaction memory ran out")

    if stage == "lists":
        monkeypatch.setattr(bulk, "restore_lists", fail)
    else:
        monkeypatch.setattr(GraphWriter, "finish", fail)
    with pytest.raises(GraphError) as failed:
        bulk_import(own_server, DEMO, replace=True)
    message = str(failed.value)
    assert "\n" not in message and "the transaction memory ran out" in message
    assert message.startswith("the store was imported, but completing it failed: ")
    assert message.endswith(f"`vaultkg ingest {DEMO}` completes the graph")
    monkeypatch.undo()
    with create_driver(own_server) as driver:
        assert diff(expected, dump(driver, database)) != []  # not complete yet
        report = ingest(driver, database, DEMO)
        assert report.changed
        assert diff(expected, dump(driver, database)) == []
