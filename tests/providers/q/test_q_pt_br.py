"""chatcli-provider-q in Brazilian Portuguese, for real against the fake q: the install hint,
q's failures with their fixes (q's own words kept inside the sentence); English unchanged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from q_support import FakeQ

CHATCLI = str(Path(sys.executable).with_name("chatcli"))
URL = "https://docs.aws.amazon.com/amazonq/latest/qdeveloper-ug/command-line-installing.html"


def run(home: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CHATCLI, *args], capture_output=True, text=True, timeout=60,
                          cwd=home, stdin=subprocess.DEVNULL, env={**os.environ, **env})


def test_the_install_hint_is_in_portuguese(home: Path, fake_q: FakeQ) -> None:
    env = {"PATH": "/usr/bin:/bin", "FAKE_Q_LOG": fake_q.env()["FAKE_Q_LOG"]}
    done = run(home, {**env, "CHATCLI_LANG": "pt_BR"}, "-p", "x", "--provider", "q")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "chatcli: erro: a CLI do Amazon Q (q) não está instalada ou não está no PATH — "
        f"instale-a ({URL}) e rode `q login`, ou defina o caminho com "
        "`chatcli config set providers.q.command /path/to/q`"]
    english = run(home, {**env, "CHATCLI_LANG": "en"}, "-p", "x", "--provider", "q")
    assert "the Amazon Q CLI (q) is not installed or not on PATH — install it" in english.stderr


def test_q_failures_name_their_fix_in_portuguese(home: Path, fake_q: FakeQ) -> None:
    env = {**fake_q.env(), "CHATCLI_Q_DAEMON": "false", "CHATCLI_LANG": "pt_BR"}
    done = run(home, {**env, "FAKE_Q_MODE": "notloggedin"}, "-p", "x", "--provider", "q")
    assert done.returncode == 1
    assert ("Amazon Q: você não está logado — rode `q login` em um terminal e tente de novo"
            in done.stderr)
    done = run(home, {**env, "FAKE_Q_MODE": "exit3"}, "-p", "x", "--provider", "q")
    assert "o q terminou com o código 3: the flux capacitor is empty" in done.stderr
