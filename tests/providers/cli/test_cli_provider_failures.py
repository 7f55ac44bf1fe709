"""Every way a CLI assistant can fail is one line of the error taxonomy naming the cause and
the fix — and no process it started survives (the ``fakes`` fixture checks after each test)."""

from __future__ import annotations

import sys
import time
from typing import Any

import pytest
from chatcli import (
    AuthError,
    ChatRequest,
    Message,
    ProviderError,
    ProviderTimeoutError,
    RateLimitError,
    ServerError,
    StreamCutError,
    TextDelta,
)
from claude_codex_fakes import (
    all_gone,
    claude_answer,
    claude_assistant,
    claude_init,
    claude_result,
    codex_answer,
)

SESSION = "6a1f4f3e-3f0c-4a57-8d0e-0f6b3c1d2e4f"


def fail(provider: Any) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        for _ in provider.stream(ChatRequest(model="default", messages=[Message.user("hi")])):
            pass
    error = caught.value
    assert "\n" not in str(error) and error.hint, str(error)
    assert not error.retryable  # an agent that may have run tools is never re-run by itself
    return error


# --------------------------------------------------------------------------------------------
# not installed


@pytest.mark.parametrize("name, program", [("claude-code", "claude"), ("codex", "codex")])
def test_not_installed_says_how_to_install_and_is_a_setup_error(fakes, make_provider,
                                                                monkeypatch, name,
                                                                program) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    error = fail(make_provider(name))
    assert error.exit_code == 2
    assert f"`{program}` is not installed" in error.message
    assert "npm install -g" in error.hint and f"providers.{name}.command" in error.hint


def test_a_configured_command_is_used_and_a_wrong_one_named(fakes, make_provider) -> None:
    fakes.script("claude", {"lines": claude_answer("from the configured path")})
    provider = make_provider(command=str(fakes.bin / "claude"))
    out = "".join(e.text for e in provider.stream(ChatRequest(
        model="default", messages=[Message.user("hi")])) if isinstance(e, TextDelta))
    assert out == "from the configured path"
    fakes.script("claude", {"lines": claude_answer("through an argument list")})
    provider = make_provider(command=[sys.executable, str(fakes.bin / "claude")])
    out = "".join(e.text for e in provider.stream(ChatRequest(
        model="default", messages=[Message.user("hi")])) if isinstance(e, TextDelta))
    assert out == "through an argument list"
    error = fail(make_provider(command="/opt/nowhere/claude"))
    assert "[providers.claude-code] command` names '/opt/nowhere/claude'" in error.message


# --------------------------------------------------------------------------------------------
# errors the CLIs report


CLAUDE_FAILURES = [
    # not logged in: a synthetic assistant message with error, then an is_error result
    ([claude_init(SESSION),
      claude_assistant(SESSION, [{"type": "text", "text": "Invalid API key · Please run /login"}],
                       model="<synthetic>", error="authentication_failed"),
      claude_result(SESSION, "Invalid API key · Please run /login", is_error=True)],
     AuthError, "Invalid API key", "/login"),
    ([claude_init(SESSION),
      claude_result(SESSION, "Claude AI usage limit reached|1789049400", is_error=True)],
     RateLimitError, "usage limit reached", "limit resets"),
    ([claude_init(SESSION),
      claude_result(SESSION, "API Error: Repeated 529 Overloaded errors", is_error=True,
                    api_error_status=529)],
     ServerError, "Overloaded", "try again"),
    ([claude_init(SESSION),
      claude_result(SESSION, "", subtype="error_during_execution", is_error=True,
                    errors=["Tool permission stream closed"])],
     ProviderError, "Tool permission stream closed", "claude -p"),
    ([claude_init(SESSION), claude_result(SESSION, "", subtype="error_max_turns",
                                          is_error=True)],
     ProviderError, "turn limit (--max-turns) before answering", "args"),
    ([claude_init(SESSION), claude_result(SESSION, "   ")],
     ProviderError, "empty answer", "ask again"),
]


@pytest.mark.parametrize("lines, cls, cause, fix", CLAUDE_FAILURES)
def test_claude_errors(fakes, make_provider, lines, cls, cause, fix) -> None:
    fakes.script("claude", {"lines": lines, "exit": 1})
    error = fail(make_provider())
    assert type(error) is cls and cause in error.message and fix in error.hint
    assert error.message.startswith("Claude Code")


CODEX_FAILURES = [
    ([{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
      {"type": "error", "message": "Reconnecting... 1/5"},
      {"type": "turn.failed", "error": {"message": "exceeded retry limit, last status: 401 "
                                                   "Unauthorized, request id: 9a57"}}],
     AuthError, "401 Unauthorized", "codex login"),
    ([{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
      {"type": "turn.failed", "error": {"message": "You've hit your usage limit. Try again in "
                                                   "4 days 20 hours 9 minutes."}}],
     RateLimitError, "usage limit", "resets"),
    ([{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
      {"type": "error", "message": "stream error: stream disconnected before completion"}],
     ServerError, "stream disconnected", "try again"),
    ([{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
      {"type": "turn.completed", "usage": {"input_tokens": 1, "cached_input_tokens": 0,
                                           "output_tokens": 0}}],
     ProviderError, "empty answer", "ask again"),
]


@pytest.mark.parametrize("lines, cls, cause, fix", CODEX_FAILURES)
def test_codex_errors(fakes, make_provider, lines, cls, cause, fix) -> None:
    fakes.script("codex", {"lines": lines, "exit": 1})
    error = fail(make_provider("codex"))
    assert type(error) is cls and cause in error.message and fix in error.hint
    assert error.message.startswith("Codex")


# --------------------------------------------------------------------------------------------
# crashes, garbage, hangs


@pytest.mark.parametrize("name, program", [("claude-code", "claude"), ("codex", "codex")])
def test_a_crash_with_stderr_names_the_status_and_its_message(fakes, make_provider, name,
                                                              program) -> None:
    fakes.script(program, {"lines": [], "stderr": "\x1b[31mError: Cannot find module "
                                                  "'./cli.js'\x1b[0m\n    at node:internal",
                           "exit": 3})
    error = fail(make_provider(name))
    assert "exited with status 3: Error: Cannot find module './cli.js'" in error.message


def test_a_crash_that_leaves_a_child_holding_stdout_is_reported_not_waited_for(
        fakes, make_provider) -> None:
    # the fake's child inherits its stdout, so stdout does not close when the fake exits
    fakes.script("claude", {"lines": [claude_init(SESSION)], "child": True,
                            "stderr": "FATAL: out of memory", "exit": 1})
    error = fail(make_provider(timeout=120))
    assert "Claude Code exited with status 1: FATAL: out of memory" in error.message
    assert all_gone(fakes.pids("claude"))  # the child too


@pytest.mark.parametrize("name, program, stderr, fix", [
    ("claude-code", "claude", "error: unknown option '--include-partial-messages'",
     "update claude (`claude --version`"),
    ("codex", "codex", "Not inside a trusted directory and --skip-git-repo-check was not "
                       "specified.", "providers.codex.skip_git_repo_check true"),
])
def test_errors_that_name_their_fix(fakes, make_provider, name, program, stderr, fix) -> None:
    fakes.script(program, {"lines": [], "stderr": stderr, "exit": 2})
    error = fail(make_provider(name))
    assert stderr.split(" --")[0] in error.message and fix in error.hint


def test_the_telling_line_of_a_long_stderr_is_shown(fakes, make_provider) -> None:
    stderr = ("(node:4242) ExperimentalWarning: SQLite is an experimental feature\n"
              "Reading prompt from stdin...\n"
              "thread 'main' panicked at codex-rs/core/src/client.rs:88:14:\n"
              "called `Result::unwrap()` on an `Err` value: Os { code: 28 }\n"
              "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n")
    fakes.script("codex", {"lines": [], "stderr": stderr, "exit": 101})
    error = fail(make_provider("codex"))
    assert error.message == ("Codex exited with status 101: thread 'main' panicked at "
                             "codex-rs/core/src/client.rs:88:14:")


def test_a_crash_after_garbage_names_the_garbage(fakes, make_provider) -> None:
    fakes.script("claude", {"lines": [claude_init(SESSION), "Segmentation fault (core dump"],
                            "exit": 139})
    error = fail(make_provider())
    assert isinstance(error, StreamCutError)
    assert "exited with status 139 after printing 'Segmentation fault" in error.message


@pytest.mark.parametrize("name, program", [("claude-code", "claude"), ("codex", "codex")])
def test_output_that_is_not_json_events(fakes, make_provider, name, program) -> None:
    # an old version printing text, a banner, a JSON value that is no object
    fakes.script(program, {"lines": ["Welcome to the assistant!", "[1, 2, 3]", "\u2801\u2802 "
                                     "thinking…", "{not json"], "exit": 0})
    error = fail(make_provider(name))
    assert isinstance(error, StreamCutError)
    assert "printed 'Welcome to the assistant!', which is not a JSON event" in error.message
    assert "--version" in error.hint


def test_garbage_between_events_is_skipped(fakes, make_provider) -> None:
    lines = claude_answer("still fine")
    lines.insert(2, "npm WARN deprecated something")
    lines.insert(4, '{"type": "assistant", "message": "not a dict"}')
    lines.insert(5, '{"type": "stream_event", "event": [1]}')
    fakes.script("claude", {"lines": lines})
    events = make_provider().stream(ChatRequest(model="m", messages=[Message.user("hi")]))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "still fine"


def test_killed_by_a_signal(fakes, make_provider) -> None:
    fakes.script("codex", {"lines": [{"type": "thread.started", "thread_id": "t"}],
                           "signal": 9})
    error = fail(make_provider("codex"))
    assert "Codex was killed by signal 9" in error.message


@pytest.mark.parametrize("name, program", [("claude-code", "claude"), ("codex", "codex")])
def test_a_hang_ends_at_the_timeout_and_kills_the_process_group(fakes, make_provider, name,
                                                                program) -> None:
    first = claude_init(SESSION) if program == "claude" else {"type": "thread.started",
                                                              "thread_id": "t"}
    fakes.script(program, {"lines": [first], "hang": True, "child": True})
    error = fail(make_provider(name, timeout=1.0))
    assert isinstance(error, ProviderTimeoutError)
    assert "printed nothing for 1s" in error.message
    assert f"providers.{name}.timeout" in error.hint
    # the fake and the child it started (its "tool") are gone: checked by the fixture too
    assert all_gone(fakes.pids(program))


def test_closing_the_stream_mid_answer_kills_the_process_group(fakes, make_provider) -> None:
    lines = claude_answer("a long answer")
    fakes.script("claude", {"lines": [*lines[:5], {"sleep": 60}, *lines[5:]], "child": True})
    stream = make_provider().stream(ChatRequest(model="m", messages=[Message.user("hi")]))
    for event in stream:
        if isinstance(event, TextDelta):
            break
    stream.close()
    assert all_gone(fakes.pids("claude"))


def test_an_abandoned_silent_stream_is_closed_by_its_keep_alive_events(fakes,
                                                                       make_provider) -> None:
    # The engine reads a provider on a helper thread; after Ctrl+C it stops taking events
    # and closes the stream when the provider next yields. A silent assistant still yields
    # (usage keep-alives), so the abandoned process is killed promptly, not at the timeout.
    import threading

    from chatcli._streaming import threaded

    fakes.script("claude", {"lines": [claude_init(SESSION)], "hang": True, "child": True})
    provider = make_provider(timeout=300)
    cancel = threading.Event()
    events = threaded(lambda: provider.stream(ChatRequest(model="m",
                                                          messages=[Message.user("hi")])),
                      cancel=cancel, first_deadline=None, idle_timeout=None, who="claude-code")
    next(events)  # the first keep-alive: the process runs
    deadline = time.monotonic() + 10
    while not fakes.pids("claude") and time.monotonic() < deadline:
        time.sleep(0.05)
    cancel.set()
    with pytest.raises(KeyboardInterrupt):
        for _ in events:
            pass
    # well before the 300 s timeout: the keep-alive let the reader close the stream
    assert all_gone(fakes.pids("claude"), within=10)


def test_cancel_kills_a_silent_assistant_at_once(fakes, make_provider) -> None:
    # what the engine calls on Ctrl+C, and a fallback chain hands on while it holds the
    # keep-alive usage events back (nothing reaches the engine's reader to close the stream)
    import threading

    fakes.script("claude", {"lines": [claude_init(SESSION)], "hang": True, "child": True})
    stream = make_provider(timeout=300).stream(ChatRequest(model="m",
                                                           messages=[Message.user("hi")]))
    ended = threading.Event()

    def read() -> None:
        try:
            for _ in stream:
                pass
        except Exception:  # the killed process's error: nobody waits for it any more
            pass
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + 10
    while not fakes.pids("claude") and time.monotonic() < deadline:
        time.sleep(0.05)
    stream.cancel()  # type: ignore[attr-defined]
    assert all_gone(fakes.pids("claude"), within=10)
    assert ended.wait(10)


def test_a_call_beside_a_turn_leaves_it_running(fakes, make_provider) -> None:
    # plugins may ask the same provider something in the background (memory extraction)
    # while a turn runs: neither run may end the other
    fakes.script("codex", {"lines": [{"type": "thread.started", "thread_id": "t"},
                                     {"sleep": 1.0}, *codex_answer("the turn")[1:]]},
                 {"lines": codex_answer("the background call")})
    provider = make_provider("codex")
    turn = provider.stream(ChatRequest(model="m", messages=[Message.user("one")]))
    next(turn)  # the turn's CLI runs
    beside = "".join(e.text for e in provider.stream(ChatRequest(
        model="m", messages=[Message.user("two")])) if isinstance(e, TextDelta))
    assert beside == "the background call"
    assert "".join(e.text for e in turn if isinstance(e, TextDelta)) == "the turn"


def test_a_stream_dropped_without_being_closed_is_killed_when_collected(
        fakes, make_provider) -> None:
    import gc

    fakes.script("claude", {"lines": [claude_init(SESSION)], "hang": True, "child": True})
    provider = make_provider()
    stream = provider.stream(ChatRequest(model="m", messages=[Message.user("one")]))
    next(stream)
    del stream
    gc.collect()
    assert all_gone(fakes.pids("claude"))
    provider.close()


def claude_tool_call(tool_id: str) -> list[dict[str, Any]]:
    """Claude Code calls its Bash tool (the result comes later)."""
    return [claude_init(SESSION), claude_assistant(SESSION, [
        {"type": "tool_use", "id": tool_id, "name": "Bash",
         "input": {"command": "npm test", "description": "Run the tests"}}])]


def test_a_long_tool_run_is_silence_allowed_by_tool_timeout(fakes, make_provider) -> None:
    # the test suite the assistant runs takes longer than `timeout`: not a hang
    fakes.script("claude", {"lines": [
        *claude_tool_call("toolu_01"), {"sleep": 1.5},
        {"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": "toolu_01", "type": "tool_result", "content": "12 passed"}]},
         "parent_tool_use_id": None, "session_id": SESSION},
        claude_assistant(SESSION, [{"type": "text", "text": "All 12 tests pass."}]),
        claude_result(SESSION, "All 12 tests pass.")]})
    events = make_provider(timeout=1.0, tool_timeout=60).stream(
        ChatRequest(model="m", messages=[Message.user("run the tests")]))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "All 12 tests pass."


def test_codex_commands_are_tool_runs_too(fakes, make_provider) -> None:
    lines = codex_answer("Built.")
    at = next(i for i, line in enumerate(lines) if line.get("type") == "item.started")
    lines.insert(at + 1, {"sleep": 1.5})
    fakes.script("codex", {"lines": lines})
    events = make_provider("codex", timeout=1.0).stream(
        ChatRequest(model="m", messages=[Message.user("build it")]))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Built."


def test_a_tool_that_never_ends_stops_at_tool_timeout(fakes, make_provider) -> None:
    fakes.script("claude", {"lines": claude_tool_call("toolu_02"), "hang": True,
                            "child": True})
    error = fail(make_provider(timeout=1.0, tool_timeout=2))
    assert isinstance(error, ProviderTimeoutError)
    assert "printed nothing for 2s while running a tool" in error.message
    assert "providers.claude-code.tool_timeout" in error.hint
