"""What ``chatcli serve`` adds to each streamed event, and what an idle session costs it.

An OpenAI wire server (chatcli-testing's, in this process) streams a 2,000-token answer (one
token a chunk, ``--delay`` seconds apart) and stamps when each chunk left it
(``time.monotonic()`` as the socket write starts; the clock is the machine's, shared with every
process). Each event's delay is the moment its text arrived less the moment the chunk that ended
it was sent. Measured in the same run:

1. **baseline**: the engine in this process (``Session.run`` with the openai provider) reading
   the answer — the SDK's and the engine's own delay per event;
2. **served, one session**: a real ``chatcli serve`` (its own process, a temporary home): one
   ``POST /api/sessions/{id}/messages``, its SSE stream read with httpx;
3. **served, crowded**: 20 sessions posting at once (20 SSE answers) while 50 more clients
   watch session 1 (``GET …/events``) — every event of session 1 goes out 51 times;
4. **memory per idle session**: the server's VmRSS (``/proc/PID/status``) before and after
   opening 200 more sessions (``POST /api/sessions``), divided by 200.

The figure is the added latency, served − baseline, at p50 and p95 (goal p95 ≤ 50 ms under the
crowd). The bench process runs the wire server and every client, so its own load shows in both
the baseline and the served figures. The 70 clients read 7,000 events a second between them, so they
run on uvloop when it is installed: their own queueing then weighs less in what they measure
(on an idle machine, p95 under the crowd +24 to +26 ms with uvloop's loop, +33 ms with
asyncio's; ``--client-loop asyncio`` measures with asyncio's, to compare). Printed, never
asserted. Loopback only; a hard timeout (``--timeout``, 300 s) stops everything; the temporary
home and the server go away at the end.

Run: .venv/bin/python bench/server.py [--tokens 2000] [--delay 0.01] [--sessions 20]
[--watchers 50] [--idle 200] [--client-loop uvloop|asyncio]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOAL_MS = 50.0
KEY = "sk-bench-server-0123456789"
CHATCLI = Path(sys.executable).parent / "chatcli"
_MARK = re.compile(r"BENCH-\w+")

#: (characters of the answer sent so far, when) per chunk, for one request
Marks = list[tuple[int, float]]
#: (characters of the answer received so far, when) per text event, for one stream
Arrivals = list[tuple[int, float]]


def answer_text(tokens: int) -> str:
    """``tokens`` tokens of 6 characters each (``t0001 `` …): one token per chunk."""
    return "".join(f"t{i:04d} " for i in range(tokens))


def make_server(tokens: int, delay: float) -> Any:
    """The wire server, stamping each content chunk's send time per request; a request is
    named by the ``BENCH-…`` mark in its last user message."""
    from chatcli_testing import OpenAIServer, Reply

    reply = Reply(text=answer_text(tokens), chunk_size=6, delay=delay)
    warm = Reply(text=answer_text(50), chunk_size=6, delay=delay)

    class StampedServer(OpenAIServer):
        def __init__(self) -> None:
            super().__init__()
            self.marks: dict[str, Marks] = {}
            self.lock = threading.Lock()

        def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
            body = request.json if isinstance(request.json, dict) else {}
            users = [m.get("content") for m in body.get("messages") or []
                     if m.get("role") == "user"]
            found = _MARK.search(json.dumps(users[-1] if users else ""))
            mark = found.group(0) if found else "?"
            answer = warm if "WARM" in mark else reply
            marks: Marks = []
            with self.lock:
                self.marks[mark] = marks
            write = exchange.write
            sent = 0

            def stamped(data: bytes) -> bool:
                nonlocal sent
                now = time.monotonic()
                ok = bool(write(data))
                if b'"content"' in data and data.startswith(b"data: {"):
                    chunk = json.loads(data[6:])
                    for choice in chunk.get("choices") or []:
                        sent += len((choice.get("delta") or {}).get("content") or "")
                    marks.append((sent, now))
                return ok

            exchange.write = stamped
            model = body.get("model") or self.default_model
            if stream:
                self.run_stream(exchange, self.stream_events(answer, model, body), answer, None)
            else:
                self.send_full(exchange, answer, model, body, None)

    return StampedServer()


def delays(marks: Marks, arrivals: Arrivals) -> list[float]:
    """Each event's delay in ms: its arrival less the send time of the chunk that ended it."""
    sent = [count for count, _ in marks]
    out = []
    for count, when in arrivals:
        index = bisect.bisect_left(sent, count)
        if index < len(marks):
            out.append((when - marks[index][1]) * 1000)
    return out


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ------------------------------------------------------------------------------ 1. baseline


def baseline(server: Any, root: Path, mark: str) -> list[float]:
    """The engine in this process reading one answer: each TextDelta's delay."""
    import chatcli_provider_openai.plugin as openai_plugin  # type: ignore[import-untyped]
    from chatcli import (
        Message,
        PluginHost,
        ProviderSettings,
        Session,
        SessionOptions,
        Settings,
        TextDelta,
    )

    host = PluginHost(warn=lambda line: None)
    host.register(openai_plugin, "openai")
    settings = Settings(provider="openai", model="gpt-test",
                        providers={"openai": ProviderSettings(base_url=server.url)})
    arrivals: Arrivals = []
    received = 0
    with Session(host, settings, SessionOptions(), workspace=root).open() as session:
        for event in session.run(Message.user(f"{mark}: write it all")):
            if isinstance(event, TextDelta):
                received += len(event.text)
                arrivals.append((received, time.monotonic()))
    return delays(server.marks[mark], arrivals)


# ------------------------------------------------------------------------------ the served side


@contextmanager
def served(root: Path, server: Any, profile: Path | None = None
           ) -> Iterator[tuple[str, str, int]]:
    """A real ``chatcli serve`` in a temporary home: (its URL, a token, its process id);
    under cProfile (its main thread: the event loop) when ``profile`` is a file."""
    home, project = root / "home", root / "project"
    (home / "config").mkdir(parents=True)
    (project / ".git").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(
        "[serve]\nmax_connections = 5000\n[serve.rate]\nper_minute = 10000000\n"
        "burst = 1000000\n")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")}
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
               CHATCLI_PROVIDER="openai", CHATCLI_MODEL="gpt-test", OPENAI_API_KEY=KEY,
               OPENAI_BASE_URL=server.url)
    made = subprocess.run([str(CHATCLI), "serve", "token", "create", "--name", "bench",
                           "--root", str(project)], env=env, cwd=project, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    if made.returncode:
        raise SystemExit(f"chatcli serve token create failed:\n{made.stderr}")
    token = next(word for word in made.stdout.split() if word.startswith("ccs_"))
    port_file = root / "port"
    log = (root / "serve.log").open("wb")
    _LOG["path"] = root / "serve.log"
    command = [str(CHATCLI)]
    if profile is not None:
        command = [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "chatcli_cli"]
    process = subprocess.Popen([*command, "serve", "--port", "0", "--port-file",
                                str(port_file), "--workspace", str(project)], env=env,
                               cwd=project, stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("chatcli serve did not start:\n"
                                 + (root / "serve.log").read_text(errors="replace"))
            time.sleep(0.05)
        yield f"http://127.0.0.1:{int(port_file.read_text())}", token, process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def rss_kib(pid: int) -> int:
    """The process's resident memory (VmRSS, KiB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@dataclass
class Stream:
    """What one client read of a turn: each text event's arrival, the last event id, whether
    ``done`` came, and how often it had to reconnect (the server drops a client that falls
    1,000 events behind; it comes back with ``Last-Event-ID``, as the web page does)."""

    arrivals: Arrivals = field(default_factory=list)
    received: int = 0
    last_id: str | None = None
    done: bool = False
    reconnects: int = 0


async def read_events(response: Any, stream: Stream) -> None:
    """Read an SSE response into ``stream`` until ``done`` or its end."""
    kind = ""
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            kind = line[6:].strip()
        elif line.startswith("id:"):
            stream.last_id = line[3:].strip()
        elif line.startswith("data:"):
            now = time.monotonic()
            if kind == "text":
                stream.received += len(json.loads(line[5:]).get("delta", ""))
                stream.arrivals.append((stream.received, now))
            elif kind == "done":
                stream.done = True
                return
        elif not line:
            kind = ""


async def follow(client: Any, session: str, stream: Stream) -> None:
    """The session's events after ``stream.last_id`` until ``done`` (reconnecting)."""
    while not stream.done:
        headers = {"Last-Event-ID": stream.last_id} if stream.last_id else {}
        async with client.stream("GET", f"/api/sessions/{session}/events",
                                 headers=headers) as response:
            response.raise_for_status()
            await read_events(response, stream)
        if not stream.done:
            stream.reconnects += 1


async def new_session(client: Any) -> str:
    response = await client.post("/api/sessions", json={})
    response.raise_for_status()
    data = response.json()
    return str((data.get("session") or data)["id"])


def _server_log() -> str:
    """The tail of the running server's log (where a 500 is explained)."""
    log = _LOG.get("path")
    return log.read_text(errors="replace")[-4000:] if log is not None and log.exists() else ""


_LOG: dict[str, Path] = {}


async def post_turn(client: Any, session: str, mark: str) -> Stream:
    """One message, its answer's SSE stream read to ``done`` (then the session's events, if
    the server dropped the stream)."""
    stream = Stream()
    async with client.stream("POST", f"/api/sessions/{session}/messages",
                             json={"text": f"{mark}: write it all"}) as response:
        if response.status_code != 200:
            await response.aread()
            raise SystemExit(f"POST messages: {response.status_code} {response.text}\n"
                             + _server_log())
        await read_events(response, stream)
    if not stream.done:
        stream.reconnects += 1
        await follow(client, session, stream)
    return stream


async def crowd(url: str, token: str, sessions: int, watchers: int
                ) -> tuple[dict[str, Stream], list[Stream]]:
    """``sessions`` turns at once, ``watchers`` clients on the first session's events."""
    import httpx

    limits = httpx.Limits(max_connections=sessions + watchers + 20,
                          max_keepalive_connections=sessions + watchers + 20)
    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(120, read=None), limits=limits) as client:
        ids = [await new_session(client) for _ in range(sessions)]
        connected = 0
        all_in = asyncio.Event()

        async def watch() -> Stream:
            nonlocal connected
            stream = Stream()
            async with client.stream("GET", f"/api/sessions/{ids[0]}/events") as response:
                response.raise_for_status()
                connected += 1
                if connected == watchers:
                    all_in.set()
                await read_events(response, stream)
            if not stream.done:
                stream.reconnects += 1
                await follow(client, ids[0], stream)
            return stream

        watching = [asyncio.create_task(watch()) for _ in range(watchers)]
        if watchers:
            await asyncio.wait_for(all_in.wait(), 60)
        marks = [f"BENCH-C{i}" for i in range(sessions)]
        posted = await asyncio.gather(*(post_turn(client, sid, mark)
                                        for sid, mark in zip(ids, marks, strict=True)))
        watched = await asyncio.gather(*watching)
    return dict(zip(marks, posted, strict=True)), list(watched)


async def alone(url: str, token: str, mark: str) -> Stream:
    import httpx

    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=httpx.Timeout(120, read=None)) as client:
        return await post_turn(client, await new_session(client), mark)


async def idle_memory(url: str, token: str, pid: int, count: int) -> tuple[int, int]:
    """VmRSS before and after opening ``count`` sessions (KiB)."""
    import httpx

    async with httpx.AsyncClient(base_url=url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=60) as client:
        await new_session(client)  # the first one pays for imports
        await asyncio.sleep(0.5)
        before = rss_kib(pid)
        for _ in range(count):
            await new_session(client)
        await asyncio.sleep(0.5)
        return before, rss_kib(pid)


# ------------------------------------------------------------------------------ the table


def row(name: str, values: list[float], base: tuple[float, float] | None, events: int) -> str:
    p50, p95 = pct(values, 0.5), pct(values, 0.95)
    added = f"{p50 - base[0]:+8.1f} {p95 - base[1]:+8.1f}" if base else f"{'':>8} {'':>8}"
    return f"  {name:<34} {events:>7,} {p50:8.1f} {p95:8.1f} {added}"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_async(coroutine: Any, loop: str) -> Any:
    """``coroutine`` run to its end on a new event loop: ``"uvloop"``'s or ``"asyncio"``'s."""
    if loop == "asyncio":
        return asyncio.run(coroutine)
    import uvloop

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def default_client_loop() -> str:
    """uvloop when it is installed (chatcli-remote depends on it), asyncio otherwise."""
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return "asyncio"
    return "uvloop"


def run(args: argparse.Namespace, root: Path) -> int:
    os.environ["OPENAI_API_KEY"] = KEY
    for name in ("config", "data", "cache"):
        os.environ[f"CHATCLI_{name.upper()}_DIR"] = str(root / "engine" / name)
    expected = len(answer_text(args.tokens))
    with make_server(args.tokens, args.delay) as server:
        baseline(server, root, "BENCH-WARM")
        base = baseline(server, root, "BENCH-BASE")
        with served(root, server, args.profile) as (url, token, pid):
            loop = args.client_loop
            run_async(alone(url, token, "BENCH-WARM2"), loop)  # imports, the provider's client
            before, after = run_async(idle_memory(url, token, pid, args.idle), loop)
            single = run_async(alone(url, token, "BENCH-A"), loop)
            cpu_server, cpu_here, wall = cpu_seconds(pid), time.process_time(), time.monotonic()
            posted, watched = run_async(crowd(url, token, args.sessions, args.watchers), loop)
            cpu_server = cpu_seconds(pid) - cpu_server
            cpu_here, wall = time.process_time() - cpu_here, time.monotonic() - wall
            rss_end = rss_kib(pid)
    alone_delays = delays(server.marks["BENCH-A"], single.arrivals)
    posters = [d for mark, stream in posted.items()
               for d in delays(server.marks[mark], stream.arrivals)]
    watchers = [d for stream in watched
                for d in delays(server.marks["BENCH-C0"], stream.arrivals)]
    streams = [*posted.values(), *watched]
    whole = sum(1 for stream in streams if stream.done and stream.received == expected)
    b = (pct(base, 0.5), pct(base, 0.95))
    print(f"chatcli serve: {args.tokens:,}-token answers, one chunk every "
          f"{args.delay * 1000:.1f} ms ({1 / args.delay:.0f} tokens/s); delay per text event, "
          f"ms (sent by the wire server -> read by the client; clients on {args.client_loop}'s "
          f"event loop)")
    print(f"  {'':<34} {'events':>7} {'p50':>8} {'p95':>8} {'+p50':>8} {'+p95':>8}")
    print(row("in-process engine (baseline)", base, None, len(base)))
    print(row("served, one session", alone_delays, b, len(alone_delays)))
    print(row(f"served, {args.sessions} sessions: their POSTs", posters, b, len(posters)))
    print(row(f"served, {args.watchers} watchers of session 1", watchers, b, len(watchers)))
    crowded = posters + watchers
    added = pct(crowded, 0.95) - b[1]
    print(row("served, crowded: all streams", crowded, b, len(crowded)))
    print(f"  added latency p95 under the crowd: {added:.1f} ms (goal <= {GOAL_MS:.0f} ms: "
          f"{'met' if added <= GOAL_MS else 'MISSED'})")
    print(f"  streams whole (every character, then done): {whole} of {len(streams)}; "
          f"reconnects after a drop: {sum(stream.reconnects for stream in streams)}")
    print(f"  CPU during the crowd ({wall:.1f} s): server {cpu_server:.1f} s, this process "
          f"(wire server and clients) {cpu_here:.1f} s; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"  memory per idle session: {(after - before) / args.idle:.1f} KiB "
          f"(VmRSS {before / 1024:.1f} -> {after / 1024:.1f} MiB for {args.idle} sessions; "
          f"{rss_end / 1024:.1f} MiB after the crowd)")
    if args.profile is not None and args.profile.exists():
        import pstats

        print(f"\nthe server's event loop, heaviest by own time ({args.profile}):")
        pstats.Stats(str(args.profile)).sort_stats("tottime").print_stats(25)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=2000)
    parser.add_argument("--delay", type=float, default=0.01)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--watchers", type=int, default=50)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--client-loop", choices=("uvloop", "asyncio"),
                        default=default_client_loop(),
                        help="the event loop the bench's HTTP clients run on (default: uvloop "
                             "when installed: the clients' own work then adds less to what they "
                             "measure)")
    parser.add_argument("--profile", type=Path, default=None, metavar="FILE",
                        help="run the server under cProfile (its event loop's thread), the "
                             "stats written to FILE; the heaviest functions are printed")
    args = parser.parse_args()

    def expired(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"bench/server.py: over its {args.timeout:.0f} s limit")

    signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, args.timeout)
    try:
        with tempfile.TemporaryDirectory(prefix="chatcli-bench-server-") as folder:
            return run(args, Path(folder))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


if __name__ == "__main__":
    sys.exit(main())
