"""What parsing read from a persona file, and which colour its colour text names, is kept in
chatcli's cache folder: a run whose persona files did not change imports neither YAML nor rich's
colour tables; a changed file is read again; a damaged cache is ignored; values JSON cannot give
back as they are (a YAML date) are never kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PERSONA = """---
name: reviewer
description: Reviews code: reads the diff, runs the tests
color: orange
---
You review code.
"""

PROBE = """
import sys
from pathlib import Path
from chatcli_personas.persona import load_persona

persona, problems = load_persona(Path(sys.argv[1]), "project")
print(persona.name, persona.colour, "|", persona.description)
print("yaml" in sys.modules, "rich.color" in sys.modules)
"""


def _probe(path: Path, cache: Path) -> list[str]:
    env = {**os.environ, "CHATCLI_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(path)], env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.splitlines()


def test_an_unchanged_persona_is_read_without_yaml_or_colour_tables(tmp_path: Path) -> None:
    path, cache = tmp_path / "reviewer.md", tmp_path / "cache"
    path.write_text(PERSONA)
    first = _probe(path, cache)
    assert first == ["reviewer orange1 | Reviews code: reads the diff, runs the tests",
                     "True True"]
    assert (cache / "personas-parsed.json").stat().st_mode & 0o777 == 0o600
    again = _probe(path, cache)
    assert again == [first[0], "False False"]  # the same persona, from the cache
    path.write_text(PERSONA.replace("runs the tests", "runs the linters"))
    changed = _probe(path, cache)
    assert changed == ["reviewer orange1 | Reviews code: reads the diff, runs the linters",
                       "True False"]  # read again; the colour is still known


@pytest.mark.parametrize("damage", ["{not json", "[]", '{"docs": {"x": "y"}, "colours": 3}'])
def test_a_damaged_cache_is_ignored_and_made_again(tmp_path: Path, damage: str) -> None:
    path, cache = tmp_path / "reviewer.md", tmp_path / "cache"
    path.write_text(PERSONA)
    cache.mkdir()
    (cache / "personas-parsed.json").write_text(damage)
    assert _probe(path, cache)[0] == "reviewer orange1 | Reviews code: reads the diff, runs " \
                                     "the tests"
    kept = json.loads((cache / "personas-parsed.json").read_text())
    assert len(kept["docs"]) == 1 and kept["colours"] == {"orange": ["orange1", None]}


def test_a_value_json_cannot_give_back_is_not_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chatcli_personas import frontmatter

    monkeypatch.setenv("CHATCLI_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(frontmatter, "_cache", None)
    dated = "---\nname: dated\nsince: 2026-12-06\n---\nbody\n"
    document = frontmatter.parse(dated)
    assert str(document.fields["since"]) == "2026-12-06"
    assert frontmatter.parse(dated).fields["since"] == document.fields["since"]
    kept = json.loads((tmp_path / "personas-parsed.json").read_text()) \
        if (tmp_path / "personas-parsed.json").exists() else {"docs": {}}
    assert kept["docs"] == {}  # a date would come back as text: not kept
