"""``/skills trust`` in the chat gives the project's skills their ``/NAME`` commands at once:
the very next line runs the skill (it said ``unknown command`` until a later turn) — in a real
terminal (tmux)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from chatcli_testing import Reply
from repl.terminal import CHATCLI, Terminal, have_tmux

pytestmark = pytest.mark.terminal

SKILL = """---
name: release-notes
description: Write release notes. Use it for release notes.
---

# release-notes

Group the changes by type. (RN-SENTINEL)
"""


def test_skills_trust_then_the_skill_command_at_once(chatcli_home: Path, tmp_path: Path,
                                                     openai_server) -> None:
    if not have_tmux():
        pytest.skip("tmux is not installed: the REPL tests drive a real terminal through tmux")
    project = tmp_path / "project"
    (project / ".chatcli" / "skills" / "release-notes").mkdir(parents=True)
    (project / ".chatcli" / "skills" / "release-notes" / "SKILL.md").write_text(SKILL)
    openai_server.script(Reply(text="notes written"))
    env = {"CHATCLI_CONFIG_DIR": os.environ["CHATCLI_CONFIG_DIR"],
           "CHATCLI_DATA_DIR": os.environ["CHATCLI_DATA_DIR"], "HOME": str(chatcli_home),
           "TERM": "xterm-256color", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "CHATCLI_MEMORY__EXTRACT": "false", "OPENAI_API_KEY": "test",
           "OPENAI_BASE_URL": openai_server.url}
    term = Terminal(f"{CHATCLI} --provider openai", env, cwd=project)
    try:
        term.wait_for("Trust this project?", timeout=20)
        term.send("n")
        term.send("Enter")
        term.wait_for("›", timeout=20)
        term.type("/release-notes v2")  # untrusted: not a command yet
        term.wait_for("unknown command /release-notes")
        term.type("/skills trust")
        term.wait_for("skills active")
        term.type("/release-notes v2")  # at once, not a turn later
        screen = term.wait_for("notes written")
        assert screen.count("unknown command /release-notes") == 1
        last = openai_server.requests[-1].json["messages"][-1]["content"]
        assert last.startswith("v2") and "RN-SENTINEL" in last
    finally:
        term.close()
