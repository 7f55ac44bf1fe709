"""The personas as agent types are kept in chatcli's cache folder: a run whose persona files did
not change registers the same types and says the same warnings without importing the persona
loader; a changed, added or removed file is read again; a damaged cache is ignored and written
again; a project's Claude Code agents (which trust decides) bypass the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import json, sys
from pathlib import Path

import chatcli_personas.plugin as personas_plugin
from agent_type_specs import Declares
from chatcli import PluginHost
from chatcli_plugin_records import AgentType

warned = []
host = PluginHost(warn=warned.append)
host.register(Declares(), "subagents-specs")
host.register(personas_plugin, "personas")
personas_plugin._PLUGIN.configure(host=host, workspace=Path.cwd())
types = host.collect("register_agent_types", AgentType, "agent type")
print(json.dumps({"types": [list(t) for t in types.values()], "warned": warned,
                  "loader": "chatcli_personas.persona" in sys.modules}))
"""

GOOD = "---\nname: reviewer\ndescription: Reviews code.\ntools: [read, Grep]\n---\nYou review.\n"
#: no description and a colour that is none: two warnings
SLOPPY = "---\nname: sloppy\ncolour: not-a-colour\n---\nYou are sloppy.\n"


def _probe(workspace: Path, cache: Path) -> dict[str, object]:
    here = Path(__file__).parent
    env = {**os.environ, "CHATCLI_CACHE_DIR": str(cache),
           "PYTHONPATH": os.pathsep.join([str(here), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=workspace,
                          capture_output=True, text=True, timeout=60, check=True)
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.fixture
def agents(home: Path) -> Path:
    folder = home / "config" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_an_unchanged_set_is_registered_from_the_cache(workspace: Path, agents: Path,
                                                        tmp_path: Path) -> None:
    (agents / "reviewer.md").write_text(GOOD)
    (agents / "sloppy.md").write_text(SLOPPY)
    cache = tmp_path / "cache"
    first = _probe(workspace, cache)
    assert first["loader"] is True
    names = [row[0] for row in first["types"]]  # type: ignore[attr-defined]
    assert names == ["reviewer", "sloppy"]
    assert any("no description" in line for line in first["warned"])  # type: ignore[attr-defined]
    assert (cache / "personas-agent-types.json").stat().st_mode & 0o777 == 0o600
    again = _probe(workspace, cache)
    assert again == {**first, "loader": False}  # the same types and warnings, not read


def test_a_changed_added_or_removed_file_is_read_again(workspace: Path, agents: Path,
                                                       tmp_path: Path) -> None:
    (agents / "reviewer.md").write_text(GOOD)
    cache = tmp_path / "cache"
    _probe(workspace, cache)
    (agents / "reviewer.md").write_text(GOOD.replace("Reviews code.", "Reads diffs closely."))
    changed = _probe(workspace, cache)
    assert changed["loader"] is True
    assert changed["types"][0][:2] == ["reviewer", "Reads diffs closely."]  # type: ignore[index]
    (agents / "tester.md").write_text("---\nname: tester\ndescription: Tests.\n---\nYou test.\n")
    added = _probe(workspace, cache)
    assert added["loader"] is True
    assert [row[0] for row in added["types"]][:2] == ["reviewer", "tester"]  # type: ignore[attr-defined]
    (agents / "tester.md").unlink()
    removed = _probe(workspace, cache)
    assert "tester" not in [row[0] for row in removed["types"]]  # type: ignore[attr-defined]
    assert _probe(workspace, cache)["loader"] is False


@pytest.mark.parametrize("damage", ["{not json", "[]", '{"format": 1, "entries": 3}',
                                    '{"format": 1, "entries": {"k": {"types": [[1]]}}}'])
def test_a_damaged_cache_is_ignored_and_written_again(workspace: Path, agents: Path,
                                                      tmp_path: Path, damage: str) -> None:
    (agents / "reviewer.md").write_text(GOOD)
    cache = tmp_path / "cache"
    expected = _probe(workspace, tmp_path / "clean")
    cache.mkdir()
    (cache / "personas-agent-types.json").write_text(damage)
    assert _probe(workspace, cache) == expected
    assert _probe(workspace, cache) == {**expected, "loader": False}


def test_a_damaged_entry_is_ignored(workspace: Path, agents: Path, tmp_path: Path) -> None:
    (agents / "reviewer.md").write_text(GOOD)
    cache = tmp_path / "cache"
    expected = _probe(workspace, cache)
    path = cache / "personas-agent-types.json"
    kept = json.loads(path.read_text())
    for entry in kept["entries"].values():
        entry["types"][0][7] = "twelve"  # max_turns must be a number
    path.write_text(json.dumps(kept))
    assert _probe(workspace, cache) == expected  # read again, not the damaged entry


def test_a_projects_claude_agents_bypass_the_cache(workspace: Path, agents: Path,
                                                    tmp_path: Path) -> None:
    (agents / "reviewer.md").write_text(GOOD)
    folder = workspace / ".claude" / "agents"
    folder.mkdir(parents=True)
    (folder / "helper.md").write_text("---\nname: helper\ndescription: Helps.\n---\nHelp.\n")
    cache = tmp_path / "cache"
    first = _probe(workspace, cache)
    assert [row[0] for row in first["types"]] == ["reviewer"]  # type: ignore[attr-defined]
    again = _probe(workspace, cache)
    assert again["loader"] is True  # trust is asked each run: the files are read
    assert again["types"] == first["types"]
