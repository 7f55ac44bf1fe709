"""The entry module stays light: importing it imports none of the plugin's other modules, nor
click, rich or json (``chatcli --help`` and every start-up may import it)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
before = set(sys.modules)
import chatcli_audit.plugin
new = sorted(set(sys.modules) - before)
heavy = [name for name in new if name.startswith(("chatcli_audit.", "click", "rich", "json",
                                                  "psycopg", "chatcli_cli"))
         and name != "chatcli_audit.plugin"]
print(",".join(heavy))
"""


def test_importing_the_entry_module_imports_nothing_heavy() -> None:
    done = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
