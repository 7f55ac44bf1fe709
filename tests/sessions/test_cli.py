"""`chatcli sessions …` for scripts, and `-c` / `--resume` from the shell (real subprocesses)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_sessions.cli import sessions
from chatcli_sessions.store import SessionStore
from click.testing import CliRunner
from sessions_helpers import new_conversation, turn

CHATCLI = Path(sys.executable).parent / "chatcli"


def run_chatcli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the installed ``chatcli`` console script."""
    return subprocess.run(
        [str(CHATCLI), *args], capture_output=True, text=True, timeout=60,
        env=env or dict(os.environ),
    )


@pytest.fixture
def two_sessions(host: PluginHost) -> tuple[str, str]:
    first = new_conversation(host)
    turn(first, "how to vacuum postgres", "run VACUUM ANALYZE")
    second = new_conversation(host)
    turn(second, "rust lifetimes explained", "they are scopes")
    return first.id, second.id


def test_list_json_and_text(two_sessions: tuple[str, str]) -> None:
    first, second = two_sessions
    result = CliRunner().invoke(sessions, ["list", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [s["id"] for s in data] == [second, first]
    assert data[0]["title"] == "rust lifetimes explained" and data[0]["messages"] == 2
    result = CliRunner().invoke(sessions, ["list", "-n", "1"])
    assert second in result.output and first not in result.output


def test_show_export_search_delete(two_sessions: tuple[str, str], tmp_path: Path) -> None:
    first, second = two_sessions
    runner = CliRunner()
    shown = runner.invoke(sessions, ["show", first[:7]])
    assert shown.exit_code == 0
    assert "## User\n\nhow to vacuum postgres" in shown.output
    target = tmp_path / "s.json"
    result = runner.invoke(sessions, ["export", first, "--format", "json", "-o", str(target)])
    assert result.exit_code == 0
    assert json.loads(target.read_text())["session"]["id"] == first
    assert runner.invoke(sessions, ["export", first]).output == shown.output
    found = runner.invoke(sessions, ["search", "--json", "lifetimes"])
    assert [h["session_id"] for h in json.loads(found.output)] == [second]
    assert runner.invoke(sessions, ["search", "nothing-here"]).output == "No matches.\n"
    result = runner.invoke(sessions, ["delete", second, "no-such-session"])
    assert result.exit_code == 2
    assert "no session matches 'no-such-session'" in result.output
    assert len(json.loads(runner.invoke(sessions, ["list", "--json"]).output)) == 2  # nothing
    assert runner.invoke(sessions, ["delete", second]).exit_code == 0
    assert [s["id"] for s in json.loads(runner.invoke(sessions, ["list", "--json"]).output)] == [
        first
    ]


def test_the_real_command_line(two_sessions: tuple[str, str]) -> None:
    first, second = two_sessions
    result = run_chatcli("sessions", "list", "--json")
    assert result.returncode == 0, result.stderr
    assert [s["id"] for s in json.loads(result.stdout)] == [second, first]
    result = run_chatcli("sessions", "show", "nope")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("no session matches 'nope' — see `chatcli sessions list`")
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_continue_and_resume_with_a_real_provider(home: Path, openai_server) -> None:
    from chatcli_testing import Reply

    env = dict(os.environ, OPENAI_API_KEY="test", OPENAI_BASE_URL=openai_server.url)
    openai_server.script(Reply(text="Paris."), Reply(text="About two million."),
                         Reply(text="Berlin."))
    assert run_chatcli("--provider", "openai", "-p", "capital of France?", env=env).returncode == 0
    result = run_chatcli("--provider", "openai", "-c", "-p", "its population?", env=env)
    assert result.returncode == 0, result.stderr
    assert "About two million." in result.stdout
    sent = [m["content"] for m in openai_server.requests[-1].json["messages"][1:]]
    assert sent == ["capital of France?", "Paris.", "its population?"]
    with SessionStore(home / "data" / "sessions.db") as store:
        [info] = store.list()
        store.save(store.load(info.id), "geo")
    result = run_chatcli("--provider", "openai", "--resume", "geo", "-p", "and Germany?", env=env)
    assert result.returncode == 0, result.stderr
    sent = [m["content"] for m in openai_server.requests[-1].json["messages"][1:]]
    assert sent[-2:] == ["About two million.", "and Germany?"]
    result = run_chatcli("--provider", "openai", "--resume", "nothing", "-p", "x", env=env)
    assert result.returncode == 2
    assert "no session matches 'nothing'" in result.stderr


def test_continue_after_kill_9_mid_answer(home: Path, openai_server) -> None:
    from chatcli_testing import Reply

    env = dict(os.environ, OPENAI_API_KEY="test", OPENAI_BASE_URL=openai_server.url)
    openai_server.script(
        Reply(text="The first answer."),
        Reply(text="a very slow answer " * 50, chunk_size=2, delay=0.05),
        Reply(text="Resumed fine."),
    )
    assert run_chatcli("--provider", "openai", "-p", "first question", env=env).returncode == 0
    process = subprocess.Popen(
        [str(CHATCLI), "--provider", "openai", "-c", "-p", "second question"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while len(openai_server.requests) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(openai_server.requests) == 2, "the second request never arrived"
        time.sleep(0.2)  # the answer is streaming now
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert process.returncode == -signal.SIGKILL

    result = run_chatcli("--provider", "openai", "-c", "-p", "third question", env=env)
    assert result.returncode == 0, result.stderr
    assert "Resumed fine." in result.stdout
    sent = [m["content"] for m in openai_server.requests[-1].json["messages"][1:]]
    # the finished turn and the killed turn's question survived; the streaming answer is lost
    assert sent == ["first question", "The first answer.", "second question", "third question"]
    with SessionStore(home / "data" / "sessions.db") as store:
        assert store.integrity() == "ok"
        assert len(store.list()) == 1


def run_on_a_terminal(*args: str, columns: int) -> str:
    """Run ``chatcli ARGS`` with its output on a pseudo-terminal ``columns`` wide."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    process = subprocess.Popen([str(CHATCLI), *args], stdout=slave, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(master)
    assert process.wait(timeout=60) == 0, process.stderr.read() if process.stderr else ""
    return b"".join(chunks).decode().replace("\r\n", "\n")


@pytest.fixture
def long_titles(host: PluginHost) -> list[str]:
    """Two sessions whose titles are too long for an 80-column terminal, newest first."""
    titles = ["explain the borrow checker and lifetimes in rust with examples please",
              "why does my postgres query planner ignore the index on created_at"]
    ids = []
    for title in titles:
        conversation = new_conversation(host)
        turn(conversation, title)
        ids.append(conversation.id)
    return ids[::-1]


def test_list_on_a_terminal_has_a_header_and_cuts_titles_to_fit(long_titles: list[str]) -> None:
    lines = run_on_a_terminal("sessions", "list", columns=80).splitlines()
    assert lines[0].split() == ["ID", "NAME", "UPDATED", "MSGS", "MODEL", "TITLE"]
    assert [line.split()[0] for line in lines[1:]] == long_titles  # one line per session
    for line in lines:
        assert len(line) <= 80, line
    for line in lines[1:]:
        assert line.split()[1] == "-" and line.split()[5] == "scripted/m1"
        assert line.endswith("…")
    assert lines[1].split("scripted/m1")[1].strip().startswith("why does my")
    # the columns line up under the header
    assert lines[1].index("scripted/m1") == lines[0].index("MODEL")


def test_list_piped_keeps_whole_titles_one_session_per_line(long_titles: list[str]) -> None:
    result = run_chatcli("sessions", "list", env=dict(os.environ, COLUMNS="40"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "UPDATED", "MSGS", "MODEL", "TITLE"]
    assert len(lines) == 3
    stored = json.loads(run_chatcli("sessions", "list", "--json").stdout)
    assert [s["id"] for s in stored] == long_titles
    for line, info in zip(lines[1:], stored, strict=True):
        assert len(info["title"]) >= 59  # as stored, with nothing cut by the listing
        assert line.startswith(info["id"]) and line.endswith("  " + info["title"])


@pytest.mark.parametrize("args", [
    ["sessions", "search", b"\xff"],
    ["sessions", "search", "fine", b"caf\xe9"],
    ["sessions", "show", b"s_\xff"],
    ["sessions", "export", b"\xfe\xff"],
    ["sessions", "delete", "x", b"\xff"],
])
def test_arguments_that_are_not_utf8_are_usage_errors(
    two_sessions: tuple[str, str], args: list[str | bytes]
) -> None:
    argv = [os.fsencode(str(CHATCLI)), *(a if isinstance(a, bytes) else a.encode() for a in args)]
    result = subprocess.run(argv, capture_output=True, timeout=60)
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    assert len(err.strip().splitlines()) == 1, err
    name = "TEXT" if args[1] == "search" else "REFS" if args[1] == "delete" else "REF"
    assert f"Invalid value for '{name}" in err and "not UTF-8" in err
    assert "unexpected" not in err and "Traceback" not in err
    assert len(json.loads(run_chatcli("sessions", "list", "--json").stdout)) == 2  # kept


def test_resume_with_an_id_that_is_not_utf8_is_a_usage_error(
    two_sessions: tuple[str, str]
) -> None:
    result = subprocess.run([os.fsencode(str(CHATCLI)), b"--resume", b"s_\xff", b"-p", b"hi"],
                            capture_output=True, timeout=60)
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2, err
    [line] = err.strip().splitlines()  # the kernel or the plugin may be the one to say it
    assert line.startswith("chatcli: error: --resume") and "UTF-8" in line
    assert "unexpected" not in err and "plugin" not in err


def test_open_conversation_refuses_an_id_that_is_not_utf8(host: PluginHost) -> None:
    from chatcli import Settings, UsageError

    with pytest.raises(UsageError) as err:
        host.hooks.open_conversation(settings=Settings(), resume="s_\udcff", continue_last=False)
    assert str(err.value) == ("--resume: the session id holds bytes that are not UTF-8 — give "
                              "the id as `chatcli sessions list` shows it")


def test_the_sessions_group_loads_only_when_used_and_its_help_line_is_the_real_one():
    import subprocess
    import sys

    import chatcli_sessions.cli as real
    from chatcli_sessions.plugin import sessions_help

    assert real.sessions.help.splitlines()[0] == sessions_help()
    code = ("import sys; sys.argv = ['chatcli', '--help']\n"
            "from chatcli_cli.root import run\n"
            "code = run()\n"
            "print('LOADED' if 'chatcli_sessions.cli' in sys.modules else 'LAZY', code)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env={**__import__("os").environ,
                                           "CHATCLI_PLUGINS": "sessions"})
    assert done.stdout.strip().endswith("LAZY 0"), done.stdout + done.stderr
    assert "sessions  Saved conversations" in done.stdout
