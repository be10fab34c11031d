"""A real Neo4j 5.26 Community server on loopback, built from Maven Central jars (no Docker).

Why: dev machines and CI here have no Docker engine but do reach Maven Central and have Java 17,
so we lay out a NEO4J_HOME from the published jars and launch the server's entry point directly,
the way `bin/neo4j console` would (see shared/NEO4J-LOCAL.md for the reasoning behind each step).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

from neo4j import GraphDatabase
from neo4j.exceptions import AuthError, DriverError, Neo4jError
from pydantic import BaseModel

from graph.errors import LocalServerError
from graph.settings import Settings

HOST = "127.0.0.1"
LOCAL_USER = "neo4j"  # the only user a fresh Community server has
ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
DEPENDENCY_PLUGIN_VERSION = "3.8.1"  # unpinned, Maven 3.8 picks a plugin too old for these flags
PID_FILE = "vaultkg-neo4j.pid"
CONSOLE_LOG = "console.log"
COMPLETE_MARKER = "complete"
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 60.0
MVN_TIMEOUT_S = 1800.0
LOG_TAIL_LINES = 20
MIN_PASSWORD_LENGTH = 8  # Neo4j's dbms.security.auth_minimum_password_length

_CLASS_FILES = {
    ENTRY_POINT: "org/neo4j/server/CommunityEntryPoint.class",
    ADMIN_TOOL: "org/neo4j/cli/AdminTool.class",
}

# bin/neo4j adds these from server.jvm.additional; launching the entry point ourselves, we must.
# Without the java.nio add-opens the server dies with "Cannot to link java.nio.DirectByteBuffer".
ADD_OPENS: tuple[str, ...] = (
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)
JVM_FLAGS: tuple[str, ...] = (
    *ADD_OPENS,
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
)

# Exit codes of the Neo4j server process (NEO4J-LOCAL.md), to make a failed start readable.
_EXIT_MEANINGS = {
    1: "unexpected error",
    2: "store locked or a database failed to start",
    3: "invalid configuration (e.g. heap + page cache above RAM)",
}

# Popen handles of servers this process launched, so that their exit is reaped, not a zombie.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


class ServerStatus(BaseModel):
    """What `status` knows about the local server; `start` returns the same shape."""

    running: bool
    pid: int | None
    bolt_uri: str
    version: str
    home: Path
    ready: bool = False
    already_running: bool = False
    startup_seconds: float | None = None


# ---------------------------------------------------------------------------------------------
# Paths


def neo4j_home(settings: Settings) -> Path:
    """NEO4J_HOME as an absolute path; relative settings are taken from the working directory."""
    return Path(os.path.abspath(settings.neo4j_home.expanduser()))


def cache_dir(settings: Settings) -> Path:
    """Where the jars of one version live: beside NEO4J_HOME, so homes can share them."""
    return neo4j_home(settings).parent / "cache" / settings.neo4j_version


def bolt_uri(settings: Settings) -> str:
    """The loopback Bolt address the local server listens on."""
    return f"bolt://{HOST}:{settings.neo4j_bolt_port}"


def pid_file(home: Path) -> Path:
    """The pid file that marks a server as ours."""
    return home / "run" / PID_FILE


# ---------------------------------------------------------------------------------------------
# Tools


def find_java() -> str:
    """The java to run Neo4j with: $JAVA_HOME/bin/java if set, else java on PATH; 17+."""
    java: str | None = None
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            java = str(candidate)
    if java is None:
        java = shutil.which("java")
    if java is None:
        raise LocalServerError(
            "java not found on PATH (nor in JAVA_HOME): install Java 17 or 21 "
            "(e.g. apt-get install openjdk-17-jre-headless) to run the local Neo4j"
        )
    major = _java_major(java)
    if major is not None and major < 17:
        raise LocalServerError(f"{java} is Java {major}; Neo4j 5.26 needs Java 17 or 21")
    return java


def _java_major(java: str) -> int | None:
    """The Java feature version, or None when `java -version` cannot be parsed."""
    try:
        out = subprocess.run(
            [java, "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LocalServerError(f"cannot run {java}: {exc}") from exc
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if match is None:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2):  # "1.8.0" style
        major = int(match.group(2))
    return major


def find_mvn() -> str:
    """The Maven executable, needed only when the jars are not cached yet."""
    mvn = shutil.which("mvn")
    if mvn is None:
        raise LocalServerError(
            "mvn not found on PATH: install Maven 3.8+ (e.g. apt-get install maven) "
            "to fetch the Neo4j jars from Maven Central"
        )
    return mvn


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise concurrent fetches/starts/stops (two terminals, parallel test workers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# ---------------------------------------------------------------------------------------------
# Jars


def render_pom(version: str) -> str:
    """A packaging-pom project whose runtime dependencies are exactly the server's classpath."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by vaultkg (graph/local_server.py) to fetch the Neo4j server jars. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>vaultkg.local</groupId>
  <artifactId>neo4j-server-jars</artifactId>
  <version>{version}</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.neo4j</groupId>
      <artifactId>neo4j</artifactId>
      <version>{version}</version>
    </dependency>
    <dependency>
      <groupId>org.neo4j.app</groupId>
      <artifactId>neo4j-server</artifactId>
      <version>{version}</version>
    </dependency>
  </dependencies>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-dependency-plugin</artifactId>
          <version>{DEPENDENCY_PLUGIN_VERSION}</version>
        </plugin>
      </plugins>
    </pluginManagement>
  </build>
</project>
"""


def _complete_jars(cache: Path) -> list[str] | None:
    """The jar list of a finished fetch, or None if the cache is missing or incomplete."""
    marker = cache / COMPLETE_MARKER
    lib = cache / "lib"
    if not marker.is_file():
        return None
    names = [line for line in marker.read_text().splitlines() if line.strip()]
    if not names or not all((lib / name).is_file() for name in names):
        return None
    return names


def verify_lib(lib: Path) -> list[str]:
    """Check that the jars hold the server entry point and admin tool; return the jar names."""
    jars = sorted(p.name for p in lib.glob("*.jar"))
    missing = dict(_CLASS_FILES)
    for name in jars:
        if not name.startswith("org.neo4j") or not missing:
            continue
        try:
            with zipfile.ZipFile(lib / name) as archive:
                entries = set(archive.namelist())
        except zipfile.BadZipFile as exc:
            raise LocalServerError(f"corrupt jar {lib / name}: {exc}") from exc
        for cls, path in list(missing.items()):
            if path in entries:
                del missing[cls]
    if missing:
        raise LocalServerError(
            f"the fetched Neo4j jars in {lib} lack {', '.join(sorted(missing))}; "
            "is NEO4J_VERSION a 5.x Community release?"
        )
    return jars


def fetch_jars(settings: Settings) -> Path:
    """Copy the server's runtime jars from Maven Central once; later calls download nothing."""
    version = settings.neo4j_version
    if not re.fullmatch(r"5\.\d+\.\d+", version):
        raise LocalServerError(
            f"NEO4J_VERSION={version!r} is not a 5.x release; pin a 5.26.x LTS patch "
            "(calendar releases need Java 21 and another entry point)"
        )
    cache = cache_dir(settings)
    lib = cache / "lib"
    if _complete_jars(cache) is not None:
        return lib
    with _locked(cache / "fetch.lock"):
        if _complete_jars(cache) is not None:  # another process finished while we waited
            return lib
        mvn = find_mvn()
        pom = cache / "pom.xml"
        pom.write_text(render_pom(version))
        partial = cache / "lib.partial"
        shutil.rmtree(partial, ignore_errors=True)
        cmd = [
            mvn, "-B", "-q", "-Dstyle.color=never", "-f", str(pom),
            "dependency:copy-dependencies", "-DincludeScope=runtime",
            "-Dmdep.prependGroupId=true", f"-DoutputDirectory={partial}",
        ]  # fmt: skip
        try:
            done = subprocess.run(
                cmd, cwd=cache, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                timeout=MVN_TIMEOUT_S, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as exc:
            raise LocalServerError(
                f"mvn did not finish fetching Neo4j {version} within {MVN_TIMEOUT_S:.0f} s"
            ) from exc
        if done.returncode != 0:
            raise LocalServerError(
                f"mvn could not fetch org.neo4j:neo4j:{version}: {_first_mvn_error(done)}"
            )
        jars = verify_lib(partial)
        shutil.rmtree(lib, ignore_errors=True)
        partial.rename(lib)
        (cache / COMPLETE_MARKER).write_text("\n".join(jars) + "\n")
    return lib


def _first_mvn_error(done: subprocess.CompletedProcess[str]) -> str:
    """The most telling line of a failed Maven run, without colour codes."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + "\n" + done.stderr)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("[ERROR]") and len(line) > 8]
    chosen = errors[0] if errors else (lines[-1] if lines else f"exit code {done.returncode}")
    return chosen.removeprefix("[ERROR]").strip()


# ---------------------------------------------------------------------------------------------
# NEO4J_HOME


TX_LOG_RETENTION = "1G size"
BOLT_SHUTDOWN_QUIET_S = 0


def render_conf(home: Path, bolt_port: int, pagecache: str = "256m") -> str:
    """neo4j.conf for a loopback-only, password-protected server with everything inside home."""
    bolt = f"{HOST}:{bolt_port}"
    lines = [
        "# Written by vaultkg (graph/local_server.py) on every start; edits are overwritten.",
        f"server.default_listen_address={HOST}",
        f"server.default_advertised_address={HOST}",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address={bolt}",
        f"server.bolt.advertised_address={bolt}",
        "server.bolt.tls_level=DISABLED",
        "server.http.enabled=false",
        "server.https.enabled=false",
        "dbms.routing.enabled=false",
        "dbms.security.auth_enabled=true",
        "dbms.usage_report.enabled=false",
        f"server.memory.pagecache.size={pagecache}",
        f"server.directories.data={home / 'data'}",
        f"server.directories.logs={home / 'logs'}",
        f"server.directories.run={home / 'run'}",
        f"server.directories.plugins={home / 'plugins'}",
        f"server.directories.import={home / 'import'}",
        f"server.directories.transaction.logs.root={home / 'data' / 'transactions'}",
        # The graph is derived from the vault (a lost store is rebuilt by an ingest), so
        # transaction logs are kept for crash recovery only: Neo4j's default keeps two days of
        # them, which after a day of 100k-page benchmarks was 60 GB beside a 3.6 GB store.
        f"db.tx_log.rotation.retention_policy={TX_LOG_RETENTION}",
        # Once its connections are closed, the Bolt server's event loops wait for this many
        # quiet seconds (default 5, once per connector) before they end: 10 s of every stop,
        # which the offline import and the tests pay on each restart.
        f"internal.dbms.bolt.netty_server_shutdown_quiet_period={BOLT_SHUTDOWN_QUIET_S}",
    ]
    return "\n".join(lines) + "\n"


def _lay_out_home(home: Path, lib: Path, bolt_port: int, pagecache: str = "256m") -> None:
    """Create NEO4J_HOME's folders, point home/lib at the cached jars, write the conf."""
    for sub in ("conf", "data", "logs", "run", "plugins", "import"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    link = home / "lib"
    if link.is_symlink():
        if link.resolve() != lib.resolve():
            link.unlink()
    elif link.exists():
        raise LocalServerError(f"{link} is a real folder; remove it so vaultkg can link the jars")
    if not link.is_symlink():
        link.symlink_to(lib, target_is_directory=True)
    (home / "conf" / "neo4j.conf").write_text(render_conf(home, bolt_port, pagecache))


def _classpath(home: Path) -> str:
    return f"{home / 'lib'}/*"


def _neo4j_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["NEO4J_HOME"] = str(home)
    env["NEO4J_CONF"] = str(home / "conf")
    return env


def _set_initial_password(java: str, home: Path, password: str) -> None:
    """Set neo4j's password before the very first start; later it is fixed in the system db."""
    if (home / "data" / "databases" / "system").exists():
        return
    run_admin(java, home, ["dbms", "set-initial-password", password],
              "neo4j-admin set-initial-password", timeout=300)


def run_admin(java: str, home: Path, args: list[str], what: str, timeout: float) -> str:
    """Run neo4j-admin (`AdminTool`) on home with `args`; its output, or a LocalServerError
    naming `what` and the first line of the tool's own explanation."""
    cmd = [java, *ADD_OPENS, "-cp", _classpath(home), ADMIN_TOOL, *args]
    try:
        done = subprocess.run(
            cmd, cwd=home, env=_neo4j_env(home), capture_output=True, text=True,
            stdin=subprocess.DEVNULL, timeout=timeout, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        raise LocalServerError(f"{what} did not finish in {timeout:.0f} s") from exc
    if done.returncode != 0:
        raise LocalServerError(f"{what} failed: {_admin_reason(done)}")
    return done.stdout


_EXCEPTION = re.compile(r"^(?:Caused by: )?(?:[\w$]+\.)+[\w$]*(?:Exception|Error): ")


def _admin_reason(done: subprocess.CompletedProcess[str]) -> str:
    """The tool's own explanation: the innermost cause of a stack trace, else the first line
    that is neither a trace's frame nor a warning."""
    lines = [ln.strip() for ln in (done.stderr + done.stdout).splitlines()]
    causes = [ln for ln in lines if ln.startswith("Caused by: ")]
    if causes:
        return _EXCEPTION.sub("", causes[-1])
    useful = [ln for ln in lines
              if ln and not ln.startswith(("at ", "...", "WARNING", "Run with '--verbose'"))]
    return _EXCEPTION.sub("", useful[0]) if useful else f"exit code {done.returncode}"


def installed_version(home: Path) -> str | None:
    """The Neo4j version on home's classpath, read from the aggregator jar's name."""
    for jar in (home / "lib").glob("org.neo4j.neo4j-*.jar"):
        match = re.fullmatch(r"org\.neo4j\.neo4j-(\d+\.\d+\.\d+)\.jar", jar.name)
        if match:
            return match.group(1)
    return None


# ---------------------------------------------------------------------------------------------
# Processes and ports


def _is_alive(pid: int) -> bool:
    """True while pid is a live process (a zombie is not alive)."""
    child = _CHILDREN.get(pid)
    if child is not None:
        return child.poll() is None  # poll() reaps it; _wait_ready/_wait_gone forget it
    stat = Path(f"/proc/{pid}/stat")
    try:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        return fields[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_our_server(pid: int, home: Path) -> bool:
    """Guard against pid reuse: the process must be the entry point run for this home."""
    if not _is_alive(pid):
        return False
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return False
    except OSError:
        return True  # no /proc (not Linux): trust the pid file
    decoded = [a.decode(errors="replace") for a in args]
    return ENTRY_POINT in decoded and f"--home-dir={home}" in decoded


def running_pid(home: Path) -> int | None:
    """The pid of this home's server if it is running, from the pid file."""
    try:
        pid = int(pid_file(home).read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return pid if _is_our_server(pid, home) else None


def port_in_use(port: int, host: str = HOST) -> bool:
    """True if something already listens on host:port (TIME_WAIT leftovers do not count)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return True
    return False


def _terminate(pid: int, timeout: float = STOP_TIMEOUT_S) -> None:
    """SIGTERM (Neo4j's clean shutdown), then SIGKILL to the process group after timeout."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if _wait_gone(pid, timeout):
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)  # the server leads its own session and process group
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    if not _wait_gone(pid, 10.0):
        raise LocalServerError(f"Neo4j (pid {pid}) survived SIGKILL; check it by hand")


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    child = _CHILDREN.get(pid)
    if child is not None:
        try:
            child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        _CHILDREN.pop(pid, None)
        return True
    while _is_alive(pid):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.2)
    return True


def _log_tail(log: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = log.read_text(errors="replace").splitlines()
    except OSError:
        return f"  (no log at {log})"
    return "\n".join(f"  | {line}" for line in text[-lines:]) or f"  (empty log {log})"


# ---------------------------------------------------------------------------------------------
# Bolt


def _probe(uri: str, password: str, timeout: float = 5.0) -> None:
    """Raise unless Bolt accepts our password and runs RETURN 1."""
    with GraphDatabase.driver(
        uri,
        auth=(LOCAL_USER, password),
        connection_timeout=timeout,
        connection_acquisition_timeout=timeout,
        max_transaction_retry_time=0.0,
    ) as driver:
        driver.verify_connectivity()
        records, _, _ = driver.execute_query("RETURN 1 AS ok")
        if not records or records[0]["ok"] != 1:
            raise LocalServerError(f"{uri} answered RETURN 1 with {records!r}")


def bolt_answers(uri: str, password: str) -> bool:
    """One quick readiness probe, for status."""
    try:
        _probe(uri, password, timeout=3.0)
    except (DriverError, Neo4jError, OSError, LocalServerError):
        return False
    return True


# Between readiness probes: a start takes 3-6 s, and a refused connection costs nothing.
READY_POLL_S = 0.25


def _wait_ready(pid: int, uri: str, password: str, log: Path, timeout: float) -> None:
    """Wait until Bolt really answers; fail fast if the server exits or rejects the password."""
    deadline = time.monotonic() + timeout
    auth_failures = 0
    last_error = "no answer yet"
    while True:
        if not _is_alive(pid):
            child = _CHILDREN.pop(pid, None)
            code = child.returncode if child is not None else None
            meaning = f" ({_EXIT_MEANINGS[code]})" if code in _EXIT_MEANINGS else ""
            how = f"exited with code {code}{meaning}" if code is not None else "exited"
            raise LocalServerError(
                f"Neo4j {how} before Bolt answered on {uri}; last lines of {log}:\n"
                + _log_tail(log)
            )
        try:
            _probe(uri, password)
            return
        except AuthError as exc:
            auth_failures += 1
            last_error = f"{type(exc).__name__}: {exc}"
            if auth_failures >= 3:
                raise LocalServerError(
                    f"Neo4j at {uri} rejects the password from NEO4J_PASSWORD; it was fixed at "
                    f"first start: use that one, or stop and delete {log.parent.parent / 'data'}"
                ) from exc
        except (DriverError, Neo4jError, OSError, LocalServerError) as exc:
            last_error = f"{type(exc).__name__}: {exc}".splitlines()[0]
        if time.monotonic() >= deadline:
            raise LocalServerError(
                f"Neo4j (pid {pid}) did not answer on {uri} within {timeout:.0f} s "
                f"({last_error}); last lines of {log}:\n" + _log_tail(log)
            )
        time.sleep(READY_POLL_S)


# ---------------------------------------------------------------------------------------------
# start / stop / status


def _password(settings: Settings) -> str:
    password = settings.neo4j_password.get_secret_value()
    if len(password) < MIN_PASSWORD_LENGTH:
        raise LocalServerError(
            f"NEO4J_PASSWORD must have at least {MIN_PASSWORD_LENGTH} characters for Neo4j"
        )
    return password


def _memory_size(size: str, variable: str) -> str:
    """A JVM-style size (`1g`, `512m`), or a clear error naming the variable."""
    if not re.fullmatch(r"\d+[kKmMgG]?", size):
        raise LocalServerError(f"{variable}={size!r} is not a JVM size like 1g or 512m")
    return size


def _heap_flags(heap: str) -> list[str]:
    _memory_size(heap, "VAULTKG_NEO4J_HEAP")
    return [f"-Xms{heap}", f"-Xmx{heap}"]


def status(settings: Settings) -> ServerStatus:
    """Whether this home's server runs, and whether Bolt answers with our password."""
    home = neo4j_home(settings)
    pid = running_pid(home)
    uri = bolt_uri(settings)
    ready = pid is not None and bolt_answers(uri, settings.neo4j_password.get_secret_value())
    return ServerStatus(
        running=pid is not None,
        pid=pid,
        bolt_uri=uri,
        version=installed_version(home) or settings.neo4j_version,
        home=home,
        ready=ready,
    )


def start(settings: Settings) -> ServerStatus:
    """Start the server (fetching jars on first use) and return once Bolt answers."""
    began = time.monotonic()
    home = neo4j_home(settings)
    uri = bolt_uri(settings)
    password = _password(settings)
    heap = _heap_flags(settings.neo4j_heap)
    java = find_java()
    log = home / "logs" / CONSOLE_LOG
    with _locked(home / "run" / "vaultkg-neo4j.lock"):
        pid = running_pid(home)
        if pid is not None:  # already up, or still starting from another terminal
            _wait_ready(pid, uri, password, log, START_TIMEOUT_S)
            current = status(settings)
            return current.model_copy(update={"already_running": True, "ready": True})
        pid_file(home).unlink(missing_ok=True)
        if port_in_use(settings.neo4j_bolt_port):
            raise LocalServerError(
                f"port {settings.neo4j_bolt_port} on {HOST} is already in use by another "
                "process; stop it or choose another port with VAULTKG_NEO4J_BOLT_PORT"
            )
        lib = fetch_jars(settings)
        _lay_out_home(home, lib, settings.neo4j_bolt_port,
                      _memory_size(settings.neo4j_pagecache, "VAULTKG_NEO4J_PAGECACHE"))
        _set_initial_password(java, home, password)
        cmd = [
            java, *JVM_FLAGS, *heap, "-cp", _classpath(home), ENTRY_POINT,
            f"--home-dir={home}", f"--config-dir={home / 'conf'}", "--console-mode",
        ]  # fmt: skip
        with log.open("wb") as out:
            proc = subprocess.Popen(
                cmd, cwd=home, env=_neo4j_env(home), stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True,
            )  # fmt: skip
        _CHILDREN[proc.pid] = proc
        pid_file(home).write_text(f"{proc.pid}\n")
        try:
            _wait_ready(proc.pid, uri, password, log, START_TIMEOUT_S)
        except BaseException:
            if proc.poll() is None:  # never signal a pid that has already been reaped
                _terminate(proc.pid, timeout=10.0)
            _CHILDREN.pop(proc.pid, None)
            pid_file(home).unlink(missing_ok=True)
            raise
        return ServerStatus(
            running=True,
            pid=proc.pid,
            bolt_uri=uri,
            version=installed_version(home) or settings.neo4j_version,
            home=home,
            ready=True,
            startup_seconds=round(time.monotonic() - began, 1),
        )


def drop_store(settings: Settings) -> None:
    """Delete the database's store and transaction logs, so the next start finds it empty
    (the server must be stopped: the offline import's failure, the import benchmark)."""
    home = neo4j_home(settings)
    for folder in ("databases", "transactions"):
        shutil.rmtree(home / "data" / folder / settings.neo4j_database, ignore_errors=True)


def stop(settings: Settings) -> None:
    """Stop this home's server cleanly (SIGKILL after 60 s); harmless when it is not running."""
    home = neo4j_home(settings)
    if not home.exists():
        return
    with _locked(home / "run" / "vaultkg-neo4j.lock"):
        pid = running_pid(home)
        if pid is not None:
            _terminate(pid)
        pid_file(home).unlink(missing_ok=True)
