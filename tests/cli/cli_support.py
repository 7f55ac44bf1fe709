"""Helpers shared by the command-line tests: paths, fake terminals, in-process and real runs
(the real-process helpers live in tests/process_support.py, for every folder; re-exported here).

(A module of its own, not conftest.py: test modules import these names, and conftest modules
of different test folders would shadow each other.)
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_admin import plugin as admin_plugin
from chatcli_agent.permissions import cli_options
from chatcli_cli.root import run
from chatcli_print import plugin as print_plugin
from chatcli_testing import ScriptedProvider, scripted_plugin
from process_support import (  # noqa: F401 (the tests import them from here)
    CHATCLI,
    PYTHON,
    VENV_BIN,
    openai_env,
    plugin_distribution,
    process_env,
    run_bytes,
    run_process,
)
from scripted_app import ToolPlugin

ROOT = Path(__file__).resolve().parents[2]
SCRIPTED_APP = Path(__file__).parent / "scripted_app.py"


class TtyInput(io.StringIO):
    """A stdin that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@dataclass
class Result:
    """What one chatcli run produced."""

    code: int
    out: str
    err: str


class Cli:
    """Runs chatcli in-process with a host holding a scripted provider."""

    def __init__(self, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        self.provider = ScriptedProvider()
        self.host = PluginHost(warn=lambda line: print(f"chatcli: warning: {line}",
                                                       file=sys.stderr))
        self.host.register(scripted_plugin(self.provider), "scripted")
        self.host.register(ToolPlugin(), "tools")
        self.host.register(cli_options, "agent-options")  # --allow, as chatcli-agent adds it
        self.host.register(admin_plugin, "admin")  # config, keys, models, plugins, trust
        self.host.register(print_plugin, "print")  # -p: answer once

    def script(self, *replies) -> None:
        """Queue the provider's replies (chatcli_testing Reply / Fault / exceptions)."""
        self.provider.script(*replies)

    def __call__(self, *argv: str, stdin: str | io.StringIO = "") -> Result:
        self.capsys.readouterr()
        source = stdin if isinstance(stdin, io.StringIO) else io.StringIO(stdin)
        self.monkeypatch.setattr(sys, "stdin", source)
        code = run(list(argv), host=self.host)
        captured = self.capsys.readouterr()
        return Result(code, captured.out, captured.err)
