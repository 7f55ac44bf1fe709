"""chatcli-otel in Brazilian Portuguese: a wrong ``[otel]`` setting and a collector that never
answers, said in the user's language (CHATCLI_LANG=pt_BR) — and in English as before."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatcli_testing import Reply
from otel_support import CHATCLI, chatcli_env, silent_collector

pytestmark = pytest.mark.slow


def _run(workspace: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), "-p", "hello", "--model", "gpt-test"], cwd=workspace,
                          env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize(("language", "said"), [
    ("pt_BR", "[otel] timeout deve ser um número de segundos entre 0 e 60 — "
              "defina [otel] timeout = 2"),
    ("en", "[otel] timeout must be a number of seconds between 0 and 60 — "
           "set [otel] timeout = 2"),
])
def test_a_wrong_setting_in_the_users_language(home, workspace, openai_server, language, said):
    (home / "config" / "config.toml").write_text("[otel]\ntimeout = -1\n")
    done = _run(workspace, chatcli_env(home, openai_server, CHATCLI_LANG=language))
    assert done.returncode == 2
    assert said in done.stderr, done.stderr


def test_a_silent_collector_is_said_in_portuguese(home, workspace, openai_server):
    openai_server.script(Reply(text="Oi."))
    (home / "config" / "config.toml").write_text("[otel]\ntimeout = 0.5\n")
    with silent_collector() as endpoint:
        done = _run(workspace, chatcli_env(home, openai_server, CHATCLI_LANG="pt_BR",
                                           OTEL_EXPORTER_OTLP_ENDPOINT=endpoint))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Oi.\n"
    assert "otel: o coletor não recebeu a telemetria desta execução" in done.stderr, done.stderr
