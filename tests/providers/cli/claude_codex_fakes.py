"""Fake ``claude`` and ``codex`` executables for the tests, and the events the real ones print.

The fakes are small Python programs written into a folder put first on PATH. Each run takes the
next *turn* a test scripted (a JSON file): lines to print on stdout (with optional pauses),
text for stderr, an exit status, a signal it kills itself with, or a hang (optionally with a
child process in its group). Each run appends what it received — argv, stdin, cwd, its pid
and its child's — to a log file.

The event shapes follow what the CLIs print (see providers/cli/README.md for the sources):
Claude Code 2.1's ``stream-json`` and Codex's ``exec --json``.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FAKE_PROGRAM = r'''
import json, os, subprocess, sys, time

state = os.environ["FAKE_CLI_STATE"]
name = os.path.basename(sys.argv[0])
stdin = sys.stdin.read()
with open(os.path.join(state, name + ".turns.json")) as f:
    turns = json.load(f)
counter = os.path.join(state, name + ".count")
n = int(open(counter).read()) if os.path.exists(counter) else 0
open(counter, "w").write(str(n + 1))
turn = turns[min(n, len(turns) - 1)] if turns else {"exit": 0}
child = None
if turn.get("child"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
with open(os.path.join(state, name + ".log"), "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:], "stdin": stdin, "cwd": os.getcwd(),
                        "pid": os.getpid(), "child": child.pid if child else None}) + "\n")
for item in turn.get("lines", []):
    if isinstance(item, dict) and "sleep" in item and len(item) == 1:
        time.sleep(item["sleep"])
        continue
    line = item if isinstance(item, str) else json.dumps(item)
    sys.stdout.write(line + "\n")
    sys.stdout.flush()
if turn.get("stderr"):
    sys.stderr.write(turn["stderr"])
    sys.stderr.flush()
if turn.get("signal"):
    os.kill(os.getpid(), turn["signal"])
if turn.get("hang"):
    time.sleep(600)
sys.exit(turn.get("exit", 0))
'''


@dataclass
class FakeClis:
    """The folder of fake executables and their scripted turns."""

    bin: Path
    state: Path
    env: dict[str, str] = field(default_factory=dict)

    def script(self, program: str, *turns: dict[str, Any]) -> None:
        """The turns the next runs of ``program`` play, one per run (the last repeats)."""
        (self.state / f"{program}.turns.json").write_text(json.dumps(list(turns)))
        (self.state / f"{program}.count").unlink(missing_ok=True)

    def calls(self, program: str) -> list[dict[str, Any]]:
        """What each run of ``program`` received, in order."""
        log = self.state / f"{program}.log"
        if not log.exists():
            return []
        found = []
        for line in log.read_text().splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:  # a line being written right now
                break
        return found

    def pids(self, program: str) -> list[int]:
        """Every process the runs of ``program`` started (the fakes and their children)."""
        found = []
        for call in self.calls(program):
            found += [p for p in (call["pid"], call["child"]) if p]
        return found


def make_fakes(root: Path) -> FakeClis:
    """Write ``claude`` and ``codex`` into ``root/bin``."""
    bin_dir, state = root / "bin", root / "state"
    bin_dir.mkdir(parents=True)
    state.mkdir(parents=True)
    for program in ("claude", "codex"):
        path = bin_dir / program
        path.write_text(f"#!{sys.executable}\n{FAKE_PROGRAM}")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "FAKE_CLI_STATE": str(state)}
    return FakeClis(bin_dir, state, env)


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped does not count)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return status.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def all_gone(pids: list[int], within: float = 10.0) -> bool:
    """Whether every process of ``pids`` has ended, waiting up to ``within`` seconds for a
    signal already sent to take effect (a wait for an event, not a time limit on the code)."""
    import time

    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# --------------------------------------------------------------------------------------------
# Claude Code events (stream-json)
# --------------------------------------------------------------------------------------------

CLAUDE_MODEL = "claude-sonnet-4-5-20250929"


def claude_init(session: str, model: str = CLAUDE_MODEL) -> dict[str, Any]:
    """The first line of a run."""
    return {"type": "system", "subtype": "init", "cwd": os.getcwd(), "session_id": session,
            "tools": ["Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch"],
            "mcp_servers": [], "model": model, "permissionMode": "default",
            "slash_commands": ["compact", "cost", "review"], "apiKeySource": "none",
            "claude_code_version": "2.1.267", "output_style": "default", "agents": [],
            "skills": [], "plugins": [], "uuid": str(uuid.uuid4())}


def claude_assistant(session: str, content: list[dict[str, Any]], *, model: str = CLAUDE_MODEL,
                     message_id: str | None = None, error: str | None = None,
                     parent: str | None = None) -> dict[str, Any]:
    """A complete assistant message."""
    event: dict[str, Any] = {
        "type": "assistant",
        "message": {"id": message_id or f"msg_{uuid.uuid4().hex[:24]}", "type": "message",
                    "role": "assistant", "model": model, "content": content,
                    "stop_reason": None, "stop_sequence": None,
                    "usage": {"input_tokens": 4, "cache_creation_input_tokens": 2310,
                              "cache_read_input_tokens": 14523, "output_tokens": 9,
                              "service_tier": "standard"}},
        "parent_tool_use_id": parent, "session_id": session, "uuid": str(uuid.uuid4())}
    if error:
        event["error"] = error
    return event


def claude_partial(session: str, event: dict[str, Any]) -> dict[str, Any]:
    """One Messages API stream event (--include-partial-messages)."""
    return {"type": "stream_event", "event": event, "session_id": session,
            "parent_tool_use_id": None, "uuid": str(uuid.uuid4())}


def claude_result(session: str, text: str, *, subtype: str = "success", is_error: bool = False,
                  stop_reason: str = "end_turn", **extra: Any) -> dict[str, Any]:
    """The last line of a run."""
    return {"type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": 2166,
            "duration_api_ms": 2142, "num_turns": 1, "result": text, "stop_reason": stop_reason,
            "session_id": session, "total_cost_usd": 0.0121,
            "usage": {"input_tokens": 6, "cache_creation_input_tokens": 2310,
                      "cache_read_input_tokens": 14523, "output_tokens": 42,
                      "server_tool_use": {"web_search_requests": 0}, "service_tier": "standard"},
            "modelUsage": {CLAUDE_MODEL: {"inputTokens": 6, "outputTokens": 42,
                                          "cacheReadInputTokens": 14523,
                                          "cacheCreationInputTokens": 2310, "costUSD": 0.0121}},
            "permission_denials": [], "uuid": str(uuid.uuid4()), **extra}


def claude_answer(text: str, session: str = "", *, partial: bool = True,
                  model: str = CLAUDE_MODEL) -> list[dict[str, Any]]:
    """A whole successful run answering ``text``: init, the message (streamed in pieces as
    partial deltas when ``partial``), the complete message, the result."""
    session = session or str(uuid.uuid4())
    message_id = f"msg_{uuid.uuid4().hex[:24]}"
    lines: list[dict[str, Any]] = [claude_init(session, model),
                                   {"type": "system", "subtype": "status",
                                    "status": "requesting", "session_id": session}]
    if partial:
        lines.append(claude_partial(session, {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "usage": {"input_tokens": 4, "output_tokens": 1}}}))
        lines.append(claude_partial(session, {"type": "content_block_start", "index": 0,
                                              "content_block": {"type": "text", "text": ""}}))
        half = len(text) // 2
        for piece in (text[:half], text[half:]):
            lines.append(claude_partial(session, {
                "type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": piece}}))
        lines.append(claude_partial(session, {"type": "content_block_stop", "index": 0}))
        lines.append(claude_partial(session, {"type": "message_delta", "delta": {
            "stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 42}}))
        lines.append(claude_partial(session, {"type": "message_stop"}))
    lines.append(claude_assistant(session, [{"type": "text", "text": text}], model=model,
                                  message_id=message_id))
    lines.append(claude_result(session, text))
    return lines


# --------------------------------------------------------------------------------------------
# Codex events (exec --json)
# --------------------------------------------------------------------------------------------


def codex_answer(text: str, thread: str = "", *, with_tools: bool = True) -> list[dict[str, Any]]:
    """A whole successful ``codex exec --json`` run answering ``text``."""
    thread = thread or str(uuid.uuid4())
    lines: list[dict[str, Any]] = [{"type": "thread.started", "thread_id": thread},
                                   {"type": "turn.started"}]
    if with_tools:
        lines += [
            {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning",
                                                "text": "**Searching for README files**"}},
            {"type": "item.started", "item": {"id": "item_1", "type": "command_execution",
                                              "command": "bash -lc ls", "aggregated_output": "",
                                              "exit_code": None, "status": "in_progress"}},
            {"type": "item.completed", "item": {"id": "item_1", "type": "command_execution",
                                                "command": "bash -lc ls",
                                                "aggregated_output": "README.md\nsrc\n",
                                                "exit_code": 0, "status": "completed"}},
        ]
    lines += [
        {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message",
                                            "text": text}},
        {"type": "turn.completed", "usage": {"input_tokens": 24763, "cached_input_tokens": 24448,
                                             "output_tokens": 122}},
    ]
    return lines
