"""Making the extraction worker (every chat session does; a one-shot run only when it extracts)
loads no extraction code: the prompt, the parser and the applying code load when an extraction
runs."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import chatcli_memory.runtime
print("chatcli_memory.extraction" in sys.modules)
from chatcli_memory import worker
print(hasattr(worker, "parse_extraction"))
"""


def test_worker_imports_no_extraction_code() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split("\n")[:2] == ["False", "False"]
