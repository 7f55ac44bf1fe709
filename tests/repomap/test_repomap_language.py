"""The repomap plugins' warnings speak the user's language (Brazilian Portuguese here); the
sections the model reads stay English."""

from __future__ import annotations

from pathlib import Path

from chatcli_testing import OpenAIServer
from repomap_support import cli, make_repo, section, system_of


def test_a_wrong_setting_is_reported_in_portuguese_and_the_model_reads_english(
        tmp_path: Path, openai_server: OpenAIServer) -> None:
    root = make_repo(tmp_path / "proj")
    openai_server.script("ok", "ok")
    config = "[repomap]\ntokens = 'many'\n"
    done = cli(tmp_path / "home", root, openai_server, "-p", "hello", config=config,
               CHATCLI_LANG="pt_BR")
    assert done.returncode == 0, done.stderr
    assert "[repomap] tokens deve ser um número inteiro, não 'many'; usando 1024" in done.stderr
    system = system_of(openai_server.requests[0])
    assert "- Working directory: " in section(system, "Environment (")
    english = cli(tmp_path / "home", root, openai_server, "-p", "hello", config=config,
                  CHATCLI_LANG="en")
    assert "[repomap] tokens must be a whole number, not 'many'; using 1024" in english.stderr
