"""A throwaway PostgreSQL server for tests and benchmarks, from the installed binaries.

``PostgresServer`` runs ``initdb`` in a fresh folder and starts ``postgres`` on a free loopback
port (fsync off: nothing here needs to survive a crash), then removes everything on
:meth:`PostgresServer.stop`. PostgreSQL refuses to run as root, so under root the server runs as
the ``postgres`` user (Debian's package creates it; ``nobody`` otherwise); if the test process
dies, the server gets SIGINT (``setpriv --pdeathsig``) and shuts down.

Only the standard library: administration goes through the server's own ``psql``. Debian's
``postgresql`` package provides the binaries (``.ci/run`` installs it); elsewhere point
``CHATCLI_PG_BINDIR`` at the folder holding ``initdb`` and ``postgres``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from types import TracebackType
from typing import Self
from urllib.parse import quote

__all__ = ["PostgresServer", "PostgresUnavailable", "find_bindir"]

#: The role with a password that every server has (its URLs go over TCP with SCRAM).
PASSWORD_ROLE = "chatcli_team"

_HBA = """\
# chatcli_testing.postgres_server: the superuser needs no password, every other role does.
local all all                trust
host  all postgres 127.0.0.1/32 trust
host  all all      127.0.0.1/32 scram-sha-256
"""


class PostgresUnavailable(RuntimeError):
    """PostgreSQL's binaries are missing, or the server would not start (the message says
    why and how to get them)."""


def find_bindir() -> Path | None:
    """The folder with ``initdb`` and ``postgres``: ``CHATCLI_PG_BINDIR``, else Debian's
    ``/usr/lib/postgresql/<newest>/bin``, else wherever ``initdb`` is on ``PATH``."""
    candidates: list[Path] = []
    if os.environ.get("CHATCLI_PG_BINDIR"):
        candidates.append(Path(os.environ["CHATCLI_PG_BINDIR"]))
    debian = sorted(Path("/usr/lib/postgresql").glob("*/bin"),
                    key=lambda p: [int(n) for n in re.findall(r"\d+", p.parent.name)] or [0],
                    reverse=True)
    candidates.extend(debian)
    for name in ("initdb", "pg_ctl"):
        found = shutil.which(name)
        if found:
            candidates.append(Path(found).resolve().parent)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    return None


def _server_user() -> str | None:
    """Who runs the server: None for the current user, a system account under root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            pwd.getpwnam(name)
            return name
    raise PostgresUnavailable("PostgreSQL cannot run as root and this machine has no "
                              "'postgres' user: install Debian's postgresql package "
                              "(.ci/run does)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A private PostgreSQL server (see the module's docstring). Use it as a context manager
    or call :meth:`start` and :meth:`stop`."""

    host = "127.0.0.1"

    def __init__(self, bindir: Path | None = None) -> None:
        found = bindir or find_bindir()
        if found is None:
            raise PostgresUnavailable(
                "PostgreSQL's binaries (initdb, postgres) are not installed: .ci/run installs "
                "Debian's postgresql package (apt-get install postgresql), or set "
                "CHATCLI_PG_BINDIR")
        self.bindir = found
        self.user = _server_user()
        self.port = 0
        self.base: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None

    # ------------------------------------------------------------------ lifetime

    def start(self) -> Self:
        """initdb, then start the server and wait until it accepts connections."""
        self.base = Path(tempfile.mkdtemp(prefix="chatcli-pg-"))
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        assert self.base is not None
        self.base.chmod(0o755)
        if self.user:
            shutil.chown(self.base, self.user)
        self._run([str(self.bindir / "initdb"), "-D", str(self.data), "-U", "postgres",
                   "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "-N"])
        (self.data / "pg_hba.conf").write_text(_HBA)
        for attempt in range(5):
            self.port = _free_port()
            if self._launch():
                break
            if attempt == 4:
                raise PostgresUnavailable(f"PostgreSQL would not start: {self._log_tail()}")
        self.psql(f"CREATE ROLE {PASSWORD_ROLE} LOGIN PASSWORD '{self.password}' CREATEDB")

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its files."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.base is not None:
            shutil.rmtree(self.base, ignore_errors=True)
            self.base = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._proc is not None and self._proc.poll() is None

    # ------------------------------------------------------------------ using it

    @property
    def data(self) -> Path:
        """The data directory."""
        assert self.base is not None, "the server is not started"
        return self.base / "data"

    @property
    def password(self) -> str:
        """The password of :data:`PASSWORD_ROLE` (fixed per server)."""
        return f"pw-{self.port}-s3cret"

    def url(self, dbname: str = "postgres", *, user: str = "postgres",
            password: str | None = None) -> str:
        """A ``postgresql://`` URL over TCP to ``dbname`` as ``user``."""
        auth = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
        return f"postgresql://{auth}@{self.host}:{self.port}/{quote(dbname, safe='')}"

    def team_url(self, dbname: str) -> str:
        """A URL as a team member would have it: the password role, its password."""
        return self.url(dbname, user=PASSWORD_ROLE, password=self.password)

    def psql(self, command: str, dbname: str = "postgres") -> str:
        """Run SQL as the superuser; returns psql's unaligned output."""
        done = subprocess.run(
            [str(self.bindir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
             "-h", str(self.base), "-p", str(self.port), "-U", "postgres", "-d", dbname,
             "-c", command],
            capture_output=True, text=True, timeout=120, check=False)
        if done.returncode:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def create_database(self, name: str | None = None, *, owner: str = "postgres") -> str:
        """A new, empty database (a fresh name by default); returns its name."""
        name = name or f"db_{uuid.uuid4().hex[:12]}"
        self.psql(f'CREATE DATABASE "{name}" OWNER "{owner}"')
        return name

    # ------------------------------------------------------------------ internals

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, capture_output=True, text=True, user=self.user,
                              env=self._env(), timeout=120, check=False)
        if done.returncode:
            raise PostgresUnavailable(f"{Path(argv[0]).name} failed: "
                                      f"{(done.stderr or done.stdout).strip()[-500:]}")

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update(LC_ALL="C.UTF-8", LANG="C.UTF-8")
        return env

    def _launch(self) -> bool:
        """Start ``postgres``; True once it accepts connections, False if it exited (the
        port was taken)."""
        assert self.base is not None
        argv = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port),
                "-k", str(self.base), "-c", f"listen_addresses={self.host}",
                "-c", "fsync=off", "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off", "-c", "shared_buffers=32MB",
                "-c", "max_connections=60", "-c", "logging_collector=off"]
        setpriv = shutil.which("setpriv")
        if setpriv:  # the server dies with its parent; under root it also drops to the user
            ids = (["--reuid", self.user, "--regid", self.user, "--init-groups"]
                   if self.user else [])
            argv = [setpriv, "--pdeathsig", "INT", *ids, "--", *argv]
        log = (self.base / "server.log").open("ab")
        try:
            self._proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self._env(),
                user=None if setpriv else self.user, start_new_session=True)
        finally:
            log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return False
            ready = subprocess.run(
                [str(self.bindir / "pg_isready"), "-q", "-h", str(self.base),
                 "-p", str(self.port)], check=False, timeout=30)
            if ready.returncode == 0:
                return True
            time.sleep(0.05)
        self.stop()
        raise PostgresUnavailable(f"PostgreSQL did not start within 60 s: {self._log_tail()}")

    def _log_tail(self) -> str:
        if self.base is None:
            return "(no log)"
        try:
            lines = (self.base / "server.log").read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(lines[-5:])
