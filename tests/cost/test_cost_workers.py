"""``/cost`` with workers (issue 19): every model call of a child conversation
(``Conversation(parent=…)``, a subagent's run by ``Engine.branch``) counts once in its root
conversation's ledger, under the purpose "subagent", in a table per worker and one per type;
the child's own ``/cost`` shows its own calls; the budget counts the workers' spend; a restart
(``--resume``, in process and as a real ``chatcli`` process) keeps the workers' rows.

The children here are built as chatcli-subagents builds them (the kernel's contract, not that
plugin): a concurrent ``delegate`` tool branches the engine running it and runs a child
conversation titled "w1 explore: …" with ``metadata["subagent"]``; a ``before_request`` hook
marks the children's requests ``purpose="subagent"``. Real provider SDKs talk to the wire
servers, which answer each conversation from its own script (found by its first user message:
parallel children's requests come in any order).
"""

from __future__ import annotations

import io
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    ChatRequest,
    Conversation,
    Message,
    Session,
    SessionOptions,
    Settings,
    Tool,
    ToolContext,
    TurnFinished,
    Use,
    build_provider,
    hookimpl,
)
from chatcli_context.cost.command import usd
from chatcli_testing import Reply, ToolCall
from cost_support import (
    ANTHROPIC_KEY,
    PRICES,
    Run,
    ask,
    cost_lines,
    make_run,
    open_session,
    row,
    run_chatcli,
    settings,
)
from pydantic import BaseModel
from rich.console import Console

#: chatcli-sessions keeps the conversations a resume reads back
sessions_plugin: Any = pytest.importorskip("chatcli_sessions.plugin")

# ------------------------------------------------------------------ workers as subagents run them


class DelegateArgs(BaseModel):
    id: str
    agent: str
    task: str
    provider: str | None = None


class LookArgs(BaseModel):
    path: str = "."


class Delegation:
    """A test plugin doing what chatcli-subagents does with the kernel's contract: ``delegate``
    runs a worker on a child conversation with a branch of the engine running the call (its
    own provider when the call names one), and the workers' requests say ``subagent``."""

    def __init__(self) -> None:
        self.children: dict[str, Conversation] = {}
        self._lock = threading.Lock()

    @hookimpl
    def register_tools(self, register: Any) -> None:
        register(Tool(name="delegate", description="hand a task to a worker",
                      args_model=DelegateArgs, run=self.delegate, concurrent=True))
        register(Tool(name="look", description="look at a folder", args_model=LookArgs,
                      run=lambda args, context: "config.py tests/ README.md"))

    @hookimpl
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        if "subagent" in conversation.metadata:
            request.purpose = "subagent"

    def delegate(self, args: DelegateArgs, context: ToolContext) -> str:
        assert context.engine is not None and context.conversation is not None
        child = Conversation(parent=context.conversation, title=f"{args.id} {args.agent}: "
                             f"{args.task}", metadata={"subagent": {
                                 "id": args.id, "type": args.agent,
                                 "parent": context.conversation.id, "task": args.task,
                                 "description": args.task}})
        with self._lock:
            self.children[args.id] = child
        use = None
        if args.provider is not None:  # a type naming a model of its own
            engine = context.engine
            spec = engine.host.providers()[args.provider]
            provider, config = build_provider(spec, engine.settings, "gpt-test")
            use = Use(provider, args.provider, config.model)
        events = list(context.engine.branch(use=use, tool_names={"look"}).run(
            child, Message.user(args.task), context.cancel))
        finished = events[-1]
        assert isinstance(finished, TurnFinished) and finished.error is None, finished
        return finished.text


def answer_by_task(server: Any, scripts: dict[str, list[Reply]]) -> None:
    """Make ``server`` answer each conversation from its own script: the one whose key is in
    the request's first user message (the root's prompt, a worker's task)."""
    queues = {key: deque(replies) for key, replies in scripts.items()}
    local, lock = threading.local(), threading.Lock()
    answer = server.answer_chat

    def answer_chat(exchange: Any, request: Any, stream: bool) -> None:
        local.text = _first_user_text(request.json)
        answer(exchange, request, stream)

    def next_item() -> Reply:
        with lock:
            key = next(key for key in queues if key in local.text)
            return queues[key].popleft()

    server.answer_chat, server.next_item = answer_chat, next_item


def _first_user_text(body: dict[str, Any]) -> str:
    user = next(m for m in body["messages"] if m["role"] == "user")
    content = user["content"]
    if isinstance(content, str):
        return content
    return " ".join(block.get("text", "") for block in content if isinstance(block, dict))


def delegate(worker: str, agent: str, task: str, provider: str | None = None) -> ToolCall:
    arguments = {"id": worker, "agent": agent, "task": task}
    return ToolCall("delegate", {**arguments, "provider": provider} if provider else arguments)


# ------------------------------------------------------------------ what the servers reported


@dataclass
class Spent:
    """Calls, tokens (chatcli's meaning: input counts the whole prompt) and USD."""

    calls: int = 0
    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    money: float = 0.0

    def __add__(self, other: Spent) -> Spent:
        return Spent(self.calls + other.calls, self.input + other.input,
                     self.cache_read + other.cache_read, self.cache_write + other.cache_write,
                     self.output + other.output, self.money + other.money)

    def cells(self) -> list[str]:
        """The cells of a ``/cost`` row: calls, input, cache read, cache write, output, USD."""
        return [f"{self.calls:,}", f"{self.input:,}", f"{self.cache_read:,}",
                f"{self.cache_write:,}", f"{self.output:,}", usd(self.money)]


def spent(provider: str, *replies: Reply) -> Spent:
    """What ``replies`` of ``provider``'s wire server cost at the test prices. Anthropic counts
    fresh input apart from the cache on the wire; OpenAI counts the whole prompt."""
    price = PRICES[f"{provider}/{'claude-test' if provider == 'anthropic' else 'gpt-test'}"]
    total = Spent()
    for reply in replies:
        u = reply.resolved_usage()
        read, write = u["cache_read_tokens"], u["cache_write_tokens"]
        whole = u["input_tokens"] + (read + write if provider == "anthropic" else 0)
        fresh = whole - read - write
        money = (fresh * price["input"] + read * price["cache_read"]
                 + write * price.get("cache_write", price["input"])
                 + u["output_tokens"] * price["output"]) / 1e6
        total = total + Spent(1, whole, read, write, u["output_tokens"], money)
    return total


def table(lines: list[str], header: str) -> dict[str, list[str]]:
    """The rows of the table whose header starts with ``header``, by their first cell."""
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [header])
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        cells = line.split()
        if not cells or cells[0] in {"purpose", "worker", "type", "input", "budget:", "cache",
                                     "prices:", "no"}:
            break
        rows[cells[0]] = cells[1:]
    return rows


@dataclass
class ChildApp:
    """What ``/cost`` gets from a front end showing a child conversation."""

    session: Session
    conversation: Conversation
    console: Console

    @property
    def settings(self) -> Settings:
        return self.session.settings


def child_cost_lines(run: Run, session: Session, child: Conversation) -> list[str]:
    out = io.StringIO()
    app = ChildApp(session, child, Console(file=out, width=200, no_color=True))
    run.host.slash_commands()["cost"].run(app, "")
    return out.getvalue().splitlines()


# ------------------------------------------------------------------ parallel workers

R1 = Reply(tool_calls=[delegate("w1", "explore", "find the config loader"),
                       delegate("w2", "explore", "count the tests"),
                       delegate("w3", "general", "summarise the README", provider="openai")],
           usage={"input_tokens": 1000, "output_tokens": 50, "cache_write_tokens": 2000})
R2 = Reply(text="all done", usage={"input_tokens": 200, "output_tokens": 80,
                                   "cache_read_tokens": 2000})
W1 = [Reply(tool_calls=[ToolCall("look", {"path": "."})],
            usage={"input_tokens": 500, "output_tokens": 20, "cache_write_tokens": 1000},
            delay=0.05),
      Reply(text="the loader is config.py", usage={"input_tokens": 100, "output_tokens": 40,
                                                   "cache_read_tokens": 1000})]
W2 = [Reply(text="12 tests", usage={"input_tokens": 700, "output_tokens": 30}, delay=0.05)]
W3 = [Reply(text="a CLI assistant", usage={"input_tokens": 4000, "output_tokens": 100,
                                           "cache_read_tokens": 1000}, delay=0.05)]


def test_workers_calls_count_once_in_the_root_per_worker_and_per_type(
        anthropic_server: Any, openai_server: Any, chatcli_home: Path, monkeypatch: Any,
        tmp_path: Path) -> None:
    answer_by_task(anthropic_server, {"go": [R1, R2], "config loader": W1, "count the": W2})
    answer_by_task(openai_server, {"README": W3})
    delegation = Delegation()
    run = make_run(monkeypatch, anthropic=anthropic_server, openai=openai_server,
                   plugins=(delegation,))
    with open_session(run, settings("anthropic", "claude-test", budget=1.0),
                      tmp_path) as session:
        finished = ask(session, "go")
        conversation = session.conversation
        lines = cost_lines(run, session)
        w1_lines = child_cost_lines(run, session, delegation.children["w1"])
    assert finished.text == "all done"
    assert len(anthropic_server.requests) == 5 and len(openai_server.requests) == 1
    root = spent("anthropic", R1, R2)
    w1, w2, w3 = spent("anthropic", *W1), spent("anthropic", *W2), spent("openai", *W3)

    # every call the servers answered, once: the root's two and the workers' four
    assert row(lines, "anthropic/claude-test") == (root + w1 + w2).cells()
    assert row(lines, "openai/gpt-test") == w3.cells()
    assert row(lines, "total") == (root + w1 + w2 + w3).cells()
    assert table(lines, "purpose") == {"chat": root.cells(),
                                       "subagent": (w1 + w2 + w3).cells()}
    assert table(lines, "worker") == {"w1": ["explore", *w1.cells()],
                                      "w2": ["explore", *w2.cells()],
                                      "w3": ["general", *w3.cells()]}
    assert table(lines, "type") == {"explore": ["2", *(w1 + w2).cells()],
                                    "general": ["1", *w3.cells()]}
    total = (root + w1 + w2 + w3).money
    assert f"budget: {usd(total)} of $1.00 ({total:.0%})" in lines
    assert run.cost.ledger(conversation).money == pytest.approx(total)

    # the child's own /cost: its own two calls, no workers of its own
    assert row(w1_lines, "anthropic/claude-test") == w1.cells()
    assert table(w1_lines, "purpose") == {"subagent": w1.cells()}
    assert not any(line.startswith(("worker", "type ")) for line in w1_lines)
    # the root's messages hold none of the children's: nothing counted twice
    assert len([m for m in conversation.all_messages() if m.usage]) == 2


def test_without_workers_cost_shows_no_worker_tables(
        anthropic_server: Any, chatcli_home: Path, monkeypatch: Any, tmp_path: Path) -> None:
    anthropic_server.script(R2)
    run = make_run(monkeypatch, anthropic=anthropic_server, plugins=(Delegation(),))
    with open_session(run, settings("anthropic", "claude-test"), tmp_path) as session:
        ask(session, "hello")
        lines = cost_lines(run, session)
    assert table(lines, "purpose") == {"chat": spent("anthropic", R2).cells()}
    assert not any(line.split()[:1] in (["worker"], ["type"]) for line in lines)


# ------------------------------------------------------------------ children built directly

CALL = {"input_tokens": 1000, "output_tokens": 0}  # $0.003 a call


def _child(parent: Conversation, worker: str | None, agent: str = "explore",
           title: str = "") -> Conversation:
    metadata = {"subagent": {"id": worker, "type": agent, "parent": parent.id,
                             "task": "t", "description": "d"}} if worker else None
    return Conversation(parent=parent, title=title or f"{worker} {agent}: d", metadata=metadata)


def _run_child(session: Session, child: Conversation, task: str) -> None:
    *_, finished = session.engine.branch().run(child, Message.user(task))
    assert isinstance(finished, TurnFinished) and finished.error is None, finished


def test_nested_and_unlabelled_children_count_in_the_root_and_the_budget_sees_them(
        anthropic_server: Any, chatcli_home: Path, monkeypatch: Any, tmp_path: Path) -> None:
    """A worker's own worker counts in the root under its own id; a child without subagent
    metadata under its title; the budget (1 cent) warns once the workers' calls take the
    session past 80 %, though the root's own call is 30 %."""
    anthropic_server.script(*[Reply(text=f"a{i}", usage=CALL) for i in range(4)])
    run = make_run(monkeypatch, anthropic=anthropic_server, plugins=(Delegation(),))
    with open_session(run, settings("anthropic", "claude-test", budget=0.01),
                      tmp_path) as session:
        ask(session, "q")
        w1 = _child(session.conversation, "w1")
        _run_child(session, w1, "t1")
        assert not [w for w in run.warnings if "budget" in w]  # 60 %
        _run_child(session, _child(w1, "w2", "general"), "t2")  # w1's own worker
        _run_child(session, _child(session.conversation, None, title="scratch: x"), "t3")
        lines = cost_lines(run, session)
    one = spent("anthropic", Reply(usage=CALL))
    assert table(lines, "purpose") == {"chat": one.cells(), "subagent": (one + one + one).cells()}
    assert table(lines, "worker") == {"scratch": ["-", *one.cells()],
                                      "w1": ["explore", *one.cells()],
                                      "w2": ["general", *one.cells()]}
    assert table(lines, "type") == {"-": ["1", *one.cells()], "explore": ["1", *one.cells()],
                                    "general": ["1", *one.cells()]}
    assert [w.split(",")[0] for w in run.warnings if "budget" in w] == [
        "cost: $0.0090 spent", "cost: $0.0120 spent"]
    assert "budget: $0.0120 of $0.0100 (120%) — over budget" in lines


# ------------------------------------------------------------------ restart

CONFIG = """\
[cost.prices."anthropic/claude-test"]
input = 3.0
output = 15.0
cache_read = 0.3
cache_write = 3.75
"""


def _stored_session(server: Any, home: Path, monkeypatch: Any) -> tuple[str, list[str]]:
    """A session with two workers, stored by chatcli-sessions in ``home``: its id and what its
    ``/cost`` showed."""
    (home / "config" / "config.toml").write_text(CONFIG)
    (home / "work").mkdir(exist_ok=True)
    answer_by_task(server, {
        "go": [Reply(tool_calls=[delegate("w1", "explore", "find the config loader"),
                                 delegate("w2", "verifier", "run the checks")],
                     usage=R1.usage),
               R2],
        "config loader": W1, "run the checks": W2})
    run = make_run(monkeypatch, anthropic=server, plugins=(sessions_plugin, Delegation()))
    with open_session(run, settings("anthropic", "claude-test"), home / "work") as session:
        ask(session, "go")
        return session.conversation.id, cost_lines(run, session)


def _expected_workers() -> dict[str, list[str]]:
    return {"w1": ["explore", *spent("anthropic", *W1).cells()],
            "w2": ["verifier", *spent("anthropic", *W2).cells()]}


def test_a_resumed_session_keeps_its_workers_rows(anthropic_server: Any, home: Path,
                                                  monkeypatch: Any) -> None:
    """The session is stored (chatcli-sessions) and its workers' calls beside it: a new host
    resuming it (a new conversation object, a new cost plugin) shows the same rows."""
    root_id, before = _stored_session(anthropic_server, home, monkeypatch)
    assert table(before, "worker") == _expected_workers()

    again = make_run(monkeypatch, anthropic=anthropic_server, plugins=(sessions_plugin,))
    with open_session(again, settings("anthropic", "claude-test"), home / "work",
                      SessionOptions(resume=root_id)) as session:
        assert session.conversation.id == root_id
        after = cost_lines(again, session)
    assert table(after, "worker") == _expected_workers()
    assert [line for line in after if not line.startswith("cache TTL")] == [
        line for line in before if not line.startswith("cache TTL")]


def test_cost_after_resume_in_a_real_process_shows_the_workers(
        anthropic_server: Any, home: Path, monkeypatch: Any) -> None:
    root_id, _ = _stored_session(anthropic_server, home, monkeypatch)
    shown = run_chatcli(home, "--resume", root_id, "-p", "/cost",
                        ANTHROPIC_API_KEY=ANTHROPIC_KEY, ANTHROPIC_BASE_URL=anthropic_server.url,
                        CHATCLI_PLUGINS="anthropic,sessions,cost,print")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    w1, w2 = spent("anthropic", *W1), spent("anthropic", *W2)
    assert table(lines, "worker") == _expected_workers()
    assert table(lines, "type") == {"explore": ["1", *w1.cells()],
                                    "verifier": ["1", *w2.cells()]}
    root = spent("anthropic", R1, R2)
    assert table(lines, "purpose") == {"chat": root.cells(), "subagent": (w1 + w2).cells()}
    assert row(lines, "anthropic/claude-test") == (root + w1 + w2).cells()
    assert len(anthropic_server.requests) == 5  # /cost calls no model
