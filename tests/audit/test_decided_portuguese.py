"""Who decided a tool call, in a Brazilian Portuguese run (CHATCLI_LANG=pt_BR): the permission
policy's reasons are translated, so the audit log reads ``decided_by`` from the verdict's ``by``
(:attr:`chatcli.Verdict.by`), not from the reason's words — the same values as in English.

One ``chatcli -p "/coder …"`` run in plan mode, without ``--allow``, makes four calls: a command a
``deny`` rule refuses, a command plan mode refuses, a write a user hook (``PreToolUse``) refuses
and a read outside the workspace, which would ask and is refused because nobody can be asked.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from audit_support import PLUGINS, chatcli, environment, git_repo, log_file, records
from chatcli_testing import OpenAIServer, Reply, ToolCall

pytestmark = pytest.mark.slow

EXPECTED = [
    ("exec", "deny", "rule"),         # [permissions] deny exec(rm:*)
    ("exec", "deny", "mode"),         # plan mode is read-only
    ("write", "deny", "hook"),        # the PreToolUse hook says deny
    ("read", "deny", "unattended"),   # outside the workspace: would ask; nobody to ask in -p
]


def _run(tmp_path: Path, language: str) -> list[dict[str, Any]]:
    home, repo = tmp_path / "home", git_repo(tmp_path / "repo")
    outside = tmp_path / "outside.txt"
    outside.write_text("elsewhere\n")
    hook = tmp_path / "deny-hook"
    hook.write_text("#!/bin/sh\ncat >/dev/null\n"
                    "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"deny\"}}'\n")
    hook.chmod(0o755)
    with OpenAIServer() as server:
        server.script(
            Reply(tool_calls=[ToolCall("exec", {"command": "rm notes.txt"}),
                              ToolCall("exec", {"command": "mkdir build"}),
                              ToolCall("write", {"path": "x.txt", "content": "x\n"}),
                              ToolCall("read", {"path": str(outside)})]),
            Reply(text="Blocked."))
        env = environment(home, server.url, PLUGINS + ",user-hooks", CHATCLI_LANG=language)
        (home / "config" / "config.toml").write_text(
            '[permissions]\ndeny = ["exec(rm:*)"]\n\n'
            f'[[hooks.PreToolUse]]\nmatcher = "write"\ncommand = "{hook}"\n')
        done = chatcli(repo, env, "--provider", "openai", "--model", "gpt-4o",
                       "--permission-mode", "plan", "-p", "/coder try")
    assert done.returncode in (0, 3), done.stderr
    assert not (repo / "x.txt").exists() and (repo / "notes.txt").exists()
    return [r for r in records(log_file(home)) if r["kind"] == "tool_call"]


def test_who_decided_is_the_same_in_portuguese(tmp_path: Path) -> None:
    calls = _run(tmp_path, "pt_BR")
    assert [(c["tool"], c["decision"], c["decided_by"]) for c in calls] == EXPECTED
    assert calls[0]["rule"] == "exec(rm:*)"
    # the reasons are Portuguese: no English words left to read who decided from
    assert "negado pela regra exec(rm:*)" in calls[0]["reason"], calls[0]["reason"]
    assert "denied by the rule" not in calls[0]["reason"]
    assert not calls[1]["reason"].startswith("plan mode"), calls[1]["reason"]
    assert "nobody can be asked" not in calls[3]["reason"], calls[3]["reason"]
    assert "ninguém pode ser perguntado" in calls[3]["reason"]


def test_who_decided_in_english_is_unchanged(tmp_path: Path) -> None:
    calls = _run(tmp_path, "en")
    assert [(c["tool"], c["decision"], c["decided_by"]) for c in calls] == EXPECTED
    assert calls[0]["rule"] == "exec(rm:*)"
    assert "denied by the rule exec(rm:*)" in calls[0]["reason"]
    assert calls[1]["reason"].startswith("plan mode is read-only")
    assert "nobody can be asked" in calls[3]["reason"]
