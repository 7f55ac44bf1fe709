"""exec: exit codes, live output, head and tail kept, timeouts and Ctrl+C killing the whole
process group (a child that ignores SIGTERM included), in the sandbox and out of it."""

from __future__ import annotations

import random
import shutil
import threading
import time

import pytest
from chatcli import Settings, StopReason
from chatcli_coder import _run
from coder_support import Agent, running, wait_gone

HAVE_BWRAP = shutil.which("bwrap") is not None


@pytest.fixture(params=["off", pytest.param("bwrap", marks=pytest.mark.skipif(
    not HAVE_BWRAP, reason="bubblewrap is not installed (.ci/run installs it)"))])
def mode(request):
    """Each test runs unconfined and in the bubblewrap sandbox."""
    return request.param


def make(workspace, mode, **settings):
    return Agent(workspace, Settings(coder={"sandbox": mode}, **settings))


def marker() -> str:
    """A sleep duration no other process uses: how a test finds its processes."""
    return f"{random.randint(5_000, 9_999)}.{random.randint(100_000, 999_999)}"


def test_exit_code_and_output_of_both_streams(workspace, mode):
    agent = make(workspace, mode)
    text = agent.ok("exec", command="echo out; echo err >&2; exit 3")
    first, *rest = text.splitlines()
    assert first.startswith("exit code 3 (")
    assert ("sandbox: bwrap, no network" in first) == (mode == "bwrap")
    assert rest == ["out", "err"]
    assert agent.output == ["out", "err"]
    assert agent.ok("exec", command="true").endswith("(no output)")


def test_output_is_streamed_while_the_command_runs(workspace, mode):
    agent = make(workspace, mode)
    started = time.monotonic()
    agent.ok("exec", command="echo first; sleep 1.5; echo second")
    ended = time.monotonic()
    (at_first, first), (at_second, second) = agent.timed
    assert (first, second) == ("first", "second")
    assert at_first - started < 1.2  # shown long before the command ended
    assert at_second - at_first > 1.0
    assert ended - at_second < 1.0


def test_a_timeout_kills_the_whole_group_even_a_child_ignoring_sigterm(workspace, mode):
    agent = make(workspace, mode)
    tag = marker()
    started = time.monotonic()
    text = agent.ok("exec", timeout=1,
                    command=f"(trap '' TERM; exec sleep {tag}) & echo started; sleep {tag}")
    took = time.monotonic() - started
    assert text.startswith("timed out after 1 s: the command and everything it started were "
                           "killed")
    assert "started" in text
    assert took < 1 + _run.KILL_GRACE + 3
    assert wait_gone(tag) == []


def test_stopping_the_turn_kills_the_command(workspace, mode):
    agent = make(workspace, mode)
    tag = marker()
    cancel = threading.Event()
    agent.on_output = lambda line: cancel.set() if line == "started" else None
    started = time.monotonic()
    (result,) = agent.turn(("exec", {"command": f"(trap '' TERM; sleep {tag}) & echo started; "
                                                f"sleep {tag}"}), cancel=cancel)
    assert result.content.startswith("stopped by the user after")
    assert agent.finished.stop_reason == StopReason.INTERRUPTED
    assert time.monotonic() - started < _run.KILL_GRACE + 5
    assert wait_gone(tag) == []


def test_ctrl_c_in_the_tool_thread_kills_the_group_and_interrupts_the_turn(workspace, mode):
    agent = make(workspace, mode)
    tag = marker()

    def interrupt(line):
        if line == "started":
            raise KeyboardInterrupt

    agent.on_output = interrupt
    results = agent.turn(("exec", {"command": f"sleep {tag} & echo started; sleep {tag}"}))
    assert agent.finished.stop_reason == StopReason.INTERRUPTED
    assert results == [] or results[0].is_error  # the call did not finish
    assert wait_gone(tag) == []
    # the log stays consistent: the call has its (error) result
    tool_results = [part for m in agent.conversation.messages() for part in m.tool_results]
    assert len(tool_results) == 1 and tool_results[0].is_error


def test_long_output_keeps_its_head_and_tail(workspace, mode):
    agent = make(workspace, mode, tool_output_max=3_000)
    text = agent.ok("exec", command="seq 1 100000")
    assert len(text) <= 3_000
    lines = text.splitlines()
    assert lines[1:4] == ["1", "2", "3"]
    assert lines[-1] == "100000"
    assert "lines (" in text and "characters) left out" in text
    assert len(agent.output) == 100_000  # the user saw all of it


def test_background_processes_do_not_outlive_the_command(workspace, mode):
    agent = make(workspace, mode)
    tag = marker()
    text = agent.ok("exec", command=f"sleep {tag} & echo spawned")
    assert text.splitlines()[0].startswith("exit code 0")
    assert wait_gone(tag) == []
    if mode == "off":
        assert "[processes it left running in the background were killed]" in text


def test_cwd_timeout_cap_and_secrets_in_the_environment(workspace, mode, monkeypatch):
    (workspace / "sub").mkdir()
    monkeypatch.setenv("MY_SERVICE_API_KEY", "sk-secret")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    agent = Agent(workspace, Settings(coder={"sandbox": mode, "exec_timeout_max": 5}))
    text = agent.ok("exec", command="pwd; echo key=$MY_SERVICE_API_KEY $HARMLESS_SETTING",
                    cwd="sub", timeout=60)
    assert "[timeout lowered to the 5 s maximum ([coder] exec_timeout_max)]" in text
    assert str(workspace / "sub") in text
    assert "key= visible" in text
    assert "no file or folder 'nope'" in agent.fails("exec", command="true", cwd="nope")
    assert "the command is empty" in agent.fails("exec", command="  ")


def test_no_process_is_left_behind_by_many_quick_commands(workspace, mode):
    agent = make(workspace, mode)
    tag = marker()
    for _ in range(5):
        agent.ok("exec", command=f"sleep {tag} & sleep {tag} & echo ok", timeout=5)
    assert wait_gone(tag) == []
    assert running(tag) == []
