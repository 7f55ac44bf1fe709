"""``chatcli -p`` on a terminal shows "waiting for PROVIDER/MODEL…" on stderr until the answer
starts, then erases it; piped, ``--raw`` or ``--json`` output shows none (real tmux terminal)."""

from __future__ import annotations

import time

import pytest
from chatcli_testing import Fault, Reply
from cli_support import CHATCLI, openai_env, run_process
from repl.terminal import Terminal, have_tmux

pytestmark = pytest.mark.terminal

WAITING = "waiting for openai/gpt-test…"


@pytest.fixture
def terminal(tmp_path):
    if not have_tmux():
        pytest.skip("tmux is not installed")
    started: list[Terminal] = []

    def start(server, *args: str) -> Terminal:
        env = {"CHATCLI_CONFIG_DIR": str(tmp_path / "config"),
               "CHATCLI_DATA_DIR": str(tmp_path / "data"), "CHATCLI_PLUGINS": "openai,print",
               "TERM": "xterm-256color", "HOME": str(tmp_path), **openai_env(server)}
        term = Terminal(" ".join([str(CHATCLI), "-p", "hi", "-m", "gpt-test", *args]), env)
        started.append(term)
        return term

    yield start
    for term in started:
        term.close()


def stalled(server) -> None:
    server.script(Fault(stall=1.5, reply=Reply(text="The answer is **42**.")))


def test_a_spinner_waits_for_the_first_token_then_is_erased(terminal, openai_server):
    stalled(openai_server)
    term = terminal(openai_server)
    term.wait_for(WAITING, timeout=10)
    screen = term.wait_for("EXIT=0", timeout=10)
    assert "The answer is 42." in screen  # rendered markdown
    assert "waiting for" not in screen
    assert screen.splitlines()[0].rstrip() == "The answer is 42."  # on the spinner's line


@pytest.mark.parametrize("flag", ["--raw", "--json"])
def test_no_spinner_with_raw_or_json(terminal, openai_server, flag):
    stalled(openai_server)
    term = terminal(openai_server, flag)
    screens = []
    deadline = time.monotonic() + 10
    while "EXIT=" not in (screens[-1] if screens else "") and time.monotonic() < deadline:
        screens.append(term.screen())
        time.sleep(0.1)
    assert "EXIT=0" in screens[-1] and "The answer is" in screens[-1]
    assert not any("waiting for" in screen for screen in screens)


def test_no_spinner_when_piped(tmp_path, openai_server):
    stalled(openai_server)
    done = run_process([CHATCLI, "-p", "hi", "-m", "gpt-test"], tmp_path,
                       **openai_env(openai_server), CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 0
    assert done.stdout == "The answer is **42**.\n" and done.stderr == ""
