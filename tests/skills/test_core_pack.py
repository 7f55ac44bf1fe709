"""chatcli-skills-core: its folder is registered, every skill in it is valid under ``skills
validate`` (its scripts and references listed), and the wheel ships the skill folders."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_plugin_records import SkillSource
from chatcli_skills.sources import discover
from chatcli_skills.validate import validate_folder
from chatcli_skills_core import plugin
from skills_support import run_cli

PACK = Path(plugin.__file__).resolve().parents[2]
NAMES = ["code-review", "commit-message", "debugging", "writing-tests"]
UV = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))


def test_the_pack_registers_its_folder():
    import chatcli_skills.plugin as skills  # declares register_skill_sources

    host = PluginHost()
    assert host.register(skills, "skills") and host.register(plugin, "skills-core")
    source = host.collect("register_skill_sources", SkillSource, "skill source")["core"]
    assert Path(source.path) == plugin.SKILLS_DIR
    assert sorted(p.name for p in plugin.SKILLS_DIR.iterdir()) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_each_skill_is_valid(name):
    assert validate_folder(plugin.SKILLS_DIR / name) == []


def test_the_skills_validate_through_the_command_line(workspace):
    done = run_cli("skills", "validate", str(plugin.SKILLS_DIR), cwd=workspace)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout + done.stderr
    assert done.stderr.strip() == "4 skills checked: no problems"


def test_the_skills_load_without_warnings_and_list_their_files(workspace):
    catalog = discover(workspace, [("core", plugin.SKILLS_DIR)])
    assert catalog.warnings == [] and catalog.skipped == []
    skills = catalog.skills
    assert sorted(skills) == NAMES
    assert skills["code-review"].references == ("references/checklist.md",)
    assert skills["commit-message"].references == ("references/conventional-commits.md",)
    assert skills["debugging"].scripts == ("scripts/collect_env.sh",)
    assert skills["writing-tests"].paths[0] == "**/test_*.py"
    for skill in skills.values():
        assert skill.triggers and skill.size < 6_000  # each fits the default budget
        for relative in (*skill.references, *skill.scripts):
            assert relative in skill.body, f"{skill.name} never mentions {relative}"


@pytest.mark.slow
@pytest.mark.skipif(not Path(UV).exists(), reason="uv is not installed")
def test_the_wheel_ships_the_skill_folders(tmp_path):
    command = [UV, "build", "--wheel", "-q", "-o", str(tmp_path), str(PACK)]
    done = subprocess.run([*command, "--offline"], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:  # hatchling not in uv's cache yet: from the index
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    wheel = next(tmp_path.glob("chatcli_skills_core-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in NAMES:
        assert f"chatcli_skills_core/skills/{name}/SKILL.md" in names
    assert "chatcli_skills_core/skills/debugging/scripts/collect_env.sh" in names
    assert "chatcli_skills_core/skills/code-review/references/checklist.md" in names
