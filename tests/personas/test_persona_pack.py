"""chatcli-personas-core: sixteen personas that load cleanly, ship in the wheel, and are found
through the entry point; and both packages' entry modules stay light."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_personas.catalog import Catalog

ROOT = Path(__file__).resolve().parents[2]

PACK = {"code-architect", "security-specialist", "devops-engineer", "data-scientist",
        "product-manager", "creative-designer", "research-scientist", "writer",
        "learning-agent", "visionary", "kamaji", "hayao", "chihiro", "timbl", "moe", "verifier"}


def pack_catalog(tmp_path: Path) -> tuple[Catalog, list[str]]:
    import chatcli_personas.plugin as personas  # declares register_persona_sources
    import chatcli_personas_core.plugin as core

    warned: list[str] = []
    host = PluginHost(warn=warned.append)
    host.register(personas, "personas")
    host.register(core, "personas-core")
    return Catalog(host, tmp_path, warn=warned.append), warned


def test_the_pack_has_sixteen_personas_that_load_without_a_warning(tmp_path: Path) -> None:
    catalog, warned = pack_catalog(tmp_path)
    personas = catalog.personas()
    assert set(personas) == PACK
    assert warned == []
    for persona in personas.values():
        assert persona.source == "core"
        assert persona.description and persona.icon and persona.colour, persona.name
        assert persona.traits and persona.tone and persona.approach, persona.name
        assert persona.specialties and persona.capabilities, persona.name
        assert len(persona.prompt) > 600, persona.name
        assert persona.provider is None and persona.model is None  # any model can speak
    assert personas["security-specialist"].title == "Security Specialist"
    assert personas["timbl"].title == "TimBL"
    assert personas["security-specialist"].tools is not None
    assert "exec" not in personas["security-specialist"].tools
    assert personas["devops-engineer"].tools is None


def test_the_pack_is_found_through_its_entry_point() -> None:
    found = {e.name: e.value for e in entry_points(group="chatcli.plugins")}
    assert found["personas"] == "chatcli_personas.plugin"
    assert found["personas-core"] == "chatcli_personas_core.plugin"


def test_the_wheel_ships_the_persona_files(tmp_path: Path) -> None:
    uv = os.environ.get("UV") or shutil.which("uv")
    if not uv:
        pytest.skip("uv is needed to build the wheel")
    command = [uv, "build", "--wheel", "--quiet", "--out-dir", str(tmp_path),
               str(ROOT / "skills" / "personas-core")]
    built = subprocess.run([*command, "--offline"], capture_output=True, text=True, timeout=300)
    if built.returncode != 0:
        built = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("chatcli_personas_core-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"chatcli_personas_core/personas/{name}.md" for name in PACK} <= names


def test_the_entry_modules_import_neither_yaml_nor_rich() -> None:
    code = ("import sys, chatcli_personas.plugin, chatcli_personas_core.plugin; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('yaml', 'rich', 'pydantic', 'chatcli_personas')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "['chatcli_personas', 'chatcli_personas.plugin']"
