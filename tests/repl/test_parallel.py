"""Tool calls side by side in the chat (issue 19), in a real terminal: approvals asked from
several threads at once (child runs on the engine's pool threads, as a delegation tool makes
them) come one at a time, each under the worker that asks; live output of calls side by side
stays whole lines; Ctrl+C stops calls running side by side, the questions they wait on and the
processes they started, and the chat is back at its prompt at once.

The model is the OpenAI wire server answering by what each request asks (parallel child runs
would take each other's answers from a queue); a test plugin, ``par``, stands in for the tools.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply, ToolCall
from chatcli_testing.openai_wire import OpenAIServer

from .terminal import Terminal, wait_until
from .test_approval import option, plugin

pytestmark = pytest.mark.terminal

PAR = """
import json, os, subprocess, time
from pydantic import BaseModel
from chatcli import Conversation, Message, Risk, Tool, TurnFinished, hookimpl

class _Text(BaseModel):
    text: str

class _Name(BaseModel):
    name: str

def _noter(tool):
    def run(args, context):
        with open(os.environ["NOTE_FILE"], "a") as out:
            out.write(f"{tool}:{args.text}\\n")
        return f"{tool} noted {args.text}"
    return run

def _spawn(args, context):
    # a child process, gone when the turn is stopped (the tool polls context.cancelled)
    child = subprocess.Popen(["sleep", "300"])
    with open(os.path.join(os.environ["PIDS_DIR"], args.name), "w") as out:
        out.write(str(child.pid))
    while not context.cancelled and child.poll() is None:
        time.sleep(0.05)
    child.kill()
    child.wait()
    return f"{args.name} stopped"

def _chatter(args, context):
    for number in range(40):
        context.output(f"{args.name}-{number:02d}-" + args.name * 30 + "-end")
        time.sleep(0.03)
    time.sleep(1.5)
    return f"{args.name} chattered"

def _fan(args, context):
    # a worker: a child run on a conversation of its own, asking through the parent's approver
    # with the worker's label (as chatcli-subagents does), stopped with the parent's turn
    parent = context.engine.approver

    def labelled(call, tool, verdict):
        reason = f"{args.name} test: {verdict.reason}" if verdict.reason else f"{args.name} test"
        return parent(call, tool, verdict._replace(reason=reason))

    child = context.engine.branch(approver=labelled)
    conversation = Conversation(parent=context.conversation, title=f"{args.name} test")
    final = ""
    for event in child.run(conversation, Message.user(f"task {args.name}"), context.cancel):
        if isinstance(event, TurnFinished):
            final = conversation.messages()[-1].text
    with open(os.environ["FAN_FILE"], "a") as out:
        out.write(json.dumps([args.name, final]) + "\\n")
    return f"{args.name}: {final}"

STAGE = {"text": ""}

def _stages(args, context):
    for number in range(1, 5):
        STAGE["text"] = f"stage {number} of {args.name}"
        time.sleep(0.8)
    return f"{args.name} staged"

@hookimpl(optionalhook=True)
def status_items(session):
    return {"stage": STAGE["text"]} if STAGE["text"] else None

@hookimpl
def register_tools(register):
    register(Tool(name="stages", description="go through stages", args_model=_Name,
                  risk=Risk.READ, concurrent=True, run=_stages))
    for name in ("pa", "pb"):
        register(Tool(name=name, description="note side by side", args_model=_Text,
                      risk=Risk.WRITE, concurrent=True, run=_noter(name)))
    register(Tool(name="note", description="write a note", args_model=_Text, risk=Risk.WRITE,
                  run=_noter("note")))
    register(Tool(name="spawn", description="start a process", args_model=_Name,
                  risk=Risk.READ, concurrent=True, run=_spawn))
    register(Tool(name="chatter", description="print lines", args_model=_Name,
                  risk=Risk.READ, concurrent=True, run=_chatter))
    register(Tool(name="fan", description="run a worker", args_model=_Name, risk=Risk.READ,
                  concurrent=True, run=_fan))
"""

Answer = Callable[[dict[str, Any]], Reply]


class RoutedServer(OpenAIServer):
    """The OpenAI wire server answering each request through ``answer(request_json)``."""

    def __init__(self) -> None:
        super().__init__()
        self.answer: Answer = lambda body: Reply(text="ok")
        self._here = threading.local()

    def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
        self._here.reply = self.answer(request.json if isinstance(request.json, dict) else {})
        try:
            super().answer_chat(exchange, request, stream)
        finally:
            self._here.reply = None

    def next_item(self) -> Any:
        reply = getattr(self._here, "reply", None)
        return reply if reply is not None else super().next_item()


def last_user(body: dict[str, Any]) -> str:
    users = [m.get("content") for m in body.get("messages", []) if m["role"] == "user"]
    last = users[-1] if users else ""
    if isinstance(last, list):  # text parts
        return "".join(part.get("text", "") for part in last if isinstance(part, dict))
    return last if isinstance(last, str) else ""


def results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body.get("messages", []) if m["role"] == "tool"]


@pytest.fixture
def server() -> Iterator[RoutedServer]:
    with RoutedServer() as started:
        yield started


@pytest.fixture
def chat(start_chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path
         ) -> Callable[..., Terminal]:
    plugin(tmp_path, "par", PAR)
    (tmp_path / "pids").mkdir()

    def start(*args: str, plugins: str = "openai,repl,par") -> Terminal:
        return start_chat("--provider", "openai", *args, OPENAI_API_KEY="test",
                          OPENAI_BASE_URL=server.url,
                          CHATCLI_PLUGINS=plugins, PYTHONPATH=str(tmp_path),
                          NOTE_FILE=str(tmp_path / "notes.txt"),
                          PIDS_DIR=str(tmp_path / "pids"), FAN_FILE=str(tmp_path / "fan.jsonl"))

    return start


def menus_on(screen: str) -> int:
    """How many approval questions the screen shows now (the live area: after the last
    tool-call line)."""
    return len(re.findall(r"^Allow write tool", screen, re.MULTILINE))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (not yet reaped by its parent) is gone for our purpose
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_two_concurrent_write_calls_are_asked_one_after_the_other(
        chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path) -> None:
    def answer(body: dict[str, Any]) -> Reply:
        if results(body):
            return Reply(text="both asked: " + " | ".join(results(body)))
        return Reply(text="Noting twice.", tool_calls=[ToolCall("pa", {"text": "one"}),
                                                       ToolCall("pb", {"text": "two"})])

    server.answer = answer
    term = chat()
    term.type("note twice")
    first = term.wait_for("Allow write tool pa(text='one')?")
    assert "pb(text='two')?" not in first
    assert menus_on(first) == 1
    time.sleep(0.4)
    term.type(option(first, "yes, once"))
    second = term.wait_for("Allow write tool pb(text='two')?")
    assert menus_on(second) == 1
    assert "Allow write tool pa(text='one')?" not in second
    assert "worker" not in second  # the main conversation asks: no header
    time.sleep(0.4)
    term.type(option(second, "no"))
    term.wait_for("both asked:")
    assert (tmp_path / "notes.txt").read_text() == "pa:one\n"
    assert results(server.requests[-1].json) == ["pa noted one", "Error: denied by the user"]


def worker_script(body: dict[str, Any]) -> Reply:
    """The parent calls two workers side by side; each worker notes its own text (a write:
    asked) and ends with what it got back."""
    task = last_user(body)
    if task.startswith("task "):
        name = task.removeprefix("task ")
        if results(body):
            return Reply(text=f"{name} finished ({results(body)[0]})")
        return Reply(text=f"{name} notes.", tool_calls=[ToolCall("note", {"text": name})])
    if results(body):
        return Reply(text="workers said: " + " | ".join(results(body)))
    return Reply(text="Two workers.", tool_calls=[ToolCall("fan", {"name": "w1"}),
                                                  ToolCall("fan", {"name": "w2"})])


def test_approvals_from_workers_side_by_side_are_asked_one_at_a_time(
        chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path) -> None:
    server.answer = worker_script
    term = chat()
    term.type("use two workers")
    screen = term.wait_for(lambda s: "Allow write tool note(text='w" in s)
    # both workers are waiting for an answer by now: one question is on screen, the other waits
    wait_until(lambda: sum("task w" in last_user(r.json) for r in server.requests) == 2)
    time.sleep(0.5)
    screen = term.screen()
    assert menus_on(screen) == 1, screen
    first = "w1" if "note(text='w1')" in screen else "w2"
    second = "w2" if first == "w1" else "w1"
    assert f"worker {first} (test) asks:" in screen
    assert f"worker {second} (test) asks:" not in screen
    time.sleep(0.4)
    term.type(option(screen, "yes, once"))

    screen = term.wait_for(f"Allow write tool note(text='{second}')?")
    assert menus_on(screen) == 1, screen
    live = screen.split(f"worker {first} (test) asks:")[-1]
    assert f"worker {second} (test) asks:" in live
    time.sleep(0.4)
    term.type(option(screen, "no"))

    screen = term.wait_for("workers said:")
    assert (tmp_path / "notes.txt").read_text() == f"note:{first}\n"
    said = dict(json.loads(line) for line in (tmp_path / "fan.jsonl").read_text().splitlines())
    assert said == {first: f"{first} finished (note noted {first})",
                    second: f"{second} finished (Error: denied by the user)"}


def test_ctrl_c_dismisses_the_workers_questions_and_stops_them(
        chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path) -> None:
    server.answer = worker_script
    term = chat()
    term.type("use two workers")
    term.wait_for("Allow write tool note(text='w")
    wait_until(lambda: sum("task w" in last_user(r.json) for r in server.requests) == 2)
    time.sleep(0.5)
    asked = len(server.requests)
    pressed = time.monotonic()
    term.send("C-c")
    screen = term.wait_for("⏹ interrupted", timeout=5)
    assert time.monotonic() - pressed < 5
    time.sleep(1.0)  # the other worker's question is not asked after the stop
    screen = term.screen()
    assert menus_on(screen.split("⏹ interrupted")[-1]) == 0, screen
    assert not (tmp_path / "notes.txt").exists()
    said = dict(json.loads(line) for line in (tmp_path / "fan.jsonl").read_text().splitlines())
    assert sorted(said) == ["w1", "w2"]  # both child runs ended (denied, interrupted)
    # no worker and no parent asked the model again
    assert len(server.requests) == asked
    # the chat is usable at once
    server.answer = lambda body: Reply(text="back at the prompt")
    term.type("hello")
    term.wait_for("back at the prompt", timeout=10)


def test_ctrl_c_stops_calls_side_by_side_and_their_processes(
        chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path) -> None:
    server.answer = lambda body: (
        Reply(text="never shown") if results(body) else
        Reply(text="Starting two.", tool_calls=[ToolCall("spawn", {"name": "one"}),
                                                ToolCall("spawn", {"name": "two"})]))
    term = chat()
    term.type("start two processes")
    pids_dir = tmp_path / "pids"
    wait_until(lambda: len(list(pids_dir.iterdir())) == 2 and all(
        path.read_text() for path in pids_dir.iterdir()))
    pids = [int(path.read_text()) for path in pids_dir.iterdir()]
    assert all(alive(pid) for pid in pids)
    term.wait_for("running 2 tools")
    pressed = time.monotonic()
    term.send("C-c")
    term.wait_for("⏹ interrupted", timeout=5)
    assert time.monotonic() - pressed < 5
    wait_until(lambda: not any(alive(pid) for pid in pids), timeout=5)
    assert len(server.requests) == 1
    server.answer = lambda body: Reply(text="back at the prompt")
    term.type("hello")
    term.wait_for("back at the prompt", timeout=10)


def test_live_output_of_calls_side_by_side_stays_whole_lines(
        chat: Callable[..., Terminal], server: RoutedServer) -> None:
    server.answer = lambda body: (
        Reply(text="chatter done") if results(body) else
        Reply(tool_calls=[ToolCall("chatter", {"name": "a"}),
                          ToolCall("chatter", {"name": "b"})]))
    term = chat()
    term.type("chatter")
    screen = term.wait_for(lambda s: s.count("│ ") >= 10)
    lines = [line.split("│ ", 1)[1].rstrip() for line in screen.splitlines() if "│ " in line]
    whole = re.compile(r"(a|b)-\d\d-(a{30}|b{30})-end")
    shown = [line for line in lines if not line.startswith("…")]
    assert shown and all(whole.fullmatch(line) for line in shown), lines
    assert {line[0] for line in shown} == {"a", "b"}
    screen = term.wait_for("chatter done")
    assert "lines of output" not in screen  # one stream for both: no result claims it


def test_the_status_line_follows_plugins_while_calls_run_side_by_side(
        chat: Callable[..., Terminal], server: RoutedServer) -> None:
    # what a plugin shows (workers running, spend) changes while the calls run: the status
    # line is worked out again meanwhile, not only when a call ends
    server.answer = lambda body: (
        Reply(text="stages done") if results(body) else
        Reply(tool_calls=[ToolCall("stages", {"name": "x"}), ToolCall("stages", {"name": "y"})]))
    term = chat()
    term.type("go")
    screen = term.wait_for(lambda s: re.search(r"stage [23] of", s.splitlines()[-1] if s.strip()
                                               else "") is not None, timeout=10)
    assert "✓" not in screen  # no call had ended yet
    term.wait_for("stages done")


def task_of(body: dict[str, Any]) -> str | None:
    """The worker a request is from (the name in its ``task NAME`` message), None: the
    parent's. (A worker's request may carry reminders after its task, in that message or in
    user messages of their own.)"""
    for message in reversed(body.get("messages", [])):
        if message["role"] != "user":
            continue
        content = message.get("content")
        text = content if isinstance(content, str) else "".join(
            part.get("text", "") for part in content or [] if isinstance(part, dict))
        if text.startswith("task "):
            return text.split()[1]
    return None


def delegate_script(body: dict[str, Any]) -> Reply:
    """The parent delegates two tasks to ``general`` workers (chatcli-subagents' real
    ``delegate``) in one step; each worker notes its name (a write: asked) and ends."""
    name = task_of(body)
    if name is not None:
        if results(body):  # (slowly: a worker stopped meanwhile does not get to the end)
            return Reply(text=f"{name} finished ({results(body)[0]})", chunk_size=4,
                         delay=0.1)
        return Reply(text=f"{name} notes.", tool_calls=[ToolCall("note", {"text": name})])
    if results(body):
        return Reply(text="the workers reported: " + " | ".join(results(body)))
    return Reply(text="Delegating.", tool_calls=[
        ToolCall("delegate", {"agent": "general", "task": f"task {name}", "description": name})
        for name in ("alpha", "beta")])


DELEGATING = "openai,repl,par,subagents"


@pytest.fixture
def delegate_available() -> None:
    pytest.importorskip("chatcli_subagents", reason="chatcli-subagents is not installed")


@pytest.mark.usefixtures("delegate_available")
def test_real_workers_ask_one_at_a_time_under_their_labels(
        chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path) -> None:
    server.answer = delegate_script
    term = chat(plugins=DELEGATING)
    term.type("delegate two tasks")
    screen = term.wait_for("Allow write tool note(text=")
    wait_until(lambda: sum(task_of(r.json) is not None for r in server.requests) == 2)
    time.sleep(0.5)
    screen = term.screen()
    assert menus_on(screen) == 1, screen
    found = re.search(r"^worker (w[12]) \(general\) asks: *\nAllow write tool "
                      r"note\(text='(alpha|beta)'\)\? *$", screen, re.MULTILINE)
    assert found, screen
    first = found.group(2)
    second = "beta" if first == "alpha" else "alpha"
    # the status line follows chatcli-subagents' count while the parent waits for them (it is
    # worked out again every second meanwhile)
    term.wait_for(lambda s: s.rstrip().splitlines()[-1].endswith("2 workers running"),
                  timeout=3)
    time.sleep(0.4)
    term.type(option(screen, "yes, once"))
    screen = term.wait_for(f"Allow write tool note(text='{second}')?")
    assert menus_on(screen) == 1, screen
    assert re.search(rf"^worker w[12] \(general\) asks: *\nAllow write tool note\(text="
                     rf"'{second}'\)\? *$", screen, re.MULTILINE), screen
    time.sleep(0.4)
    term.type(option(screen, "no"))
    term.wait_for("the workers reported:")
    screen = term.wait_for(lambda s: "workers running" not in s.rstrip().splitlines()[-1],
                           timeout=3)
    assert (tmp_path / "notes.txt").read_text() == f"note:{first}\n"
    reported = results(server.requests[-1].json)
    assert any(f"{first} finished (note noted {first})" in text for text in reported), reported
    assert any(f"{second} finished (Error: denied by the user)" in text
               for text in reported), reported


@pytest.mark.usefixtures("delegate_available")
def test_ctrl_c_stops_real_workers_and_their_questions(
        chat: Callable[..., Terminal], server: RoutedServer, tmp_path: Path) -> None:
    server.answer = delegate_script
    term = chat(plugins=DELEGATING)
    term.type("delegate two tasks")
    term.wait_for("Allow write tool note(text=")
    wait_until(lambda: sum(task_of(r.json) is not None for r in server.requests) == 2)
    time.sleep(0.5)
    asked = len(server.requests)
    pressed = time.monotonic()
    term.send("C-c")
    term.wait_for("⏹ interrupted", timeout=5)
    assert time.monotonic() - pressed < 5
    time.sleep(1.0)  # the other worker's question is not asked after the stop
    screen = term.screen()
    assert menus_on(screen.split("⏹ interrupted")[-1]) == 0, screen
    assert not (tmp_path / "notes.txt").exists()
    # the parent did not ask the model again (a denied worker may have made one more request
    # before its own stop flag was up — chatcli-subagents' watcher polls the turn's cancel
    # event — but it is cut there)
    assert not any(task_of(r.json) is None for r in server.requests[asked:])
    term.type("/agents")
    screen = term.wait_for(lambda s: len(re.findall(r"w[12] +general +cancelled", s)) >= 2,
                           timeout=10)
    assert "running" not in screen.split("/agents")[-1]
    server.answer = lambda body: Reply(text="back at the prompt")
    term.type("hello")
    term.wait_for("back at the prompt", timeout=10)
