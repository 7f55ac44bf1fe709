"""The team deployment under load: ``chatcli serve`` replicas behind Debian's nginx (round
robin) sharing one sessions store, against one replica on SQLite, in the same run.

An OpenAI wire server (chatcli-testing's, in this process) answers every message with a
``--tokens``-token answer naming the message, one token a chunk, ``--delay`` seconds apart.
``--clients`` clients (asyncio, httpx) each hold one session of ``--turns`` turns: the first
message creates the session (``POST /api/sessions`` with ``text``), the others follow it
(``POST …/messages``), each with its own id, each turn's SSE answer read to ``done``. Phases:

1. **baseline**: one replica on SQLite, the clients straight at it;
2. **team**: ``--replicas`` replicas behind nginx on one store (``--backend sqlite``: one data
   folder; ``postgres``: a throwaway PostgreSQL server, ``[sessions] backend = "postgres"``) —
   consecutive turns of a session land on different replicas;
3. **fault**: the same team, new sessions; once half the turns are done one replica is killed
   (``kill -9``); a client whose stream was cut (or that got a 502) sends the same message
   again (same id) and the others go on with its session.

Figures: turns per second (and the ratio to the baseline), each turn's latency (POST sent →
``done`` read) at p50/p95 and what the team adds to the baseline's, errors (a turn that failed
after 5 tries), and each session read back through the balancer at the end: messages lost,
duplicated or out of order against what its client sent and was answered (all must be 0).
Printed, never asserted. Loopback only; everything runs in a temporary folder removed at the
end; ``--timeout`` (600 s) stops it all.

Run: .venv/bin/python bench/team.py [--clients 30] [--turns 10] [--replicas 3]
[--backend sqlite|postgres] [--tokens 50] [--delay 0.002] [--no-fault]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

KEY = "sk-bench-team-0123456789"
CHATCLI = Path(sys.executable).parent / "chatcli"
TRIES = 5


def answer_for(text: str, tokens: int) -> str:
    """The model's answer to ``text``: names it, then ``tokens`` filler tokens."""
    return f"answer to [{text}] " + "".join(f"t{i:04d} " for i in range(tokens))


def make_model(tokens: int, delay: float) -> Any:
    """The wire server: each request answered with :func:`answer_for` its last user message,
    one 6-character token a chunk."""
    from chatcli_testing import OpenAIServer, Reply

    class Model(OpenAIServer):
        def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
            body = request.json if isinstance(request.json, dict) else {}
            last = ""
            for message in body.get("messages") or []:
                if message.get("role") == "user":
                    content = message.get("content")
                    last = content if isinstance(content, str) else "".join(
                        str(p.get("text", "")) for p in content or [] if isinstance(p, dict))
            reply = Reply(text=answer_for(last, tokens), chunk_size=6, delay=delay)
            model = body.get("model") or self.default_model
            if stream:
                self.run_stream(exchange, self.stream_events(reply, model, body), reply, None)
            else:
                self.send_full(exchange, reply, model, body, None)

    return Model()


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values`` (0 for none)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------------------ processes


@dataclass
class Home:
    """A chatcli home shared by a phase's replicas: its environment and a token."""

    folder: Path
    env: dict[str, str]
    project: Path
    token: str = ""


def make_home(folder: Path, model_url: str, config: str = "") -> Home:
    project = folder / "project"
    (project / ".git").mkdir(parents=True)
    (folder / "config").mkdir(parents=True)
    (folder / "config" / "config.toml").write_text(
        "[serve]\nmax_connections = 5000\n[serve.rate]\nper_minute = 10000000\n"
        "burst = 1000000\n" + config)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")
           and k != "DATABASE_URL"}
    env.update(CHATCLI_CONFIG_DIR=str(folder / "config"), CHATCLI_DATA_DIR=str(folder / "data"),
               CHATCLI_CACHE_DIR=str(folder / "cache"), HOME=str(folder),
               CHATCLI_PROVIDER="openai", CHATCLI_MODEL="gpt-test", OPENAI_API_KEY=KEY,
               OPENAI_BASE_URL=model_url)
    made = subprocess.run([str(CHATCLI), "serve", "token", "create", "--name", "bench",
                           "--root", str(project)], env=env, cwd=project, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    if made.returncode:
        raise SystemExit(f"chatcli serve token create failed:\n{made.stderr}")
    home = Home(folder, env, project)
    home.token = next(word for word in made.stdout.split() if word.startswith("ccs_"))
    return home


@dataclass
class Replica:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    boot: str = ""


def start_replica(home: Home, name: str) -> Replica:
    port_file = home.folder / f"{name}.port"
    log = (home.folder / f"{name}.log").open("wb")
    process = subprocess.Popen([str(CHATCLI), "serve", "--port", "0", "--port-file",
                                str(port_file), "--workspace", str(home.project)],
                               env=home.env, cwd=home.project, stdout=log,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    log.close()
    deadline = time.monotonic() + 60
    while not (port_file.exists() and port_file.read_text().strip()):
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"chatcli serve ({name}) did not start:\n"
                             + (home.folder / f"{name}.log").read_text(errors="replace"))
        time.sleep(0.05)
    return Replica(name, process, int(port_file.read_text()))


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def nginx(folder: Path, upstreams: list[int]) -> Iterator[str]:
    """Debian's nginx round robin over ``upstreams`` (``chatcli serve nginx-config``'s
    configuration): its URL."""
    from chatcli_remote.serve.nginx import standalone_config

    binary = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists()
                                       else None)
    if binary is None:
        raise SystemExit("nginx is not installed: apt-get install nginx-light (.ci/run does)")
    folder.mkdir(parents=True)
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(standalone_config(folder, [f"127.0.0.1:{p}" for p in upstreams], port))
    log = (folder / "nginx.log").open("wb")
    process = subprocess.Popen([binary, "-p", str(folder), "-c", str(conf)], stdout=log,
                               stderr=log, stdin=subprocess.DEVNULL)
    log.close()
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("nginx did not start:\n" + (folder / "error.log").read_text(
                        errors="replace")) from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process, signal.SIGQUIT)


@contextmanager
def postgres(enabled: bool) -> Iterator[str]:
    """The ``[sessions]`` config of a throwaway PostgreSQL database ("" without)."""
    if not enabled:
        yield ""
        return
    from chatcli_testing.postgres_server import PASSWORD_ROLE, PostgresServer

    saved = tempfile.tempdir
    if Path("/dev/shm").is_dir() and os.access("/dev/shm", os.W_OK):
        tempfile.tempdir = "/dev/shm"
    try:
        server = PostgresServer().start()
    finally:
        tempfile.tempdir = saved
    try:
        url = server.team_url(server.create_database(owner=PASSWORD_ROLE))
        yield f'[sessions]\nbackend = "postgres"\npostgres_url = "{url}"\n'
    finally:
        server.stop()


# ------------------------------------------------------------------------------ the clients


@dataclass
class Stats:
    """What a phase's clients saw."""

    latencies: list[float] = field(default_factory=list)
    turns: int = 0
    errors: list[str] = field(default_factory=list)
    retries: int = 0
    #: messages sent again whose answer had been stored before their stream was cut (409
    #: MessageSent: answered, not counted in ``turns``)
    answered_before: int = 0
    sessions: dict[str, list[str]] = field(default_factory=dict)  # id -> messages sent
    boots: dict[str, set[str]] = field(default_factory=dict)  # id -> replicas that answered
    wall: float = 0.0


async def read_turn(response: Any) -> tuple[bool, str, str]:
    """(whether ``done`` came, the session id from ``turn_started``, the first event's id)."""
    kind, sid, first = "", "", ""
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("id:") and not first:
            first = line[3:].strip()
        elif line.startswith("data:"):
            if kind == "turn_started":
                sid = str(json.loads(line[5:]).get("session", ""))
            elif kind == "done":
                return True, sid, first
        elif not line:
            kind = ""
    return False, sid, first


async def one_turn(client: Any, sid: str | None, text: str, mid: str, stats: Stats
                   ) -> str | None:
    """Send ``text`` (id ``mid``) until it is answered (``TRIES`` tries): the session's id,
    or None after an error."""
    for attempt in range(TRIES):
        if attempt:
            stats.retries += 1
            await asyncio.sleep(0.2 * attempt)
        path = f"/api/sessions/{sid}/messages" if sid else "/api/sessions"
        began = time.monotonic()
        try:
            async with client.stream("POST", path, json={"text": text, "id": mid}) as response:
                if response.status_code == 409:
                    body = json.loads(await response.aread() or b"{}")
                    if body.get("error", {}).get("type") == "MessageSent":
                        stats.answered_before += 1
                        return sid  # an earlier try was answered after all
                    continue
                if response.status_code == 404 and sid:
                    sid = None  # its first turn never got an answer stored: start again
                    continue
                if response.status_code >= 300:
                    await response.aread()
                    continue
                done, started, first = await read_turn(response)
                sid = started or sid
        except Exception:  # a cut connection: try again
            continue
        if done:
            stats.latencies.append((time.monotonic() - began) * 1000)
            stats.turns += 1
            if sid:
                stats.boots.setdefault(sid, set()).add(first.split("-")[0])
            return sid
    stats.errors.append(f"{text}: no answer after {TRIES} tries")
    return None


async def conversation(client: Any, number: int, turns: int, stats: Stats, phase: str) -> None:
    sid: str | None = None
    sent: list[str] = []
    for turn in range(1, turns + 1):
        text = f"{phase} c{number} m{turn}"
        got = await one_turn(client, sid, text, uuid.uuid4().hex, stats)
        if got is None:
            return
        sid = got
        sent.append(text)
        stats.sessions[sid] = sent


async def run_clients(url: str, token: str, clients: int, turns: int, phase: str,
                      on_half: Any = None) -> Stats:
    import httpx

    stats = Stats()
    limits = httpx.Limits(max_connections=clients + 10, max_keepalive_connections=clients + 10)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(120, read=300), limits=limits) as client:
        began = time.monotonic()
        watcher = None
        if on_half is not None:
            async def half() -> None:
                while stats.turns < clients * turns // 2:
                    await asyncio.sleep(0.02)
                await asyncio.to_thread(on_half)

            watcher = asyncio.create_task(half())
        await asyncio.gather(*(conversation(client, n, turns, stats, phase)
                               for n in range(clients)))
        stats.wall = time.monotonic() - began
        if watcher is not None:
            watcher.cancel()
    return stats


async def check(url: str, token: str, stats: Stats, tokens: int) -> tuple[int, int, int]:
    """Each session read back through ``url``: (messages lost, duplicated, sessions out of
    order) against what its client sent and was answered."""
    import httpx

    lost = duplicated = disordered = 0
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=120) as client:
        for sid, sent in stats.sessions.items():
            response = await client.get(f"/api/sessions/{sid}")
            if response.status_code != 200:
                lost += 2 * len(sent)
                continue
            got = [(m["role"], m["text"]) for m in response.json()["messages"]]
            want = [pair for text in sent
                    for pair in (("user", text), ("assistant", answer_for(text, tokens)))]
            lost += sum(1 for pair in want if pair not in got)
            duplicated += len(got) - len(set(got))
            if [pair for pair in got if pair in want] != want:
                disordered += 1
    return lost, duplicated, disordered


async def warm(url: str, token: str) -> str:
    """One turn straight at a replica (imports, the provider's client): its boot."""
    import httpx

    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=120) as client:
        stats = Stats()
        await one_turn(client, None, "warm up", uuid.uuid4().hex, stats)
        return next(iter(next(iter(stats.boots.values()), {""})))


# ------------------------------------------------------------------------------ the table


def line(name: str, stats: Stats, base: Stats | None, checked: tuple[int, int, int]) -> str:
    rate = stats.turns / stats.wall if stats.wall else 0.0
    p50, p95 = pct(stats.latencies, 0.5), pct(stats.latencies, 0.95)
    if base is not None:
        ratio = rate / (base.turns / base.wall) if base.turns else 0.0
        added = f"{p50 - pct(base.latencies, 0.5):+8.1f} {p95 - pct(base.latencies, 0.95):+8.1f}"
        rated = f"{ratio:5.2f}x"
    else:
        added, rated = f"{'':>8} {'':>8}", f"{'':>6}"
    lost, duplicated, disordered = checked
    return (f"  {name:<28} {stats.turns:>5} {rate:7.1f} {rated} {p50:8.1f} {p95:8.1f} {added} "
            f"{len(stats.errors):>4} {lost:>4} {duplicated:>4} {disordered:>4}")


def run(args: argparse.Namespace, root: Path) -> int:
    model = make_model(args.tokens, args.delay)
    with model:
        # 1. the baseline: one replica on SQLite, no balancer
        home = make_home(root / "single", model.url)
        single = start_replica(home, "single")
        try:
            url = f"http://127.0.0.1:{single.port}"
            asyncio.run(warm(url, home.token))
            base = asyncio.run(run_clients(url, home.token, args.clients, args.turns, "base"))
            base_checked = asyncio.run(check(url, home.token, base, args.tokens))
        finally:
            stop(single.process)
        # 2. and 3. the team
        with postgres(args.backend == "postgres") as config:
            team_home = make_home(root / "team", model.url, config)
            replicas = [start_replica(team_home, f"r{n}") for n in range(1, args.replicas + 1)]
            try:
                for replica in replicas:
                    replica.boot = asyncio.run(warm(f"http://127.0.0.1:{replica.port}",
                                                    team_home.token))
                with nginx(root / "nginx", [r.port for r in replicas]) as url:
                    team = asyncio.run(run_clients(url, team_home.token, args.clients,
                                                   args.turns, "team"))
                    team_checked = asyncio.run(check(url, team_home.token, team, args.tokens))
                    fault = killed = None
                    if not args.no_fault:
                        killed = replicas[len(replicas) // 2]
                        victim = killed

                        def kill() -> None:
                            os.kill(victim.process.pid, signal.SIGKILL)

                        fault = asyncio.run(run_clients(url, team_home.token, args.clients,
                                                        args.turns, "fault", kill))
                        fault_checked = asyncio.run(check(url, team_home.token, fault,
                                                          args.tokens))
            finally:
                for replica in replicas:
                    stop(replica.process)
    print(f"chatcli serve for a team: {args.clients} clients x {args.turns} turns, answers of "
          f"{args.tokens} tokens (one every {args.delay * 1000:.1f} ms); {args.replicas} "
          f"replicas behind nginx (round robin) on {args.backend}, against one replica on "
          f"SQLite; turn latency = POST sent -> done read, ms")
    print(f"  {'':<28} {'turns':>5} {'turns/s':>7} {'ratio':>6} {'p50':>8} {'p95':>8} "
          f"{'+p50':>8} {'+p95':>8} {'err':>4} {'lost':>4} {'dup':>4} {'ord':>4}")
    print(line("one replica, SQLite", base, None, base_checked))
    print(line(f"{args.replicas} replicas + nginx, {args.backend}", team, base, team_checked))
    spread = sum(1 for boots in team.boots.values() if len(boots) > 1)
    print(f"  sessions answered by more than one replica: {spread} of {len(team.boots)}")
    if fault is not None and killed is not None:
        print(line("  ... one killed mid-run", fault, base, fault_checked))
        hit = [sid for sid, boots in fault.boots.items() if killed.boot in boots]
        went_on = [sid for sid in hit if len(fault.boots[sid] - {killed.boot})
                   and len(fault.sessions.get(sid, [])) == args.turns]
        print(f"  fault: {killed.name} killed (kill -9) after {args.clients * args.turns // 2} "
              f"turns; {fault.retries} turns sent again ({fault.answered_before} of them answered "
              f"already: 409 MessageSent); {len(hit)} sessions it had answered, {len(went_on)} "
              f"of them continued by the others to their last turn")
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (the bench's "
          f"clients and wire server share them)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--delay", type=float, default=0.002)
    parser.add_argument("--no-fault", action="store_true", help="skip the killed replica")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    if args.turns < 2 or args.clients < 1 or args.replicas < 2:
        parser.error("--turns needs 2 or more, --clients 1 or more, --replicas 2 or more")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("bench/team.py: stopped (--timeout or "
                                                      "SIGTERM)"))  # the finally blocks run
    timer = threading.Timer(args.timeout, lambda: os.kill(os.getpid(), signal.SIGTERM))
    timer.daemon = True
    timer.start()
    with tempfile.TemporaryDirectory(prefix="chatcli-team-bench-") as folder:
        return run(args, Path(folder))


if __name__ == "__main__":
    raise SystemExit(main())
