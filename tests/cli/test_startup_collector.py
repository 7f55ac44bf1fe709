"""The ``chatcli`` process holds the garbage collector off while it starts (chatcli_cli.main) and
turns it back on when a command starts: a chat, ``-p`` or a long sub-command collects its garbage
as before. An in-process run (tests, embedding) leaves the collector alone."""

from __future__ import annotations

import gc
import json
import subprocess
from pathlib import Path

from chatcli import PluginHost, hookimpl
from chatcli_cli.root import run
from process_support import CHATCLI, process_env

#: A plugin command that reports the collector's state while it runs, and whether a cycle of
#: garbage made by the command is collected (a finalizer runs) without anyone calling collect().
PLUGIN = '''
import gc, json
import click
from chatcli import hookimpl

@hookimpl
def register_commands(cli):
    @cli.command("gcstate")
    def _gcstate():
        """Report the garbage collector."""
        collected = []

        class Node:
            def __del__(self):
                collected.append(1)

        for _ in range(20_000):  # cycles only the collector frees
            node = Node()
            node.me = node
        del node
        click.echo(json.dumps({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count(),
                               "collected": len(collected)}))
'''


def _plugin(home: Path) -> dict[str, str]:
    site = home / "site"
    (site / "gcstate_plugin").mkdir(parents=True)
    (site / "gcstate_plugin" / "__init__.py").write_text(PLUGIN)
    info = site / "gcstate_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: gcstate-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\ngcstate = gcstate_plugin\n")
    return {"PYTHONPATH": str(site)}


def test_a_command_runs_with_the_collector_on_and_the_start_up_frozen(home: Path) -> None:
    done = subprocess.run([str(CHATCLI), "gcstate"], capture_output=True, text=True,
                          env=process_env(home, **_plugin(home)), cwd=home, timeout=60)
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert state["enabled"] is True
    assert state["frozen"] > 1000  # modules, plugins, the command tree: out of collections
    assert state["collected"] > 0  # the command's own cyclic garbage is collected as it runs


def test_an_in_process_run_leaves_the_collector_alone(home: Path, capsys) -> None:
    class Probe:
        @hookimpl
        def register_commands(self, cli) -> None:
            @cli.command("probe")
            def _probe() -> None:
                print(json.dumps({"enabled": gc.isenabled()}))

    frozen = gc.get_freeze_count()
    host = PluginHost()
    host.register(Probe(), "probe")
    assert run(["probe"], host=host) == 0
    assert json.loads(capsys.readouterr().out) == {"enabled": True}
    assert gc.isenabled() and gc.get_freeze_count() == frozen
