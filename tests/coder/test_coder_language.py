"""chatcli-coder speaks the user's language where only the user reads it: a wrong ``[coder]``
setting is reported in Brazilian Portuguese under CHATCLI_LANG=pt_BR (the real command line),
while what the model reads (the tools' descriptions, their schemas, their results) stays
English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatcli_testing import Reply
from process_support import CHATCLI, openai_env, run_process


def _run(home: Path, server: Any, language: str) -> Any:
    return run_process([CHATCLI, "--provider", "openai", "--model", "m", "-p", "hello"], home,
                       CHATCLI_LANG=language, **openai_env(server))


def test_a_wrong_coder_setting_in_portuguese_and_english(tmp_path: Path,
                                                         openai_server: Any) -> None:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text('[coder]\nsandbox = "nope"\n')
    openai_server.script(Reply(text="ok"), Reply(text="ok"))
    done = _run(home, openai_server, "pt_BR")
    assert done.returncode == 0, done.stderr
    assert ("""[coder] sandbox deve ser "auto", "bwrap" ou "off", não 'nope'"""
            in done.stderr)
    english = _run(home, openai_server, "en")
    assert """[coder] sandbox must be "auto", "bwrap" or "off", not 'nope'""" in english.stderr


def test_the_model_reads_the_tools_in_english(tmp_path: Path, openai_server: Any) -> None:
    home = tmp_path / "home"
    home.mkdir()
    openai_server.script(Reply(text="ok"))
    done = _run(home, openai_server, "pt_BR")
    assert done.returncode == 0, done.stderr
    tools = {t["function"]["name"]: t["function"] for t in openai_server.requests[0].json["tools"]}
    assert tools["read"]["description"].startswith("Read a text file, with line numbers")
    assert tools["read"]["parameters"]["properties"]["offset"]["description"] == (
        "First line to show (1 = the first).")
