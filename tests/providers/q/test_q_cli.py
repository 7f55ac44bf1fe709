"""``chatcli -p --provider q`` and ``--json`` for real, plain and daemon, against the fake q."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from q_support import FakeQ, assert_no_orphans, running

CHATCLI = str(Path(sys.executable).with_name("chatcli"))
MODES = {"daemon": {}, "plain": {"CHATCLI_Q_DAEMON": "false"}}


def run(home: Path, fake: FakeQ, *args: str, timeout: float = 60,
        **env: str) -> subprocess.CompletedProcess[str]:
    work = home / "work"
    work.mkdir(exist_ok=True)
    return subprocess.run([CHATCLI, *args], capture_output=True, text=True, timeout=timeout,
                          cwd=work, env={**os.environ, **fake.env(), **env},
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("mode", MODES)
def test_print_mode_answers_cleaned(home: Path, fake_q: FakeQ, mode: str) -> None:
    done = run(home, fake_q, "-p", "héllo from chatcli", "--provider", "q", **MODES[mode])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "You said: héllo from chatcli\n\nI know 0 earlier questions.\n"
    assert "\x1b" not in done.stdout and "Thinking" not in done.stdout + done.stderr
    assert_no_orphans(fake_q.pids())


@pytest.mark.parametrize("mode", MODES)
def test_json_mode(home: Path, fake_q: FakeQ, mode: str) -> None:
    done = run(home, fake_q, "-p", "json please", "--provider", "q", "--json", **MODES[mode])
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["text"] == "You said: json please\n\nI know 0 earlier questions."
    assert reply["provider"] == "q" and reply["stop_reason"] == "end_turn"
    assert_no_orphans(fake_q.pids())


@pytest.mark.parametrize("mode", MODES)
def test_continuing_a_conversation_gives_q_the_transcript(home: Path, fake_q: FakeQ,
                                                          mode: str) -> None:
    assert run(home, fake_q, "-p", "first", "--provider", "q", **MODES[mode]).returncode == 0
    done = run(home, fake_q, "-c", "-p", "second", "--provider", "q", **MODES[mode])
    assert done.returncode == 0, done.stderr
    assert "You said: second" in done.stdout and "I was given a transcript" in done.stdout
    sent = fake_q.inputs()[-1].replace("\\\n", "\n")  # the daemon's continuation marks
    assert sent.startswith("Previous conversation:\n\nUser: first")


def test_trust_all_tools_from_config(home: Path, fake_q: FakeQ) -> None:
    config = home / "config" / "config.toml"
    config.write_text('[providers.q]\ntrust_all_tools = true\ndaemon = false\n')
    assert run(home, fake_q, "-p", "x", "--provider", "q").returncode == 0
    assert fake_q.starts()[-1]["argv"] == ["chat", "--no-interactive", "--trust-all-tools", "x"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("fault", "words"), [
    ("notloggedin", "Amazon Q: you are not logged in — run `q login` in a terminal"),
    ("empty", "answered nothing"),
])
def test_failures_are_one_line(home: Path, fake_q: FakeQ, mode: str, fault: str,
                               words: str) -> None:
    done = run(home, fake_q, "-p", "x", "--provider", "q", FAKE_Q_MODE=fault, **MODES[mode])
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert_no_orphans(fake_q.pids())


def test_not_installed(home: Path, fake_q: FakeQ) -> None:
    env = fake_q.env()
    done = subprocess.run([CHATCLI, "-p", "x", "--provider", "q"], capture_output=True,
                          text=True, timeout=60, cwd=home, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PATH": "/usr/bin:/bin",
                               "FAKE_Q_LOG": env["FAKE_Q_LOG"]})
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "chatcli: error: the Amazon Q CLI (q) is not installed or not on PATH — install it "
        "(https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/command-line-installing.html)"
        " and run `q login`, or set `chatcli config set providers.q.command /path/to/q`"]


@pytest.mark.parametrize("mode", MODES)
def test_a_hang_times_out_with_its_fix(home: Path, fake_q: FakeQ, mode: str) -> None:
    config = home / "config" / "config.toml"
    config.write_text("[providers.q]\ntimeout = 1.5\nmax_retries = 0\n")
    done = run(home, fake_q, "-p", "x", "--provider", "q", FAKE_Q_MODE="hang", **MODES[mode])
    assert done.returncode == 1
    assert "providers.q.timeout" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert_no_orphans(fake_q.pids())


@pytest.mark.parametrize("mode", MODES)
def test_ctrl_c_leaves_no_q_running(home: Path, fake_q: FakeQ, mode: str) -> None:
    work = home / "work"
    work.mkdir(exist_ok=True)
    chat = subprocess.Popen([CHATCLI, "-p", "a long answer please", "--provider", "q"],
                            cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **fake_q.env(), "FAKE_Q_DELAY": "0.3",
                                 **MODES[mode]})
    try:
        assert chat.stdout is not None
        assert chat.stdout.read(4) == "You "  # the answer is streaming
        pids = fake_q.pids()
        assert pids and all(running(pid) for pid in pids)
        chat.send_signal(signal.SIGINT)
        chat.wait(30)
    finally:
        if chat.poll() is None:
            chat.kill()
    assert chat.returncode == 130
    assert_no_orphans(pids)


def test_the_daemon_serves_every_answer_of_a_process(home: Path, fake_q: FakeQ) -> None:
    """`chatcli -p` ends after one answer; the daemon quits with it (`/quit`, exit 0)."""
    assert run(home, fake_q, "-p", "x", "--provider", "q").returncode == 0
    assert len(fake_q.starts()) == 1 and fake_q.starts()[0]["argv"] == ["chat"]
    assert_no_orphans(fake_q.pids())
