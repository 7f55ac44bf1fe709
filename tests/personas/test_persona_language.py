"""chatcli-personas in Brazilian Portuguese: ``/persona`` and ``/personas`` under
``CHATCLI_LANG=pt_BR`` say their own lines in Portuguese, while a persona's label and
description (its markdown file's words) are shown as written; English is unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from personas_support import cli, persona_file, write


def test_persona_commands_speak_portuguese(home: Path, workspace: Path,
                                           openai_server: Any) -> None:
    write(workspace, ".chatcli/agents/tester.md",
          persona_file("tester", description="Pokes at everything."))
    openai_server.script("ok", "ok", "ok", "ok")

    switched = cli(home, workspace, openai_server, "-p", "/persona security-specialist",
                   CHATCLI_LANG="pt_BR")
    assert switched.returncode == 0, switched.stderr
    assert "agora falando como 🛡 Security Specialist (@security-specialist)" in (
        switched.stdout + switched.stderr)

    unknown = cli(home, workspace, openai_server, "-p", "/persona nosuch", CHATCLI_LANG="pt_BR")
    assert "nenhuma persona se chama 'nosuch'" in unknown.stdout + unknown.stderr

    listed = cli(home, workspace, openai_server, "-p", "/personas", CHATCLI_LANG="pt_BR")
    shown = listed.stdout + listed.stderr
    assert "Pokes at everything. (projeto)" in shown  # the description: as written
    assert "@NAME … manda uma mensagem para uma persona" in shown

    english = cli(home, workspace, openai_server, "-p", "/persona nosuch")
    assert "no persona is called 'nosuch'" in english.stdout + english.stderr
