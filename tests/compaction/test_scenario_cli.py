"""The Done-when scenario through the real command line: ``chatcli -p`` then ``chatcli -c -p``
turn after turn against the OpenAI wire server with a 4,000-token window, until the threshold
fires (one ``⟲`` line on stderr); the compacted view survives ``-c`` (the next process sends the
summary, not the originals); ``/compact status``, ``/compact undo all`` and ``/compact
INSTRUCTION`` work from the shell."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import compaction_files_plugin as files
import pytest
from chatcli_testing import Reply, ToolCall
from compaction_support import answer_summaries, chat_requests, is_summary_request

CHATCLI = str(Path(sys.executable).with_name("chatcli"))
NO_COUNT = {"input_tokens": 0, "output_tokens": 5}


class Shell:
    """Runs the real ``chatcli`` in an isolated home with the compaction plugins."""

    def __init__(self, tmp_path: Path, server: Any) -> None:
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("OPENAI_", "ANTHROPIC_"))}
        self.env.update(
            OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.url,
            PYTHONPATH=files.install(tmp_path / "site"),
            CHATCLI_PLUGINS="openai,sessions,compaction,compaction-files,print",
            CHATCLI_CONTEXT_WINDOW="4000", CHATCLI_COMPACT_KEEP_RECENT="6")

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([CHATCLI, "--provider", "openai", "--model", "m", *args],
                              capture_output=True, text=True, timeout=60,
                              env={**self.env, **env}, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        return done


def _sent(request: Any) -> str:
    return str(request.json["messages"][1:])


def test_compaction_through_the_real_cli_survives_continue(
        chatcli_home: Path, tmp_path: Path, openai_server: Any) -> None:
    answer_summaries(openai_server)
    shell = Shell(tmp_path, openai_server)
    openai_server.script(Reply(text="Hello. DONE", usage=NO_COUNT))
    shell.run("-p", "hello")
    fired = None
    for number in range(1, 20):
        openai_server.script(
            Reply(tool_calls=[ToolCall("read", {"path": f"src/mod{number}.py"})],
                  usage=NO_COUNT),
            Reply(text=f"mod{number} defines functions. DONE", usage=NO_COUNT))
        done = shell.run("-c", "-p", f"what is in src/mod{number}.py?")
        if any(is_summary_request(r) for r in openai_server.requests):
            fired = done
            break
    assert fired is not None, "the threshold never fired"
    lines = [line for line in fired.stderr.splitlines() if "⟲" in line]
    assert len(lines) == 1 and lines[0].startswith("chatcli: ⟲ compacted with ")
    assert " tokens" in lines[0] and " → ~" in lines[0]
    assert f"mod{number} defines functions. DONE" in fired.stdout

    # a new process resumes the compacted view: the summary travels, the originals do not
    openai_server.script(Reply(text="noted. DONE", usage=NO_COUNT))
    shell.run("-c", "-p", "and now?")
    sent = _sent(chat_requests(openai_server)[-1])
    assert "[Summary of earlier conversation" in sent
    contents = [m.get("content") or "" for m in chat_requests(openai_server)[-1].json[
        "messages"]]
    assert any('context_pull {"kind": "history", "id": "cmp_' in c for c in contents)
    assert "src/mod1.py line 0" not in sent
    assert files.file_text(f"src/mod{number}.py") in contents  # recent: verbatim

    status = shell.run("-c", "-p", "/compact status").stdout
    assert "compactions in force: " in status and "of 4,000 tokens" in status

    undone = shell.run("-c", "-p", "/compact undo all").stdout
    assert "⟲ undid summarise" in undone
    openai_server.script(Reply(text="everything. DONE", usage=NO_COUNT))
    shell.run("-c", "-p", "list the files", CHATCLI_COMPACT_THRESHOLD="0")
    messages = chat_requests(openai_server)[-1].json["messages"]
    assert files.file_text("src/mod1.py") in [m.get("content") for m in messages]
    assert "[Summary of earlier conversation" not in str(messages)

    # /compact INSTRUCTION from the shell: the instruction steers the summary call
    before = len(openai_server.requests)
    manual = shell.run("-c", "-p", "/compact keep the file names").stdout
    assert manual.startswith("⟲ compacted with")
    summary_call = next(r for r in openai_server.requests[before:] if is_summary_request(r))
    assert "keep the file names" in summary_call.json["messages"][0]["content"]
    openai_server.script(Reply(text="ok. DONE", usage=NO_COUNT))
    shell.run("-c", "-p", "go on", CHATCLI_COMPACT_THRESHOLD="0")
    assert "[Summary of earlier conversation" in _sent(chat_requests(openai_server)[-1])


@pytest.mark.parametrize("argument", ["undo", "status"])
def test_the_subcommands_say_something_useful_on_a_fresh_conversation(
        chatcli_home: Path, tmp_path: Path, openai_server: Any, argument: str) -> None:
    shell = Shell(tmp_path, openai_server)
    openai_server.script(Reply(text="hi", usage=NO_COUNT))
    shell.run("-p", "hello")
    out = shell.run("-c", "-p", f"/compact {argument}").stdout
    assert ("nothing to undo" in out) if argument == "undo" else (
        "compactions in force: 0" in out)
