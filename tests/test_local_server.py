"""The local Neo4j server (graph/local_server.py): unit tests without a server, then real ones."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest
from typer.testing import CliRunner

from api.neo4j_cli import neo4j_app
from graph import local_server
from graph.errors import LocalServerError
from graph.settings import Settings, get_settings
from tests import db as test_db

THROWAWAY_PORT = 17787


def _tmp_settings(tmp_path: Path, port: int) -> Settings:
    return Settings().model_copy(update={"neo4j_home": tmp_path / "home", "neo4j_bolt_port": port})


@pytest.fixture
def listening_socket() -> Iterator[int]:
    """Something else listening on a loopback port, as another program would."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


# ---- unit tests (no server) ------------------------------------------------------------------


def test_without_neo4j_uri_commands_reach_the_local_server_where_it_listens(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`VAULTKG_NEO4J_BOLT_PORT` alone moves the server and the commands that use it; an
    explicit NEO4J_URI (an environment variable or an argument) still wins."""
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.setenv("VAULTKG_NEO4J_BOLT_PORT", "7731")
    settings = Settings(_env_file=None)
    assert settings.neo4j_uri == local_server.bolt_uri(settings) == "bolt://127.0.0.1:7731"
    monkeypatch.delenv("VAULTKG_NEO4J_BOLT_PORT")
    assert Settings(_env_file=None).neo4j_uri == "bolt://127.0.0.1:7687"
    monkeypatch.setenv("VAULTKG_NEO4J_BOLT_PORT", "7731")
    monkeypatch.setenv("NEO4J_URI", "bolt://db.example:7687")
    assert Settings(_env_file=None).neo4j_uri == "bolt://db.example:7687"
    assert Settings(_env_file=None, NEO4J_URI="bolt://127.0.0.1:7").neo4j_uri == \
        "bolt://127.0.0.1:7"


def test_the_tests_start_a_server_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests wipe their database: without a home and port named, theirs is never the
    default one, where `make demo` keeps a developer's graph."""
    for name in ("VAULTKG_NEO4J_HOME", "VAULTKG_NEO4J_BOLT_PORT", "NEO4J_URI"):
        monkeypatch.delenv(name, raising=False)
    default = Settings(_env_file=None)
    own = test_db.local_settings(default)
    assert (own.neo4j_home, own.neo4j_bolt_port) == (test_db.TEST_HOME, test_db.TEST_PORT)
    assert local_server.neo4j_home(own) != local_server.neo4j_home(default)
    assert own.neo4j_bolt_port != default.neo4j_bolt_port
    assert own.neo4j_uri == local_server.bolt_uri(own)
    assert local_server.cache_dir(own) == local_server.cache_dir(default)  # the jars, once
    monkeypatch.setenv("VAULTKG_NEO4J_HOME", "/srv/neo4j-ci")
    monkeypatch.setenv("VAULTKG_NEO4J_BOLT_PORT", "7701")
    named = test_db.local_settings(Settings(_env_file=None))
    assert (named.neo4j_home, named.neo4j_bolt_port) == (Path("/srv/neo4j-ci"), 7701)
    assert named.neo4j_uri == "bolt://127.0.0.1:7701"


def test_conf_listens_only_on_loopback(tmp_path: Path) -> None:
    conf = local_server.render_conf(tmp_path, 7687)
    settings = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line)
    assert settings["server.default_listen_address"] == "127.0.0.1"
    assert settings["server.bolt.listen_address"] == "127.0.0.1:7687"
    addresses = {k: v for k, v in settings.items() if k.endswith(("_address", ".address"))}
    assert addresses and all(v.startswith("127.0.0.1") for v in addresses.values())
    assert "0.0.0.0" not in conf
    assert settings["server.http.enabled"] == "false"
    assert settings["server.https.enabled"] == "false"
    assert settings["dbms.security.auth_enabled"] == "true"
    assert len(settings) == len([ln for ln in conf.splitlines() if "=" in ln])  # no duplicates
    for key, value in settings.items():
        if key.startswith("server.directories."):
            assert Path(value).is_relative_to(tmp_path), key


def test_transaction_logs_are_bounded(tmp_path: Path) -> None:
    """Neo4j's default keeps two days of transaction logs; the derived store needs only recovery."""
    conf = local_server.render_conf(tmp_path, 7687)
    settings = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line)
    assert settings["db.tx_log.rotation.retention_policy"] == "1G size"


def test_bolt_stops_without_a_quiet_period(tmp_path: Path) -> None:
    """Neo4j's Bolt event loops wait 5 quiet seconds per connector before a stop completes;
    the offline import and the tests stop the server often. (Neo4j refuses a setting it does
    not know, so every integration test's start checks the name.)"""
    conf = local_server.render_conf(tmp_path, 7687)
    settings = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line)
    assert settings["internal.dbms.bolt.netty_server_shutdown_quiet_period"] == "0"


def test_page_cache_size_is_configurable_and_checked(tmp_path: Path) -> None:
    assert "server.memory.pagecache.size=256m" in local_server.render_conf(tmp_path, 7687)
    assert "server.memory.pagecache.size=2g" in local_server.render_conf(tmp_path, 7687, "2g")
    with pytest.raises(LocalServerError, match="VAULTKG_NEO4J_PAGECACHE"):
        local_server._memory_size("2 GB", "VAULTKG_NEO4J_PAGECACHE")


def test_home_layout_writes_conf_and_links_jars(tmp_path: Path) -> None:
    lib = tmp_path / "cache" / "lib"
    lib.mkdir(parents=True)
    home = tmp_path / "home"
    local_server._lay_out_home(home, lib, 17788)
    conf = (home / "conf" / "neo4j.conf").read_text()
    assert "server.bolt.listen_address=127.0.0.1:17788" in conf
    assert (home / "lib").resolve() == lib.resolve()
    assert all((home / d).is_dir() for d in ("data", "logs", "run"))


def test_pom_pins_server_and_plugin() -> None:
    pom = local_server.render_pom("5.26.30")
    assert "<artifactId>neo4j</artifactId>" in pom
    assert (
        "<groupId>org.neo4j.app</groupId>" in pom and "<artifactId>neo4j-server</artifactId>" in pom
    )
    assert "<packaging>pom</packaging>" in pom
    assert f"<version>{local_server.DEPENDENCY_PLUGIN_VERSION}</version>" in pom


def test_missing_java_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # nothing on PATH
    with pytest.raises(LocalServerError, match="java not found") as info:
        local_server.start(_tmp_settings(tmp_path, test_db.free_port(THROWAWAY_PORT)))
    assert "\n" not in str(info.value)


def test_missing_mvn_is_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(LocalServerError, match="mvn not found") as info:
        local_server.fetch_jars(_tmp_settings(tmp_path, THROWAWAY_PORT))
    assert "\n" not in str(info.value)


def test_port_taken_is_detected(tmp_path: Path, listening_socket: int) -> None:
    assert local_server.port_in_use(listening_socket)
    with pytest.raises(LocalServerError, match="already in use") as info:
        local_server.start(_tmp_settings(tmp_path, listening_socket))
    assert "\n" not in str(info.value)
    assert not (tmp_path / "cache").exists()  # failed before fetching anything


def test_cli_prints_error_line_and_exits_1(
    tmp_path: Path, listening_socket: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VAULTKG_NEO4J_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("VAULTKG_NEO4J_BOLT_PORT", str(listening_socket))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(neo4j_app, ["start"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 1
    assert result.stderr.startswith("error: port ")
    assert "Traceback" not in result.output


# ---- integration tests (a real server) -------------------------------------------------------


@pytest.fixture(scope="session")
def local_neo4j() -> tuple[Settings, local_server.ServerStatus]:
    """The tests' local server (reused if running; stopped at session end if started here)."""
    settings = test_db.local_settings()
    return settings, test_db.acquire_local(settings)


@pytest.mark.integration
def test_start_twice_is_harmless(local_neo4j: tuple[Settings, local_server.ServerStatus]) -> None:
    settings, first = local_neo4j
    again = local_server.start(settings)
    assert again.already_running
    assert again.pid == first.pid
    assert again.ready


@pytest.mark.integration
def test_status_reports_running(local_neo4j: tuple[Settings, local_server.ServerStatus]) -> None:
    settings, first = local_neo4j
    st = local_server.status(settings)
    assert st.running and st.ready
    assert st.pid == first.pid
    assert st.bolt_uri == f"bolt://127.0.0.1:{settings.neo4j_bolt_port}"
    assert st.version == settings.neo4j_version


@pytest.mark.integration
def test_second_fetch_downloads_nothing(
    local_neo4j: tuple[Settings, local_server.ServerStatus],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings, _ = local_neo4j
    monkeypatch.setenv("PATH", str(tmp_path))  # no mvn: a cached fetch must not need it
    lib = local_server.fetch_jars(settings)
    assert any(lib.glob("org.neo4j.neo4j-*.jar"))


@pytest.mark.integration
def test_the_environment_names_the_test_database(test_database: test_db.TestDatabase) -> None:
    """What `vaultkg` reads when a test runs it, in this process or a child, is the tests'
    database (tests/db.py `export`), never the defaults' or a developer's."""
    settings = get_settings()
    assert (settings.neo4j_uri, settings.neo4j_user, settings.neo4j_database) == (
        test_database.uri, test_database.user, test_database.database)
    assert settings.neo4j_password.get_secret_value() == test_database.password
    child = subprocess.run(
        [sys.executable, "-c", "from graph.settings import Settings; print(Settings().neo4j_uri)"],
        capture_output=True, text=True, check=True, cwd=test_db.TEST_HOME.parent.parent)
    assert child.stdout.strip() == test_database.uri


@pytest.mark.integration
def test_return_1(neo4j_driver: neo4j.Driver, neo4j_database: str) -> None:
    records, _, _ = neo4j_driver.execute_query("RETURN 1 AS one", database_=neo4j_database)
    assert records[0]["one"] == 1


@pytest.mark.integration
def test_awkward_title_round_trips_verbatim(clean_db: neo4j.Driver, neo4j_database: str) -> None:
    title = (
        "He said \"hi\" & 'bye' `MATCH (n) DETACH DELETE n` {x: 1} }) $title ${x} "
        "RETURN 1; // CREATE MERGE WHERE CALL {} \\ \\n \n tab\t é 日本語 🙂"
    )
    clean_db.execute_query("CREATE (:Page {title: $title})", title=title, database_=neo4j_database)
    records, _, _ = clean_db.execute_query(
        "MATCH (p:Page) WHERE p.title = $title RETURN p.title AS title",
        title=title,
        database_=neo4j_database,
    )
    assert [r["title"] for r in records] == [title]


@pytest.mark.integration
def test_clean_db_starts_empty(clean_db: neo4j.Driver, neo4j_database: str) -> None:
    records, _, _ = clean_db.execute_query(
        "MATCH (n) RETURN count(n) AS n", database_=neo4j_database
    )
    assert records[0]["n"] == 0


@pytest.mark.integration
def test_stop_leaves_no_process_behind(
    local_neo4j: tuple[Settings, local_server.ServerStatus], tmp_path: Path
) -> None:
    """A throwaway server (own home and port), so the session's server keeps running."""
    settings, _ = local_neo4j
    (tmp_path / "cache").symlink_to(local_server.cache_dir(settings).parent)  # reuse the jars
    throwaway = _tmp_settings(tmp_path, test_db.free_port(THROWAWAY_PORT))
    home = local_server.neo4j_home(throwaway)
    st = local_server.start(throwaway)
    try:
        assert st.running and not st.already_running and st.pid is not None
        assert local_server.status(throwaway).ready
    finally:
        local_server.stop(throwaway)
    assert not local_server.status(throwaway).running
    assert not local_server.pid_file(home).exists()
    assert not _processes_with(f"--home-dir={home}")
    assert not local_server.port_in_use(throwaway.neo4j_bolt_port)
    local_server.stop(throwaway)  # harmless when not running
    assert local_server.status(settings).running  # the session's server is untouched


def _processes_with(arg: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains arg."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if arg.encode() in cmdline and state != "Z" and int(proc.name) != os.getpid():
            found.append(int(proc.name))
    return found
