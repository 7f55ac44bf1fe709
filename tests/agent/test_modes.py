"""Agent and coder modes through the real command line: ``chatcli -p "/coder …"`` against the
OpenAI wire server, the model scripted to call small test tools.

What is checked is what a user and the model see: the requests the model gets (the mode's
prompt, the anchor with its step, the task as the user message), the trace and the closing
line on stderr, the final answer on stdout, the step limit, the stop on repeated calls, the
history shared with chat, and that ``max_turns`` is back to its value after a run — even when
the run fails or is interrupted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply, ToolCall

CHATCLI = str(Path(sys.executable).with_name("chatcli"))

#: Two read-only tools: ``look`` answers with two lines, ``fail`` raises.
TOOLS = '''
import time
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class Path_(BaseModel):
    path: str

def look(args, context):
    time.sleep(0.05)
    return f"contents of {args.path}\\nsecond line"

def fail(args, context):
    raise RuntimeError(f"cannot open {args.path}")

@hookimpl
def register_tools(register):
    register(Tool(name="look", description="look at a file", args_model=Path_, risk=Risk.READ,
                  run=look))
    register(Tool(name="fail", description="always fails", args_model=Path_, risk=Risk.READ,
                  run=fail))
'''


def plugin_site(root: Path, name: str, body: str) -> Path:
    """A throwaway distribution whose ``chatcli.plugins`` entry point ``name`` is ``body``."""
    site = root / "site"
    (site / f"{name}_plugin").mkdir(parents=True, exist_ok=True)
    (site / f"{name}_plugin" / "__init__.py").write_text(textwrap.dedent(body))
    info = site / f"{name}_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[chatcli.plugins]\n{name} = {name}_plugin\n")
    return site


@pytest.fixture
def chat(tmp_path: Path, openai_server: Any):
    """``chat(*args)`` runs ``chatcli ARGS --provider openai --model m`` as a real process."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "data").mkdir()
    work = tmp_path / "work"
    work.mkdir()
    site = plugin_site(tmp_path, "testtools", TOOLS)

    def run(*args: str, plugins: str = "openai,agent,testtools",
            **extra: str) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_"))}
        env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                   HOME=str(home), OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=openai_server.url,
                   PYTHONPATH=str(site), CHATCLI_PLUGINS=f"{plugins},print", **extra)
        return subprocess.run([CHATCLI, *args, "--provider", "openai", "--model", "m"],
                              capture_output=True, text=True, env=env, cwd=work, timeout=60,
                              stdin=subprocess.DEVNULL)

    run.home = home  # type: ignore[attr-defined]
    return run


def system_of(request: Any) -> str:
    """The system prompt, with the volatile sections that follow the history (the anchor)."""
    from session_harness import system_of as read

    return read(request)


def look(path: str) -> ToolCall:
    return ToolCall("look", {"path": path})


def test_coder_runs_a_react_loop_with_its_prompt_the_anchor_a_trace_and_a_final_answer(
        chat: Any, openai_server: Any) -> None:
    openai_server.script(Reply(text="Reading a.py first.", tool_calls=[look("a.py")]),
                         Reply(tool_calls=[look("b.py"), ToolCall("fail", {"path": "c.py"})]),
                         Reply(text="Fixed the test in b.py."))
    done = chat("-p", "/coder fix the failing test")
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("Fixed the test in b.py.\n")  # the final answer, on stdout
    assert "trace" not in done.stdout and "step" not in done.stdout

    requests = openai_server.requests
    assert len(requests) == 3
    first = requests[0].json["messages"]
    # the task, then the anchor and the date after it (volatile: after the cached history)
    assert first[-1]["role"] == "user"
    assert first[-1]["content"].startswith("fix the failing test\n\n<system-reminder>\n"
                                           "You are working on: fix the failing test. Step 1")
    for step, request in enumerate(requests, start=1):
        system = system_of(request)
        assert "coder mode" in system and "read a file before you edit it" in system
        assert "run the tests" in system and "report briefly" in system
        assert f"You are working on: fix the failing test. Step {step} of at most 50." in system
    # the mode's prompt is stable (cached prefix), the anchor volatile (after it, by the date)
    system = system_of(requests[0])
    assert system.index("coder mode") < system.index("You are working on") < system.index(
        "Today is")

    err = done.stderr.splitlines()
    assert "chatcli: ▶ coder mode · at most 50 steps · fix the failing test" in err
    trace = [line for line in err if "step " in line and " · " in line]
    assert trace[0].startswith(
        'chatcli:   step 1 · look(path="a.py") → ✓ contents of a.py (1 more line) · 0.')
    assert trace[1].startswith('chatcli:   step 2 · look(path="b.py") → ✓ contents of b.py')
    assert trace[2].startswith(
        'chatcli:   step 2 · fail(path="c.py") → ✗ fail failed: RuntimeError: cannot open c.py')
    assert trace[0].endswith("s") and float(trace[0].rsplit("· ", 1)[1][:-1]) >= 0.05
    assert trace[3] == "chatcli:   step 3 · final answer"
    assert err[-1].startswith("chatcli: ✔ coder: done in 3 steps · 3 tool calls · ")


def test_agent_and_its_alias_use_the_general_prompt(chat: Any, openai_server: Any) -> None:
    openai_server.script(Reply(tool_calls=[look("notes.txt")]), Reply(text="Found it."),
                         Reply(text="Again."))
    done = chat("-p", "/agent find the note")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Found it.\n"
    system = system_of(openai_server.requests[0])
    assert "agent mode" in system and "coder mode" not in system
    assert "You are working on: find the note. Step 1 of at most 50." in system
    assert "✔ agent: done in 2 steps · 1 tool call · " in done.stderr

    alias = chat("-p", "/run say again")  # answered without a tool call: no success mark
    assert alias.returncode == 3 and alias.stdout == "Again.\n"
    assert "⚠ agent: finished, but it made no tool call — nothing was changed or run" in (
        alias.stderr)
    assert "✔" not in alias.stderr
    assert "chatcli: error: /agent did nothing: it made no tool call" in alias.stderr
    assert "You are working on: say again. Step 1" in system_of(openai_server.requests[-1])


def test_a_plain_chat_message_gets_no_mode_prompt_and_no_anchor(chat: Any,
                                                                openai_server: Any) -> None:
    openai_server.script(Reply(text="hi"))
    done = chat("-p", "just chatting")
    assert done.returncode == 0
    system = system_of(openai_server.requests[0])
    assert "You are working on" not in system and "coder mode" not in system
    assert "agent mode" not in system


def test_the_step_limit_stops_the_run_and_the_last_step_asks_for_the_answer(
        chat: Any, openai_server: Any) -> None:
    openai_server.script(*[Reply(tool_calls=[look(f"f{i}.py")]) for i in range(5)])
    done = chat("-p", "/agent --max-steps 3 read every file")
    assert done.returncode == 0, done.stderr
    assert len(openai_server.requests) == 3  # three model calls, no more
    last = system_of(openai_server.requests[-1])
    assert "You are working on: read every file. Step 3 of at most 3." in last
    assert "This is the last step: do not call tools; give your final answer now." in last
    assert "last step" not in system_of(openai_server.requests[1])
    assert ("⏹ agent: stopped at the step limit (3 model calls) before a final answer"
            in done.stderr)


def test_the_step_limit_comes_from_the_agent_table(chat: Any, openai_server: Any) -> None:
    (chat.home / "config" / "config.toml").write_text("[agent]\nmax_steps = 2\n")
    openai_server.script(*[Reply(tool_calls=[look(f"f{i}.py")]) for i in range(3)])
    done = chat("-p", "/coder loop")
    assert len(openai_server.requests) == 2
    assert "Step 2 of at most 2." in system_of(openai_server.requests[-1])
    assert "stopped at the step limit (2 model calls)" in done.stderr

    (chat.home / "config" / "config.toml").write_text('[agent]\nmax_steps = "many"\n')
    bad = chat("-p", "/coder loop")
    assert bad.returncode == 2
    assert "agent.max_steps" in bad.stderr and "from 1 to 500" in bad.stderr


def test_the_same_calls_three_times_stop_the_run_and_the_agent_says_why(
        chat: Any, openai_server: Any) -> None:
    openai_server.script(*[Reply(tool_calls=[look("same.py")]) for _ in range(4)])
    done = chat("-p", "/agent keep looking")
    assert done.returncode == 0, done.stderr
    assert len(openai_server.requests) == 3
    # before the third identical batch, the anchor warns the model that it repeats itself
    assert "do not make them a third time" in system_of(openai_server.requests[2])
    assert "do not make them a third time" not in system_of(openai_server.requests[1])
    assert ("⏹ agent: stopped at step 3: the model made the same tool calls 3 times in a row, "
            "so they were not run again" in done.stderr)
    tool_results = [m for m in openai_server.requests[2].json["messages"] if m["role"] == "tool"]
    assert len(tool_results) == 2  # the third batch never ran


def test_a_run_shares_the_conversation_with_chat(chat: Any, openai_server: Any) -> None:
    openai_server.script(Reply(tool_calls=[look("a.py")]), Reply(text="a.py is fine."),
                         Reply(text="You asked me to check a.py."))
    plugins = "openai,agent,testtools,sessions"
    assert chat("-p", "/coder check a.py", plugins=plugins).returncode == 0
    done = chat("-c", "-p", "what did I ask?", plugins=plugins)
    assert done.returncode == 0, done.stderr
    messages = openai_server.requests[-1].json["messages"]
    said = [(m["role"], (m.get("content") or "").split("\n\n<system-reminder>")[0] or None)
            for m in messages if m["role"] != "system"]
    assert said[0] == ("user", "check a.py")
    assert ("assistant", "a.py is fine.") in said and said[-1] == ("user", "what did I ask?")
    # the chat turn after the run carries no mode prompt
    assert "You are working on" not in system_of(openai_server.requests[-1])


def test_a_task_is_required(chat: Any, openai_server: Any) -> None:
    done = chat("-p", "/coder")
    assert done.returncode == 2
    assert "/coder needs a task" in done.stderr and "/coder [--max-steps N] TASK" in done.stderr
    steps = chat("-p", "/agent --max-steps lots do it")
    assert steps.returncode == 2 and "--max-steps takes a whole number" in steps.stderr
    assert openai_server.requests == []


# ------------------------------------------------------------------ in process: max_turns


class App:
    """The part of a ChatApp a mode uses, over a real Session with a scripted provider."""

    #: reports as the REPL does (a run that did nothing is a line, not chatcli -p's exit 3)
    live_trace = True

    def __init__(self, session: Any, ask: Any) -> None:
        from rich.console import Console

        self.session = session
        self.console = Console(file=open(os.devnull, "w"))  # noqa: SIM115
        self.host = session.host
        self._ask = ask

    @property
    def settings(self) -> Any:
        return self.session.settings

    def ask(self, text: str) -> Any:
        return self._ask(self, text)


@pytest.fixture
def session(chatcli_home: Path) -> Any:
    from chatcli import PluginHost, Session, load_settings
    from chatcli_agent.modes import plugin as modes
    from chatcli_testing import ScriptedProvider, scripted_plugin

    provider = ScriptedProvider()
    host = PluginHost()
    host.register(scripted_plugin(provider), "scripted")
    host.register(modes, "agent")
    opened = Session(host, load_settings()).open()
    opened.provider_for_test = provider
    yield opened
    opened.close()


def turn(app: App, text: str) -> Any:
    from chatcli import Message, TurnFinished

    finished = None
    for event in app.session.run(Message.user(text)):
        if isinstance(event, TurnFinished):
            finished = event
    return finished


def test_max_turns_is_the_step_limit_during_a_run_and_restored_after(session: Any) -> None:
    from chatcli_agent.modes.run import run_mode

    seen = []

    def ask(app: App, text: str) -> Any:
        seen.append((app.session.settings.max_turns, app.session.engine.settings.max_turns))
        return turn(app, text)

    session.provider_for_test.script(Reply(text="done"))
    run_mode(App(session, ask), "agent", "--max-steps 7 a task")
    assert seen == [(7, 7)]
    assert session.settings.max_turns == 20 and session.engine.settings.max_turns == 20
    request = session.provider_for_test.requests[0]
    anchor = [s for s in request.system if s.name == "agent-anchor"]
    assert anchor and not anchor[0].stable
    assert anchor[0].text == "You are working on: a task. Step 1 of at most 7."


@pytest.mark.parametrize("failure", [KeyboardInterrupt, RuntimeError])
def test_max_turns_is_restored_and_the_run_ends_when_a_run_fails(
        session: Any, failure: type[BaseException]) -> None:
    from chatcli_agent.modes.run import run_mode

    def ask(app: App, text: str) -> Any:
        assert app.session.settings.max_turns == 50
        raise failure("stopped")

    with pytest.raises(failure):
        run_mode(App(session, ask), "coder", "a task")
    assert session.settings.max_turns == 20
    # the run is over: the next chat turn has neither the mode's prompt nor the anchor
    session.provider_for_test.script(Reply(text="hello"))
    turn(App(session, ask), "hi")
    names = [s.name for s in session.provider_for_test.requests[-1].system]
    assert "agent-anchor" not in names and "coder-mode" not in names


def test_the_trace_entries_are_json_safe_and_brief() -> None:
    from chatcli import ToolCallPart
    from chatcli_agent.modes.run import brief_arguments, brief_result

    call = ToolCallPart(id="c1", name="exec", arguments={"command": "x" * 200, "n": 1})
    text = brief_arguments(call)
    assert len(text) == 70 and text.startswith('command="xxx') and text.endswith("…")
    assert brief_result("\n\n  first   line \nsecond\nthird") == "first line (2 more lines)"
    assert brief_result("") == "(no output)"
    assert json.dumps(brief_result("é" * 100))  # cut, still text


# ------------------------------------------------------------------ in process: per conversation


def open_session() -> Any:
    from chatcli import PluginHost, Session, load_settings
    from chatcli_agent.modes import plugin as modes
    from chatcli_testing import ScriptedProvider, scripted_plugin

    provider = ScriptedProvider()
    host = PluginHost()
    host.register(scripted_plugin(provider), "scripted")
    host.register(modes, "agent")
    opened = Session(host, load_settings()).open()
    opened.provider_for_test = provider
    return opened


def anchors(session: Any) -> list[str]:
    return [s.text for request in session.provider_for_test.requests for s in request.system
            if s.name == "agent-anchor"]


def test_two_sessions_in_one_process_each_run_their_own_task(chatcli_home: Path) -> None:
    """A run belongs to its conversation (kept in its stash): while one session's run is in
    progress another session runs its own, and neither sees the other's task or step."""
    from chatcli import UsageError
    from chatcli_agent.modes.run import run_mode

    first, second = open_session(), open_session()
    try:
        first.provider_for_test.script(Reply(text="first done"))
        second.provider_for_test.script(Reply(text="second done"))

        def second_ask(app: App, text: str) -> Any:
            return turn(app, text)

        def first_ask(app: App, text: str) -> Any:
            run_mode(App(second, second_ask), "coder", "--max-steps 3 task two")
            with pytest.raises(UsageError, match="a /agent run is already in progress"):
                run_mode(App(first, first_ask), "agent", "again")  # one run per conversation
            return turn(app, text)

        run_mode(App(first, first_ask), "agent", "--max-steps 9 task one")
        assert anchors(first) == ["You are working on: task one. Step 1 of at most 9."]
        assert anchors(second) == ["You are working on: task two. Step 1 of at most 3."]
        assert [m.text for m in first.conversation.view() if m.pinned] == ["task one"]
        assert [m.text for m in second.conversation.view() if m.pinned] == ["task two"]
        # both runs are over: the next turns carry no mode prompt
        for session in (first, second):
            session.provider_for_test.script(Reply(text="hello"))
            turn(App(session, None), "hi")
            assert "agent-anchor" not in [s.name for s in
                                          session.provider_for_test.requests[-1].system]
    finally:
        first.close()
        second.close()


def test_a_model_without_tools_is_named_before_the_run_and_the_run_gets_no_success_mark(
        chat: Any, openai_server: Any) -> None:
    """The first run of a new user: the model gets lean requests (no tools), so /coder says so
    before it runs and names how to use a model with tools; the answer without a tool call
    ends without ✔, and -p exits 3."""
    (chat.home / "config" / "config.toml").write_text("[providers.openai]\ntools = false\n")
    openai_server.script(Reply(text="The README will be updated tomorrow."))
    done = chat("-p", "/coder add a README", plugins="openai,anthropic,agent,testtools")
    assert done.returncode == 3, done.stderr
    assert done.stdout == "The README will be updated tomorrow.\n"
    err = done.stderr.splitlines()
    start = err.index("chatcli: ▶ coder mode · at most 50 steps · add a README")
    notice = err[start + 1]
    assert notice.startswith("chatcli: ⚠ openai/m gets no tools")
    assert "/coder can only answer in text here" in notice
    assert "`chatcli keys set anthropic`" in notice and "--provider anthropic" in notice
    assert "providers.openai.tools true" in notice
    assert "tools" not in openai_server.requests[0].json  # what it said: a lean request
    assert not any("✔" in line for line in err)
    assert ("⚠ coder: finished, but it made no tool call (this model gets no tools) — nothing "
            "was changed or run (1 step · 0 tool calls · ") in done.stderr
    assert err[-1] == ("chatcli: error: /coder did nothing: it made no tool call — use a model "
                       "with tools: `chatcli keys set anthropic`, then `--provider anthropic`")


def test_a_run_that_only_reads_is_done(chat: Any, openai_server: Any) -> None:
    """Reads only (no change tried) is a run that did something: ✔, exit 0."""
    openai_server.script(Reply(tool_calls=[look("a.py")]), Reply(text="a.py reads fine."))
    done = chat("-p", "/agent is a.py fine?")
    assert done.returncode == 0, done.stderr
    assert "✔ agent: done in 2 steps · 1 tool call · " in done.stderr


#: A run's calls — (risk, allowed; None: its arguments were invalid, so it was never decided)
#: — and why the run did nothing (None: it did something, so it ends with ✔).
DID_NOTHING = [
    ([], "it made no tool call"),
    ([("read", True)], None),
    ([("read", True), ("write", False)], "every change or command it tried was denied"),
    ([("read", True), ("execute", False), ("write", False)],
     "every change or command it tried was denied"),
    ([("read", True), ("write", False), ("write", True)], None),
    ([("write", True)], None),
    ([("read", False)], "every tool call it made was denied"),
    ([("read", False), ("write", False)], "every tool call it made was denied"),
    ([("write", None)], "none of its tool calls ran"),
    ([("read", True), ("write", None)], None),  # nothing refused; a read ran
]


@pytest.mark.parametrize(("calls", "expected"), DID_NOTHING)
def test_what_a_run_that_did_nothing_is(calls: list[tuple[str, bool | None]],
                                        expected: str | None) -> None:
    from chatcli import Risk, ToolCallPart, ToolResultPart, ToolSpec
    from chatcli_agent.modes.run import Run, outcome

    run = Run(mode="coder", task="t", max_steps=5, prompt="p")
    run.model_call()
    for index, (risk, allowed) in enumerate(calls):
        call = ToolCallPart(id=f"c{index}", name=f"tool{index}", arguments={"n": index})
        if allowed is not None:
            run.decided(call, ToolSpec(call.name, "d", risk=Risk(risk)), allowed)
        run.tool_finished(call, ToolResultPart(call_id=call.id, name=call.name, content="r",
                                               is_error=not allowed))
    assert run.did_nothing() == expected
    finished = type("Finished", (), {"stop_reason": "end_turn", "error": None})()
    line, style = outcome(run, finished)
    assert line.startswith("✔ coder: done") == (expected is None)
    if expected is not None:
        assert line.startswith(f"⚠ coder: finished, but {expected}") and style == "yellow"
        refused = [f"tool{i}(n=" for i, (_, a) in enumerate(calls) if a is False]
        assert all(name in line for name in refused)
