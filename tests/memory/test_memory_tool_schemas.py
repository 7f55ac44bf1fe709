"""The memory tools describe themselves with literal JSON schemas (no pydantic model is built in
a run that calls no memory tool); those schemas are the argument models' own, byte for byte,
and a call is still validated by the model before it is authorized."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from chatcli_memory import tool_args
from chatcli_memory.tools import SCHEMAS, make_tools


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_literal_schema_is_the_models_schema(name: str) -> None:
    made = getattr(tool_args, name).model_json_schema()
    made.pop("title", None)
    assert json.dumps(SCHEMAS[name]) == json.dumps(made)


def test_tools_validate_with_the_models() -> None:
    tools = {tool.name: tool for tool in make_tools(lambda: None)}  # type: ignore[arg-type,return-value]
    assert tools["memory_search"].spec().parameters == SCHEMAS["SearchArgs"]
    assert tools["memory_search"].parse_arguments({"query": "uv"}).limit == 8
    with pytest.raises(ValueError, match="less than or equal to 30"):
        tools["memory_search"].parse_arguments({"query": "uv", "limit": 99})
    with pytest.raises(ValueError, match="text"):
        tools["memory_save"].parse_arguments({"subject": "x"})


SCRIPT = """
import sys
from chatcli_memory.tools import make_tools
tools = make_tools(lambda: None)
[tool.spec() for tool in tools]
print("chatcli_memory.tool_args" in sys.modules)
"""


def test_describing_the_tools_builds_no_model() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "False"
