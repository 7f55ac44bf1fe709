"""context_pull describes itself with a literal JSON schema (no pydantic model is built in a run
that pulls nothing); that schema is PullArgs' own, byte for byte, and a call is still validated
(tolerantly) by PullArgs before it runs."""

from __future__ import annotations

import json
import subprocess
import sys

from chatcli_context.pull import PULL_SCHEMA, PullCounter, make_tool
from chatcli_context.pull_model import PullArgs


def test_literal_schema_is_the_models_schema() -> None:
    made = PullArgs.model_json_schema()
    made.pop("title", None)
    assert json.dumps(PULL_SCHEMA) == json.dumps(made)


def test_the_tool_validates_with_the_model() -> None:
    tool = make_tool({}, PullCounter())
    assert tool.spec().parameters == PULL_SCHEMA
    args = tool.parse_arguments({"command": "context", "input": {"name": "docs"}})
    assert isinstance(args, PullArgs)
    assert (args.kind, args.name) == ("context", "docs")


SCRIPT = """
import sys
from chatcli_context.pull import PullCounter, make_tool
make_tool({}, PullCounter()).spec()
print("chatcli_context.pull_model" in sys.modules, "pydantic" in sys.modules)
"""


def test_describing_the_tool_builds_no_model() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split()[0] == "False"
