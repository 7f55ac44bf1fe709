"""Configuring the plugin reads the caps without loading the file walker or git: a run that
changes no file (most ``-p`` runs) never imports them; recording a state does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import sys
from pathlib import Path
from chatcli import load_settings
from chatcli_checkpoints.plugin import CheckpointsPlugin

HEAVY = ("chatcli_checkpoints._files", "chatcli_checkpoints._git",
         "chatcli_checkpoints._changes", "chatcli_checkpoints._ignore",
         "chatcli_checkpoints._targets")
plugin = CheckpointsPlugin()
plugin.configure(load_settings(), Path(sys.argv[1]))
print(",".join(m for m in HEAVY if m in sys.modules) or "none")
print(plugin.core.enabled, plugin.core.limits.max_files)
from chatcli_checkpoints import _files
print(_files.Limits is type(plugin.core.limits))
"""


def test_configure_loads_no_walker_nor_git(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "CHATCLI_CONFIG_DIR": str(tmp_path / "config"),
           "CHATCLI_DATA_DIR": str(tmp_path / "data")}
    env.pop("CHATCLI_CHECKPOINTS__MAX_FILES", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True,
                          text=True, timeout=60, check=True, env=env, cwd=tmp_path)
    assert done.stdout.split("\n")[:3] == ["none", "True 20000", "True"]
