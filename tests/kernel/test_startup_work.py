"""Work a start-up must not do: building the kernel's models runs no tokenizer (pydantic reads
each default factory's signature, and a builtin's — ``list``, ``dict`` — is parsed by the
tokenizer, whose first use compiles a large regular expression)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import chatcli._compaction, chatcli._config, chatcli._session, chatcli._types
from chatcli import Message, Settings
Settings(); Message.user("hi")
tokenize = sys.modules.get("tokenize")
print(0 if tokenize is None else tokenize._compile.cache_info().misses)
"""


def test_building_the_kernel_models_runs_no_tokenizer() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "0"


def test_the_default_factories_give_fresh_values() -> None:
    from chatcli import Message, Settings

    first, second = Settings(), Settings()
    first.allowed_dirs.append("~/notes")
    first.providers["x"] = first.provider_settings("openai")
    assert second.allowed_dirs == [] and second.providers == {}
    one, two = Message.user("a"), Message.user("b")
    assert one.parts is not two.parts
