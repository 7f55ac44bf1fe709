"""Parallel workers: four delegations of one step, each worker making 3 model calls, against an
OpenAI wire server (chatcli-testing's, through the official SDK) that takes 200 ms per call.

The parent's first answer makes four ``delegate`` calls (chatcli-subagents, type ``general``);
each worker reads a file twice (two tool steps) and reports (its third call); the parent then
answers. Measured in one process, in the same run:

- **parallel**: ``[agents] max_workers = 4``: the delegation step's wall time (from the end of
  the parent's first answer to the start of its second request);
- **one after another**: ``max_workers = 1``, the same step; the figure is the ratio
  parallel / one after another, goal ≤ 0.35 (the model's time alone gives 0.25);
- **chatcli's own cost per delegated call**: one worker, the step's wall time less the 3 × 200
  ms the server spends answering it (the worker's conversation and engine, its prompt, the
  tool calls and its report).

Also the most requests the server was answering at once (4 in the parallel case, 1 in the
other). Figures are printed, never asserted (tests/packaging/test_benches.py runs it).

Run: .venv/bin/python bench/subagents.py [--runs 3] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

GOAL = 0.35
WORKERS = 4


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def make_server(latency: float) -> Any:
    """An OpenAI wire server answering each conversation from its own script (the parent's
    prompt or a worker's task names it), ``latency`` seconds per call, and keeping when each
    request was answered."""
    from chatcli_testing import OpenAIServer, Reply, ToolCall

    def parent(step: int, workers: int) -> Reply:
        if step == 0:
            return Reply(tool_calls=[ToolCall("delegate", {
                "agent": "general", "task": f"TASK-{index}: read notes.txt twice, report",
                "description": f"reader {index}"}) for index in range(workers)])
        return Reply(text="all reported")

    def worker(step: int) -> Reply:
        if step < 2:
            return Reply(tool_calls=[ToolCall("read_file", {"path": "notes.txt"})])
        return Reply(text="notes.txt says hello")

    class Server(OpenAIServer):  # type: ignore[misc]
        workers = WORKERS

        def __init__(self) -> None:
            super().__init__()
            self.spans: list[list[Any]] = []
            self.lock = threading.Lock()

        def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
            body = request.json if isinstance(request.json, dict) else {}
            messages = body.get("messages") or []
            # the first user message names the conversation (a worker's task, or the parent's
            # prompt; a run's reminder may follow the history as a user message too)
            users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
            first = users[0] if users else ""
            step = sum(1 for m in messages if m.get("role") == "assistant")
            key = first.split(":")[0] if first.startswith("TASK-") else "PARENT"
            reply = worker(step) if key != "PARENT" else parent(step, self.workers)
            span = [key, time.monotonic(), 0.0]
            with self.lock:  # kept at once: the client may be done before this thread is
                self.spans.append(span)
            time.sleep(latency)
            span[2] = time.monotonic()  # the answer's start: the model's time ends here
            model = body.get("model") or self.default_model
            if stream:
                self.run_stream(exchange, self.stream_events(reply, model, body), reply, None)
            else:
                self.send_full(exchange, reply, model, body, None)

    return Server()


def _tools(root: Path) -> Any:
    from chatcli import Risk, Tool, hookimpl
    from pydantic import BaseModel

    class PathArgs(BaseModel):
        path: str

    class Tools:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            register(Tool(name="read_file", description="read a file", args_model=PathArgs,
                          run=lambda a, c: (c.workspace / a.path).read_text(), risk=Risk.READ))

    return Tools()


def delegation_step(server: Any, root: Path, max_workers: int, workers: int) -> float:
    """One turn of the parent; the seconds between its first answer and its second request."""
    import chatcli_provider_openai.plugin as openai_plugin
    import chatcli_subagents.plugin as subagents_plugin
    from chatcli import Message, PluginHost, ProviderSettings, Session, SessionOptions, Settings

    server.workers = workers
    server.spans.clear()
    host = PluginHost(warn=lambda line: None)
    host.register(openai_plugin, "openai")
    host.register(subagents_plugin, "subagents")
    host.register(_tools(root), "tools")
    settings = Settings(provider="openai", model="m",
                        providers={"openai": ProviderSettings(base_url=server.url)},
                        agents={"max_workers": max_workers})
    with Session(host, settings, SessionOptions(), workspace=root).open() as session:
        events = list(session.run(Message.user("PARENT: read it in parallel")))
    assert events[-1].text == "all reported", events[-1]
    parents = sorted(span for span in server.spans if span[0] == "PARENT")
    return parents[1][1] - parents[0][2]


def most_at_once(spans: list[list[Any]]) -> int:
    edges = sorted([(s[1], 1) for s in spans if s[0] != "PARENT"]
                   + [(s[2], -1) for s in spans if s[0] != "PARENT"])
    most = now = 0
    for _, change in edges:
        now += change
        most = max(most, now)
    return most


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        os.environ.setdefault("CHATCLI_DATA_DIR", str(root / "data"))
        os.environ.setdefault("CHATCLI_CONFIG_DIR", str(root / "config"))
        (root / "ws").mkdir()
        (root / "ws" / "notes.txt").write_text("hello\n")
        with make_server(args.latency) as server:
            delegation_step(server, root / "ws", 1, 1)  # warm: imports, first connections
            parallel, serial, single, crowd = [], [], [], []
            for _ in range(args.runs):
                parallel.append(delegation_step(server, root / "ws", WORKERS, WORKERS))
                crowd.append(most_at_once(server.spans))
                serial.append(delegation_step(server, root / "ws", 1, WORKERS))
                single.append(delegation_step(server, root / "ws", WORKERS, 1))
    model_time = 3 * args.latency
    par, ser, one = (statistics.median(v) for v in (parallel, serial, single))
    ratio = par / ser
    print(f"{WORKERS} workers x 3 model calls, {args.latency * 1000:.0f} ms per call "
          f"(median of {args.runs})")
    print(f"  parallel (max_workers={WORKERS}):   {par:6.3f} s   (most requests at once: "
          f"{max(crowd)})")
    print(f"  one after another (max_workers=1): {ser:6.3f} s")
    print(f"  ratio parallel / one after another: {ratio:.2f}x   (goal <= {GOAL}x: "
          f"{'met' if ratio <= GOAL else 'MISSED'}; model time alone: "
          f"{model_time / (WORKERS * model_time):.2f}x)")
    print(f"  chatcli's own cost per delegated call: {(one - model_time) * 1000:.1f} ms "
          f"(one worker: {one:.3f} s for {model_time:.3f} s of model time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
