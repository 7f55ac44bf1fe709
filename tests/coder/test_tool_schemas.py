"""The coder tools' schemas come from ``<cache dir>/coder/tool-schemas.json``: the very schemas
the argument models give (as the kernel's ``Tool(args_model=…)`` would send them), without
building the models in a process that reads the cache; a stale or damaged cache is made again;
a call's arguments are still validated by the models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest
from chatcli import Settings, Tool

#: A fresh process: the coder tools' specs, and whether the pydantic models were built.
_PROBE = """
import json, sys
from pathlib import Path
from chatcli import Settings
from chatcli_coder._tools import make_tools
specs = {t.name: t.spec().parameters for t in make_tools(Settings(), Path(sys.argv[1]))}
print(json.dumps({"models": "chatcli_coder._args" in sys.modules, "specs": specs}))
"""


def _probe(workspace: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(workspace)], capture_output=True,
                          text=True, check=True, env=dict(os.environ))
    return json.loads(done.stdout)


def _cache_file() -> Path:
    from chatcli import cache_dir

    return cache_dir() / "coder" / "tool-schemas.json"


def _kernel_specs(workspace: Path) -> dict:
    """What the kernel's own ``Tool(args_model=…)`` gives for each coder tool."""
    from chatcli_coder import _args
    from chatcli_coder._tools import make_tools

    return {t.name: Tool(name=t.name, description=t.description, run=t.run,
                         args_model=getattr(_args, t.args), risk=t.risk, subject=t.subject,
                         confined=t.confined).spec().parameters
            for t in make_tools(Settings(), workspace)}


def test_a_process_reading_the_cache_builds_no_model_and_sends_the_same_schemas(workspace):
    expected = json.loads(json.dumps(_kernel_specs(workspace)))
    first = _probe(workspace)
    assert _cache_file().is_file() and first["specs"] == expected
    second = _probe(workspace)
    assert not second["models"] and second["specs"] == expected and len(expected) == 11


@pytest.mark.parametrize("damage", [
    "{not json",
    json.dumps({"key": [0, 0, 0, 0, pydantic.VERSION], "schemas": {"ReadArgs": {}}}),
    json.dumps({"key": None, "schemas": []}),
])
def test_a_stale_or_damaged_cache_is_made_again(workspace, damage):
    expected = json.loads(json.dumps(_kernel_specs(workspace)))
    _probe(workspace)
    _cache_file().write_text(damage)
    again = _probe(workspace)
    assert again["models"] and again["specs"] == expected
    assert not _probe(workspace)["models"]


def test_arguments_are_validated_by_the_models(workspace):
    from chatcli_coder._tools import make_tools

    tools = {t.name: t for t in make_tools(Settings(), workspace)}
    assert tools["read"].parse_arguments({"path": "a.txt", "head": 3}).head == 3
    with pytest.raises(pydantic.ValidationError, match="give head or tail, not both"):
        tools["read"].parse_arguments({"path": "a.txt", "head": 1, "tail": 1})
    with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
        tools["exec"].parse_arguments({"command": "ls", "shell": "zsh"})
