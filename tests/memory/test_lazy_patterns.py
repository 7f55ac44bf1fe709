"""The secret patterns are compiled when memory first redacts, not when a session imports the
plugin (a ``-p`` run that writes nothing to memory does not pay for them)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import chatcli_memory.runtime, chatcli_memory.secrets as secrets
print(secrets._compiled.cache_info().currsize)
print(secrets.redact_secrets("password: hunter2-x"), secrets._compiled.cache_info().currsize)
"""


def test_patterns_are_compiled_on_first_use() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n")[:2] == ["0", "password: *** 1"]


WORKSPACE = """
import chatcli_workspace, chatcli_workspace._env as env
print(env._compiled.cache_info().currsize)
print(chatcli_workspace.is_secret_variable("MY_SERVICE_TOKEN"), env._compiled.cache_info().currsize)
"""


def test_workspace_secret_patterns_are_compiled_on_first_use() -> None:
    done = subprocess.run([sys.executable, "-c", WORKSPACE], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n")[:2] == ["0", "True 1"]
