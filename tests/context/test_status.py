"""``/context status``: the next request's prompt section by section — characters, estimated
tokens, stable or volatile, cached or not — beside what the provider counted on the last call."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from chatcli_testing import Reply
from context_support import cli, write


def _row(out: str, name: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.strip().startswith(name + " "))
    return line.split()


def test_sections_cache_states_and_the_providers_count(
        anthropic_chat: Any, anthropic_server: Any, workspace: Path) -> None:
    write(workspace, "AGENTS.md", "Always run the tests.\n")
    write(workspace, ".chatcli/rules/py.md", "---\npaths: ['*.py']\n---\nType hints.\n")
    write(workspace, "notes.md", "n" * 400 + "\n")
    session = anthropic_chat()
    out = session.command("status")
    assert "prompt of the next request (anthropic/m, prompt caching):" in out
    assert _row(out, "chatcli")[1:] == ["161", "40", "stable", "write"]  # nothing sent yet
    assert _row(out, "bootstrap:AGENTS.md")[-2:] == ["stable", "write"]
    assert _row(out, "date")[-2:] == ["volatile", "no"]
    assert "last call: none yet in this session" in out
    assert "(providers cache a prefix only from about 1,024 tokens" in out

    anthropic_server.script(Reply(text="ok", usage={"input_tokens": 1234, "output_tokens": 3}))
    session.turn("look at app.py")
    out = session.command("status")
    assert _row(out, "chatcli")[-1] == "hit" and _row(out, "bootstrap:AGENTS.md")[-1] == "hit"
    assert _row(out, "rule:py.md")[-2:] == ["volatile", "no"]  # the turn named app.py
    assert re.search(r"last call: the provider counted 1,234 input tokens; the local "
                     r"estimate was \d", out)
    assert re.search(r"next request ~[\d,]+ tokens of a [\d,]+-token context window", out)
    assert "context_pull is on (from the default)" in out

    session.command("create notes notes.md")
    session.command("attach notes")
    out = session.command("status")
    assert _row(out, "chatcli")[-1] == "hit"  # before the change: still cached
    assert _row(out, "context:notes")[1:] == ["483", "483", "stable", "write"]  # ×4: the count
    assert _row(out, "bootstrap:AGENTS.md")[-1] == "write"  # after it: written again


def test_a_provider_without_prompt_caching_and_the_command_line(
        openai_server: Any, workspace: Path, home: Path) -> None:
    write(workspace, "AGENTS.md", "Always run the tests.\n")
    assert cli(home, workspace, openai_server, "-p", "hello").returncode == 0
    done = cli(home, workspace, openai_server, "-c", "-p", "/context status")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "prompt of the next request (openai/m, no prompt caching):" in out
    assert _row(out, "bootstrap:AGENTS.md")[-2:] == ["stable", "-"]
    assert "messages (2)" in out
    assert "last call: none yet in this session" in out  # a new process: no call made yet
