"""First ingest of a whole vault into the local server's store through `neo4j-admin database
import` instead of transactions: the pages and their facts are written as CSV files while the
vault is parsed, the server is stopped, the tool builds the store from them, and once the
server is up again the writer does what comes after the pages (folds, contradictions,
conflicts, hashes) as an ingest does. The graph is the one `graph.ingest.ingest` makes
(`tests/test_bulk_import.py` compares them), and a later `ingest` goes on from it.

Only for the server vaultkg runs (`graph.local_server`): the tool needs the store's folder and
the database stopped, which Community can only do by stopping the server."""

from __future__ import annotations

import shutil
import time
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel

from graph import local_server
from graph import writes as w
from graph.bulk_csv import CHARACTER_OPTIONS, SENTINELS, CsvFiles, ImportFiles
from graph.bulk_index import BulkIndex, PageRows, page_rows
from graph.bulk_writer import BulkWriter, PageEncoder, PageSink
from graph.connection import create_driver, write_batched
from graph.errors import GraphError, GraphUnavailable, LocalServerError
from graph.ingest import IngestReport, graph_totals, problem_lines
from graph.lock import ingest_lock
from graph.schema import ensure_schema
from graph.settings import Settings
from graph.writer import BATCH, GraphWriter, WritePass
from loaders.files import vault_root
from loaders.log_segments import LogState
from loaders.stream import VaultStream
from loaders.vault import CHUNK_PAGES, LoadOptions, stream_vault

IMPORT_TIMEOUT_S = 3600.0


class BulkTimings(BaseModel):
    """Where an offline import's time went, in seconds."""

    parse_and_files: float
    stop: float
    admin_import: float
    start: float
    indexes: float
    lists: float
    finish: float


class BulkReport(IngestReport):
    """An ingest's report, with the import's own counts and phases."""

    imported_nodes: int
    imported_relationships: int
    # whether neo4j-admin read the files on every core (`graph.bulk_csv`: a value that would
    # mislead its parallel reader has it read them on one thread)
    parallel_reader: bool
    timings: BulkTimings


class _EmptyLogHistory:
    """An empty database's answers about the log (what the writer reads back on one)."""

    def entry_signatures(self) -> Mapping[str, str | None]:
        return {}

    def entries_reach(self, keys: Collection[str]) -> tuple[set[str], set[str]]:
        return set(), set()

    def log_state(self, page: str) -> LogState | None:
        return None


def _check_local(settings: Settings) -> None:
    """The database the settings connect to must be the local server's, whose store the
    import writes."""
    uri = urlsplit(settings.neo4j_uri)
    if uri.hostname not in ("127.0.0.1", "localhost") or \
            (uri.port or 7687) != settings.neo4j_bolt_port:
        raise GraphError(
            f"NEO4J_URI ({settings.neo4j_uri}) is not the local server "
            f"({local_server.bolt_uri(settings)}), whose store the offline import writes: "
            "unset NEO4J_URI or set VAULTKG_NEO4J_BOLT_PORT to its port")


def bulk_import(settings: Settings, path: Path, *, replace: bool = False,
                progress: Callable[[int, int], None] | None = None,
                chunk_pages: int = CHUNK_PAGES, batch_size: int = BATCH,
                workers: int | None = None) -> BulkReport:
    """Build the local server's graph from the vault at `path` with the offline importer.
    The graph must hold no page, unless `replace`: then it is replaced whole. `workers`:
    parse processes (None: one per core for large vaults, as an ingest has it)."""
    started = time.perf_counter()
    vault_root(path)  # a vault that cannot be read stops nothing
    _check_local(settings)
    database = settings.neo4j_database
    home = local_server.neo4j_home(settings)
    folder = home / "import" / f"vaultkg-{uuid.uuid4().hex[:12]}"
    _check_folder(folder)
    local_server.start(settings)  # jars, password, and the graph's state to check
    try:
        with create_driver(settings) as driver:
            ensure_schema(driver, database)
            with ingest_lock(driver, database):  # an ingest now running finishes first
                held = GraphWriter(driver, database).page_count()
                if held and not replace:
                    raise GraphError(
                        f"the graph already holds {held} pages; the offline import builds a "
                        "new store: pass --replace to drop it, or use `vaultkg ingest`")
                folder.mkdir(parents=True)
                stream, done, files = _write_files(path, folder, progress, chunk_pages,
                                                   batch_size, workers)
        parsed = time.perf_counter()
        local_server.stop(settings)
        stopped = time.perf_counter()
        _admin_import(settings, home, files)
        imported = time.perf_counter()
        with _completed_by_ingest(path):
            local_server.start(settings)
            up = time.perf_counter()
            with create_driver(settings) as driver:
                ensure_schema(driver, database)
                indexed = time.perf_counter()
                writer = GraphWriter(driver, database, batch_size=batch_size)
                restore_lists(writer, files)
                patched = time.perf_counter()
                with ingest_lock(driver, database):
                    writer.finish(done, stream)
                totals = graph_totals(driver, database)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    finished = time.perf_counter()
    stats = writer.stats
    return BulkReport(
        vault=stream.root, **totals, **problem_lines(stream.problems),
        parsed=len(stream.todo), unchanged=0,
        deleted=0, nodes_created=files.node_count + stats.nodes_created,
        nodes_deleted=stats.nodes_deleted,
        relationships_created=files.relationship_count + stats.relationships_created,
        relationships_deleted=stats.relationships_deleted, changed=True,
        elapsed_s=round(finished - started, 3),
        imported_nodes=files.node_count, imported_relationships=files.relationship_count,
        parallel_reader=files.parallel,
        timings=BulkTimings(parse_and_files=round(parsed - started, 2),
                            stop=round(stopped - parsed, 2),
                            admin_import=round(imported - stopped, 2),
                            start=round(up - imported, 2), indexes=round(indexed - up, 2),
                            lists=round(patched - indexed, 2),
                            finish=round(finished - patched, 2)))


def _write_files(path: Path, folder: Path, progress: Callable[[int, int], None] | None,
                 chunk_pages: int, batch_size: int, workers: int | None = None
                 ) -> tuple[VaultStream[PageRows], WritePass, ImportFiles]:
    """Parse the vault and write its import files: each page's rows where it was parsed
    (`PageEncoder`), gathered here in page order (`BulkIndex`)."""
    index = BulkIndex()
    stream = stream_vault(path, LoadOptions(previous={}, force=True, progress=progress,
                                            workers=workers, log_history=_EmptyLogHistory()),
                          chunk_pages,
                          PageEncoder(folder, index, batch_size))
    own = CsvFiles(folder, "main")
    try:
        # Every page is made (by key) before the first chunk, and so before the workers fork.
        sink = PageSink(own, index)
        done = BulkWriter(sink, batch_size).begin(stream)
        events, relationships = sink.take()
        index.take(page_rows(own, events, relationships, None))
        for chunk in stream.chunks:
            for rows in chunk:
                index.take(rows)
                done.later.merge(rows.later)
    except BaseException:
        own.close()
        stream.close()
        raise
    stream.close()
    return stream, done, index.close(own)


def _admin_import(settings: Settings, home: Path, files: ImportFiles) -> None:
    """Run the import; if it fails, the half-built database is removed, so the server starts
    with an empty one (the graph held no page, or the caller asked to replace it)."""
    args = ["database", "import", "full", "--verbose", settings.neo4j_database,
            "--overwrite-destination=true", *CHARACTER_OPTIONS,
            f"--read-buffer-size={files.read_buffer}", "--skip-bad-relationships=false",
            "--skip-duplicate-nodes=false", f"--report-file={home / 'logs' / 'import.report'}"]
    args += _multiline_options(files)
    # One input per header: the tool reads the first file's header and skips the others'.
    args.append("--auto-skip-subsequent-headers=true")
    args += [f"--nodes={labels}={_joined(paths)}" for labels, paths in files.nodes]
    args += [f"--relationships={rel_type}={_joined(paths)}"
             for rel_type, paths in files.relationships]
    try:
        local_server.run_admin(local_server.find_java(), home, args,
                               "neo4j-admin database import", timeout=IMPORT_TIMEOUT_S)
    except LocalServerError:
        local_server.drop_store(settings)
        local_server.start(settings)
        raise


def _multiline_options(files: ImportFiles) -> list[str]:
    """Bodies span lines: the files holding a line break, for the tool's parallel reader,
    unless a value there would mislead it (see `graph.bulk_csv`); then every file is read on
    one thread."""
    if not files.multiline:
        return []
    if files.parallel:
        return ["--multiline-fields-format=v2", f"--multiline-fields={_joined(files.multiline)}"]
    return ["--multiline-fields=true"]


def _joined(paths: tuple[Path, ...]) -> str:
    """Files of one input as the tool takes them (see `_check_folder`)."""
    return ",".join(map(str, paths))


@contextmanager
def _completed_by_ingest(path: Path) -> Iterator[None]:
    """Once the tool has built the store, a failure leaves a graph without its hashes (maybe
    with sentinel lists): an ingest parses every page again and completes it. Say so."""
    try:
        yield
    except (GraphError, GraphUnavailable, LocalServerError) as exc:
        raise type(exc)(f"the store was imported, but completing it failed: {exc}; with the "
                        f"server up (`vaultkg neo4j start`), `vaultkg ingest {path}` completes "
                        "the graph") from exc


def _check_folder(folder: Path) -> None:
    """The tool splits an input's file names at commas: the files' folder cannot hold one."""
    if "," in str(folder):
        raise GraphError(f"the offline import cannot name files in {folder} to neo4j-admin, "
                         "which splits file names at commas: set VAULTKG_NEO4J_HOME to a "
                         "folder without one")


def restore_lists(writer: GraphWriter, files: ImportFiles) -> None:
    """Set the lists CSV cannot hold, which the files hold as sentinels: a scan per node label
    and list property, in one statement each, committed in batches."""
    columns: set[tuple[str, str]] = set()
    for labels, prop in files.list_columns:
        label = next((lb for lb in labels.split(":") if lb in w.RESTORE_LISTS), None)
        if label is None:
            raise GraphError(f"the offline import wrote a list on {labels} nodes, which it "
                             "cannot set right")
        columns.add((label, prop))
    for label, prop in sorted(columns):
        for sentinel, value in SENTINELS.items():
            writer.stats.add(write_batched(writer.driver, writer.database,
                                           w.RESTORE_LISTS[label], prop=prop,
                                           sentinel=[sentinel], props={prop: value}))
