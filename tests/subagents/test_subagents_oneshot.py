"""``chatcli -p`` with workers, as a real process: the OpenAI provider against a wire server that
answers the parent and the worker from their own scripts; the coder's real tools and the
permission policy."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from chatcli_testing import Reply, ToolCall
from subagents_support import ContentServer, content_text

CHATCLI = Path(sys.executable).parent / "chatcli"


def _run(workspace: Path, server: ContentServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPENAI_BASE_URL=server.url,
               CHATCLI_PLUGINS="openai,coder,agent,permissions,subagents,print")
    return subprocess.run([str(CHATCLI), "--provider", "openai", *args], cwd=workspace, env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_a_workers_write_is_denied_in_a_run_nobody_can_be_asked_in(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").mkdir()
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[ToolCall("delegate", {
            "agent": "general", "task": "TASK-W write out.txt", "description": "write a file"})]),
                   Reply(text="the worker could not write")],
        "TASK-W": [Reply(tool_calls=[ToolCall("write", {"path": "out.txt", "content": "x"})]),
                   Reply(text="Writing was denied.")]})
    with server:
        done = _run(workspace, server, "-p", "PARENT: have a worker write")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "the worker could not write"
    assert not (workspace / "out.txt").exists()
    second = server.of("TASK-W")[1].body
    result = next(content_text(m["content"]) for m in second["messages"] if m["role"] == "tool")
    assert "denied" in result and "approval" in result
    # the worker's progress reaches stderr, labelled
    assert "[w1 general] started: write a file" in done.stderr
    assert '[w1 general] → ' not in done.stderr  # a refused call never started
    assert "[w1 general] ✗ write: " in done.stderr
    assert "[w1 general] done · 2 turns · " in done.stderr


def test_delegate_as_a_one_shot_command_prints_the_workers_report(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").mkdir()
    (workspace / "notes.txt").write_text("the answer is 42\n")
    server = ContentServer({
        "TASK-R": [Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                   Reply(text="The notes say 42.")]})
    with server:
        done = _run(workspace, server, "-p", "/delegate explore TASK-R what do the notes say?")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("w1 explore done · 2 turns · ")
    assert done.stdout.rstrip().endswith("The notes say 42.")
    assert "[w1 explore] → read(path=\"notes.txt\")" in done.stderr
    first = server.of("TASK-R")[0].body
    assert {t["function"]["name"] for t in first["tools"]} <= {
        "read", "search", "glob", "tree", "git", "context_pull"}
    assert json.dumps(first).count("TASK-R") >= 1


def test_json_lists_the_workers(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".git").mkdir()
    server = ContentServer({
        "PARENT": [Reply(tool_calls=[
            ToolCall("delegate", {"agent": "explore", "task": "TASK-J1 look",
                                  "description": "look"}),
            ToolCall("delegate", {"agent": "explore", "task": "TASK-J2 look too",
                                  "description": "look too"})]),
                   Reply(text="both looked")],
        "TASK-J1": [Reply(text="seen one", usage={"input_tokens": 30, "output_tokens": 5})],
        "TASK-J2": [Reply(text="seen two", usage={"input_tokens": 40, "output_tokens": 6})]})
    with server:
        done = _run(workspace, server, "-p", "PARENT: look twice", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["text"] == "both looked"
    workers = payload["workers"]
    # (ids go by the order the workers started in: side by side, either may be first)
    assert sorted(w["id"] for w in workers) == ["w1", "w2"]
    assert sorted((w["type"], w["description"], w["state"], w["turns"], w["tokens"])
                  for w in workers) == [("explore", "look", "done", 1, 35),
                                        ("explore", "look too", "done", 1, 46)]
    assert all(w["files_changed"] == [] and w["error"] is None for w in workers)
    assert payload["usage_by_purpose"]["subagent"]["calls"] == 2
