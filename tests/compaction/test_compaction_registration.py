"""The plugin registers trim, summarise and truncate (in that order) and ``/compact``; its entry
module stays light: ``chatcli --help`` imports none of the strategies (only the declaration of
``register_compaction_strategies``, ``hookspecs``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from chatcli import PluginHost
from chatcli_compaction import plugin, runner


def test_the_strategies_and_the_command_are_registered() -> None:
    host = PluginHost()
    host.register(plugin, "compaction")
    strategies = runner.strategies(host)
    assert [(s.name, s.order, s.uses_model) for s in sorted(
        strategies.values(), key=lambda s: s.order)] == [
        ("trim", 100, False), ("summarise", 200, True), ("truncate", 300, False)]
    command = host.slash_commands()["compact"]
    assert list(command.subcommands) == ["undo", "status"] and "/compact" in command.help


def test_chatcli_help_imports_none_of_the_strategies(tmp_path: Path) -> None:
    code = ("import sys; sys.argv = ['chatcli', '--help']\n"
            "from chatcli_cli.root import run\n"
            "code = run()\n"
            "import chatcli_compaction.plugin\n"
            "heavy = sorted(m for m in sys.modules if m.startswith('chatcli_compaction.')"
            " and m not in ('chatcli_compaction.plugin', 'chatcli_compaction.hookspecs'))\n"
            "print('HEAVY', heavy, code)")
    env = {**os.environ, "CHATCLI_PLUGINS": "compaction", "CHATCLI_CONFIG_DIR": str(tmp_path),
           "CHATCLI_DATA_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.stdout.strip().endswith("HEAVY [] 0"), done.stdout + done.stderr
