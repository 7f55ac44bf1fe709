"""Sessions per project in the chat, driven in a real terminal (tmux): ``chatcli --resume``
without an id asks which of this project's sessions to go on with before the chat starts, and
``/session load`` lists this project's sessions (with folder and age) before every project's."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chatcli_testing import Reply
from repl.terminal import Terminal, have_tmux

pytestmark = pytest.mark.terminal

CHATCLI = str(Path(sys.executable).parent / "chatcli")


@pytest.fixture
def repos(home: Path, tmp_path: Path, openai_server) -> tuple[Path, Path, dict[str, str]]:
    """Two git repositories, a session in each (alpha's older one first), and the terminal's
    environment."""
    if not have_tmux():
        pytest.skip("tmux is not installed")
    env = {"CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
           "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"], "TERM": "xterm-256color",
           "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "CHATCLI_MEMORY__EXTRACT": "false", "OPENAI_API_KEY": "test",
           "OPENAI_BASE_URL": openai_server.url}
    folders = []
    for name, questions in (("alpha", ["older alpha", "newer alpha"]),
                            ("beta", ["beta question"])):
        folder = tmp_path / name
        folder.mkdir()
        subprocess.run(["git", "init", "-q", str(folder)], check=True)
        for question in questions:
            openai_server.script(Reply(text=f"answer to {question}"))
            done = subprocess.run([CHATCLI, "--provider", "openai", "-p", question], cwd=folder,
                                  env={**os.environ, **env}, capture_output=True, text=True,
                                  timeout=60, stdin=subprocess.DEVNULL)
            assert done.returncode == 0, done.stderr
        folders.append(folder)
    return folders[0], folders[1], env


def test_resume_without_an_id_asks_before_the_chat_starts(repos, openai_server) -> None:
    alpha, _beta, env = repos
    term = Terminal(f"{CHATCLI} --provider openai --resume", env, cwd=alpha, width=250)
    try:
        screen = term.wait_for("Resume which session?")
        assert f"Sessions of this project ({alpha.resolve()}), newest first:" in screen
        assert "newer alpha — just now, 2 msgs" in screen and "beta question" not in screen
        assert "a  every project (1 more in other projects)" in screen
        term.type("2")
        screen = term.wait_for("resumed 2 messages")
        assert "older alpha" in screen.split("resumed 2 messages", 1)[1]
        # the input line is drawn under the recap: keys typed now reach it
        term.wait_for(lambda shown: shown.rfind("›") > shown.find("answer to older alpha") > 0)
        time.sleep(0.5)
        openai_server.script(Reply(text="going on"))
        term.type("and then?")
        term.wait_for("going on")
        sent = [m["content"].splitlines()[0] for m in openai_server.requests[-1].json["messages"]
                if m["role"] in ("user", "assistant")]
        assert sent == ["older alpha", "answer to older alpha", "and then?"]
    finally:
        term.close()


def test_session_load_lists_this_project_first_then_every_project(repos) -> None:
    alpha, beta, env = repos
    term = Terminal(f"{CHATCLI} --provider openai", env, cwd=beta, width=250)
    try:
        term.wait_for("›")
        term.type("/session load")
        screen = term.wait_for("every project…")
        assert "beta question — just now, 2 msgs" in screen and "alpha" not in screen
        term.send("Down")
        term.send("Enter")
        screen = term.wait_for("older alpha")
        assert f"· {alpha.resolve()}" in screen, screen
        term.send("Down")  # the second of every project's: newest first
        term.send("Down")
        term.send("Enter")
        screen = term.wait_for("Loaded session")
        assert "older alpha" in screen.split("Loaded session", 1)[1]
    finally:
        term.close()
