"""Tests of the skill pack: the source is registered and every skill is well formed.

A skill's ``SKILL.md`` starts with YAML front matter between ``---`` lines. The Agent Skills
format requires ``name`` (lowercase letters, digits and dashes, at most 64 characters, equal to
the folder name) and ``description`` (at most 1024 characters). The last test reads the pack's
own error in Brazilian Portuguese (``CHATCLI_LANG=pt_BR``), from the package's catalog.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from chatcli import ConfigError, PluginHost
from chatcli_plugin_records import SkillSource

from {{package}} import plugin

NAME_RULE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


def front_matter(skill_md: Path) -> dict[str, str]:
    """The ``key: value`` pairs of a SKILL.md front matter (one line per key)."""
    lines = skill_md.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "---", f"{skill_md} must start with '---'"
    end = lines.index("---", 1)
    fields = {}
    for line in lines[1:end]:
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def registered_source_path() -> Path:
    host = PluginHost()
    assert host.register(plugin, "{{name}}")
    sources = host.collect("register_skill_sources", SkillSource, "skill source")
    source = sources["{{name}}"]
    return Path(source.path)


def skill_folders() -> list[Path]:
    return sorted(p for p in plugin.SKILLS_DIR.iterdir() if p.is_dir())


def test_the_skills_folder_is_registered_and_exists():
    path = registered_source_path()
    assert path.is_dir()
    assert (path / "{{name}}" / "SKILL.md").is_file()


def test_the_pack_has_skills():
    assert skill_folders(), "add at least one skill folder under skills/"


@pytest.mark.parametrize("folder", skill_folders(), ids=lambda p: p.name)
def test_each_skill_has_valid_front_matter(folder):
    fields = front_matter(folder / "SKILL.md")
    assert fields.get("name") == folder.name
    assert NAME_RULE.match(fields["name"]) and len(fields["name"]) <= 64
    assert fields.get("description")
    assert len(fields["description"]) <= 1024


# ------------------------------------------------------------------------------ translations
# The package's catalog, locale/pt_BR/LC_MESSAGES/messages.po, is compiled into messages.mo
# by hatch-babel when the package is built or installed (`pip install -e` too).


def test_a_missing_skills_folder_is_reported_in_brazilian_portuguese(
    chatcli_language, monkeypatch, tmp_path
):
    monkeypatch.setattr(plugin, "SKILLS_DIR", tmp_path / "missing")
    expected = {
        "pt_BR": ("o pacote de habilidades {{title}} "
                  "não tem a pasta de habilidades"),
        "en": "the {{title}} skill pack has no skills folder",
    }
    for language, words in expected.items():
        chatcli_language(language)  # CHATCLI_LANG for the rest of the test
        # chatcli (with chatcli-skills) reports the failing hook in one line and goes on
        with pytest.raises(ConfigError) as caught:
            plugin.register_skill_sources(register=lambda source: None)
        assert str(caught.value).startswith(words), caught.value
