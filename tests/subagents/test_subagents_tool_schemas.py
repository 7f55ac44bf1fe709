"""The ``delegate`` and ``worker_branch`` tools describe their arguments with their pydantic
models' own JSON schemas, kept in chatcli's cache folder: a run that calls neither tool does not
build the models; a call's arguments are still validated by them; a damaged cache is made
again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chatcli import Tool
from chatcli_subagents import _args
from chatcli_subagents.argstool import NAMES, ArgsTool, schemas

PROBE = """
import json, sys
from chatcli_subagents.argstool import ArgsTool

specs = [ArgsTool(name=name, description="d", run=lambda a, c: "", args=args).spec()
         for name, args in (("delegate", "DelegateArgs"), ("worker_branch", "BranchArgs"))]
print(json.dumps({"schemas": [spec.parameters for spec in specs],
                  "models": "chatcli_subagents._args" in sys.modules}))
"""


def _probe(cache: Path) -> dict[str, object]:
    env = {**os.environ, "CHATCLI_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_the_names_are_the_models() -> None:
    assert sorted(NAMES) == sorted(_args.__all__)


@pytest.mark.parametrize("model", NAMES)
def test_a_tool_is_described_as_with_its_model(model: str) -> None:
    kernel = Tool(name="t", description="d", run=lambda a, c: "",
                  args_model=getattr(_args, model)).spec()
    ours = ArgsTool(name="t", description="d", run=lambda a, c: "", args=model).spec()
    assert ours == kernel
    assert schemas()[model] == kernel.parameters


def test_arguments_are_validated_by_the_model() -> None:
    tool = ArgsTool(name="worker_branch", description="d", run=lambda a, c: "",
                    args="BranchArgs")
    parsed = tool.parse_arguments({"worker": "w1", "action": "merge"})
    assert isinstance(parsed, _args.BranchArgs) and parsed.action == "merge"
    with pytest.raises(ValueError, match="action"):
        tool.parse_arguments({"worker": "w1", "action": "keep"})


def test_a_second_run_describes_the_tools_without_building_the_models(tmp_path: Path) -> None:
    first = _probe(tmp_path)
    assert first["models"] is True
    path = tmp_path / "subagents" / "tool-schemas.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert _probe(tmp_path) == {**first, "models": False}


@pytest.mark.parametrize("damage", ["{not json", "[]", '{"key": 1, "schemas": {}}'])
def test_a_damaged_cache_is_made_again(tmp_path: Path, damage: str) -> None:
    expected = _probe(tmp_path / "clean")
    path = tmp_path / "subagents" / "tool-schemas.json"
    path.parent.mkdir(parents=True)
    path.write_text(damage)
    assert _probe(tmp_path) == expected
    assert _probe(tmp_path) == {**expected, "models": False}


def test_a_damaged_entry_under_the_right_key_is_made_again(tmp_path: Path) -> None:
    expected = _probe(tmp_path)
    path = tmp_path / "subagents" / "tool-schemas.json"
    kept = json.loads(path.read_text())
    kept["schemas"]["DelegateArgs"] = "not a schema"
    path.write_text(json.dumps(kept))
    assert _probe(tmp_path) == expected
