"""What the team-deployment tests share: the model (a wire server answering each message by
name), ``chatcli serve`` replicas sharing one data folder (or one PostgreSQL database), Debian's
nginx in front of them (round robin, SSE passed through) and a client of the balancer that
reads a turn's SSE answer.

(Imported by its bare name: pytest puts this folder on ``sys.path``.)
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from chatcli_remote.client_sse import SseEvent, decode, split_lines
from chatcli_remote.serve.nginx import standalone_config
from chatcli_testing import OpenAIServer, Reply
from process_support import CHATCLI, openai_env, process_env

__all__ = ["FAKE_KEY", "EchoModel", "Nginx", "Replica", "Team", "TurnResult", "answer_for",
           "free_port", "nginx_binary", "post_turn", "session_messages", "start_team",
           "stop_team"]

#: The provider key the replicas get: it must never appear in a response.
FAKE_KEY = "sk-test-team-4c2d9e7a1b"
#: A message holding this word is answered in two halves: the second waits for ``release``.
HOLD = "HOLD"


def answer_for(text: str) -> str:
    """The model's answer to the user message ``text`` (so a test knows what each turn said)."""
    return f"answer to [{text}] " + "lorem ipsum " * 8


class EchoModel(OpenAIServer):
    """An OpenAI wire server answering each request with :func:`answer_for` its last user
    message. A message holding :data:`HOLD` gets its first chunk, then waits for
    :attr:`release` (a test's event) before the rest: the answer is provably unfinished while
    the test looks at what reached the client. Every request's messages are kept
    (:attr:`seen`: the list of (role, text) the model was sent, per request)."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.holding = threading.Event()
        self.seen: list[list[tuple[str, str]]] = []

    def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
        body = request.json if isinstance(request.json, dict) else {}
        messages = [(str(m.get("role")), _content(m.get("content")))
                    for m in body.get("messages") or [] if m.get("role") != "system"]
        with self._lock:
            self.seen.append(messages)
        last = next((text for role, text in reversed(messages) if role == "user"), "")
        reply = Reply(text=answer_for(last), chunk_size=12)
        model = body.get("model") or self.default_model
        if HOLD in last:
            write = exchange.write
            chunks = 0

            def held(data: bytes) -> bool:
                nonlocal chunks
                if _text_of(data):
                    chunks += 1
                    if chunks == 2:  # the first piece of text is out: wait for the test
                        self.holding.set()
                        self.release.wait(120)
                return bool(write(data))

            exchange.write = held
        if stream:
            self.run_stream(exchange, self.stream_events(reply, model, body), reply, None)
        else:
            self.send_full(exchange, reply, model, body, None)


def _text_of(data: bytes) -> str:
    """The answer text a wire chunk (``data: {…}``) carries ("" for any other write)."""
    if not data.startswith(b"data: {"):
        return ""
    try:
        chunk = json.loads(data[6:])
    except ValueError:
        return ""
    return "".join(str((choice.get("delta") or {}).get("content") or "")
                   for choice in chunk.get("choices") or [])


def _content(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content or "")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def nginx_binary() -> str | None:
    """Debian's nginx (``nginx-light``), or None when it is not installed."""
    return shutil.which("nginx") or next(
        (str(p) for p in (Path("/usr/sbin/nginx"),) if p.exists()), None)


@dataclass
class Nginx:
    """Debian's nginx, in the foreground, its files in ``folder``."""

    folder: Path
    upstreams: list[int]
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30) -> Nginx:
        binary = nginx_binary()
        assert binary is not None, "nginx is not installed: apt-get install nginx-light"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = self.port or free_port()
        conf = self.folder / "nginx.conf"
        conf.write_text(standalone_config(self.folder, [f"127.0.0.1:{p}" for p in self.upstreams],
                                          self.port))
        check = subprocess.run([binary, "-t", "-p", str(self.folder), "-c", str(conf)],
                               capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stderr
        log = (self.folder / "nginx.stderr").open("wb")
        self.process = subprocess.Popen([binary, "-p", str(self.folder), "-c", str(conf)],
                                        stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        raise AssertionError(f"nginx did not start: {self.log()}")

    def log(self) -> str:
        parts = [self.folder / "nginx.stderr", self.folder / "error.log"]
        return "\n".join(p.read_text(errors="replace") for p in parts if p.exists())

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: ends after open streams
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


@dataclass
class Replica:
    """One ``chatcli serve --port 0 --port-file F`` process."""

    name: str
    folder: Path
    env: dict[str, str]
    cwd: Path
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> Replica:
        self.folder.mkdir(parents=True, exist_ok=True)
        port_file = self.folder / "port"
        port_file.unlink(missing_ok=True)
        # a fixed port once known: nginx's upstream stays valid when the replica restarts
        args = ["--port", str(self.port), "--port-file", str(port_file)]
        out = (self.folder / "stdout").open("ab")
        err = (self.folder / "stderr").open("ab")
        self.process = subprocess.Popen([str(CHATCLI), "serve", *args], env=self.env,
                                        cwd=self.cwd, stdout=out, stderr=err,
                                        stdin=subprocess.DEVNULL)
        out.close()
        err.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if port_file.exists() and port_file.read_text().strip():
                self.port = int(port_file.read_text())
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"replica {self.name} did not start: {self.log()}")

    def log(self) -> str:
        path = self.folder / "stderr"
        return path.read_text(errors="replace") if path.exists() else ""

    def kill(self) -> None:
        """``kill -9``."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> int | None:
        if self.process is None or self.process.poll() is not None:
            return None
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            return -9


@dataclass
class Team:
    """Replicas sharing one store behind nginx; ``token`` may use ``root``."""

    home: Path
    env: dict[str, str]
    root: Path
    token: str
    replicas: list[Replica] = field(default_factory=list)
    nginx: Nginx | None = None

    @property
    def url(self) -> str:
        assert self.nginx is not None
        return self.nginx.url

    def client(self, headers: dict[str, str] | None = None, **kwargs: Any) -> httpx.Client:
        """An httpx client of the balancer (the token as the bearer; more ``headers``)."""
        return httpx.Client(base_url=self.url, timeout=120,
                            headers={"Authorization": f"Bearer {self.token}", **(headers or {})},
                            **kwargs)

    def direct(self, replica: Replica) -> httpx.Client:
        """An httpx client of one replica, past the balancer."""
        return httpx.Client(base_url=f"http://127.0.0.1:{replica.port}", timeout=120,
                            headers={"Authorization": f"Bearer {self.token}"})

    def logs(self) -> str:
        return "\n".join(f"--- {r.name}\n{r.log()}" for r in self.replicas) + \
            ("\n--- nginx\n" + self.nginx.log() if self.nginx else "")


def start_team(home: Path, model: OpenAIServer, count: int = 3, config: str = "",
               **env: str) -> Team:
    """``count`` replicas in one chatcli home (one data folder: one sessions store, or the
    PostgreSQL database the ``config`` names), a token made by the real command, and nginx."""
    root = home / "roots" / "team"
    (root / ".git").mkdir(parents=True, exist_ok=True)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(
        "[serve.rate]\nper_minute = 1000000\nburst = 100000\n" + config)
    environment = process_env(home, **openai_env(model, FAKE_KEY),
                              CHATCLI_CACHE_DIR=str(home / "cache"), CHATCLI_PROVIDER="openai",
                              CHATCLI_MODEL="gpt-test", **env)
    made = subprocess.run([str(CHATCLI), "serve", "token", "create", "--name", "team",
                           "--root", str(root)], env=environment, capture_output=True,
                          text=True, timeout=60, cwd=root)
    assert made.returncode == 0, made.stderr
    team = Team(home, environment, root, made.stdout.strip())
    try:
        for number in range(1, count + 1):
            team.replicas.append(Replica(f"r{number}", home / "replicas" / f"r{number}",
                                         environment, root).start())
        team.nginx = Nginx(home / "nginx", [r.port for r in team.replicas]).start()
    except BaseException:
        stop_team(team)
        raise
    return team


def stop_team(team: Team) -> list[int | None]:
    """Stop nginx and every replica; their exit codes (None: not running any more)."""
    if team.nginx is not None:
        team.nginx.stop()
    return [replica.stop() for replica in team.replicas]


@dataclass
class TurnResult:
    """What one streamed turn gave: its status, headers and events (``done``: it ended)."""

    status: int
    headers: dict[str, str]
    events: list[SseEvent]
    error: str = ""

    @property
    def done(self) -> bool:
        return any(e.kind == "done" for e in self.events)

    @property
    def text(self) -> str:
        return "".join(str(e.data.get("delta", "")) for e in self.events if e.kind == "text")

    @property
    def session(self) -> str:
        started = next((e for e in self.events if e.kind == "turn_started"), None)
        return str(started.data.get("session", "")) if started is not None else ""

    def json(self) -> Any:
        return json.loads(self.error) if self.error else None


def post_turn(client: httpx.Client, path: str, body: dict[str, Any],
              on_event: Any = None) -> TurnResult:
    """POST ``body`` to ``path`` and read the SSE answer to its end (a cut stream ends it
    early: ``done`` is then False). ``on_event(event)`` sees each event as it arrives."""
    events: list[SseEvent] = []
    try:
        with client.stream("POST", path, json=body) as response:
            if response.status_code >= 300 or \
                    not response.headers.get("content-type", "").startswith("text/event-stream"):
                return TurnResult(response.status_code, dict(response.headers), [],
                                  response.read().decode(errors="replace"))
            for event in decode(split_lines(response.iter_text())):
                events.append(event)
                if on_event is not None:
                    on_event(event)
                if event.kind == "done":
                    break
            return TurnResult(response.status_code, dict(response.headers), events)
    except httpx.HTTPError as err:
        return TurnResult(0, {}, events, f"{type(err).__name__}: {err}")


def session_messages(client: httpx.Client, sid: str) -> list[tuple[str, str]]:
    """(role, text) of the session's current path, as a replica reads it now."""
    response = client.get(f"/api/sessions/{sid}")
    assert response.status_code == 200, response.text
    return [(m["role"], m["text"]) for m in response.json()["messages"]]


def iter_replicas(team: Team) -> Iterator[Replica]:
    """The replicas still running."""
    return (r for r in team.replicas if r.process is not None and r.process.poll() is None)
