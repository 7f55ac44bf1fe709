"""The loaded-skills cache keeps each language apart: a skill's warnings and a skipped file's
line are cached in the language of the run that read them, so a run in another language reads
them again in its own (English entries keep the keys they always had), in a fresh process (the
cache file) and in the same one (the memory cache)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from chatcli_skills.sources import discover
from skills_support import write_skill

_PROBE = """
import json, sys
from pathlib import Path
from chatcli_skills.sources import discover
catalog = discover(Path(sys.argv[1]))
print(json.dumps({"yaml": "yaml" in sys.modules, "skipped": catalog.skipped,
                  "warnings": {n: list(s.warnings) for n, s in catalog.skills.items()}}))
"""

EN_WARNING = "no name in the frontmatter; loaded as 'unnamed' (its folder)"
PT_WARNING = "sem nome no frontmatter; carregada como 'unnamed' (a pasta dela)"
EN_SKIPPED = "no description in the frontmatter; skipped"
PT_SKIPPED = "sem descrição no frontmatter; ignorado"


def _probe(workspace: Path, lang: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(workspace)], capture_output=True,
                          text=True, check=True, env={**os.environ, "CHATCLI_LANG": lang})
    return json.loads(done.stdout)


def _skills(user_skills: Path) -> None:
    write_skill(user_skills, "unnamed", raw="---\ndescription: Has no name. Use it to test.\n"
                                            "---\n\nBody.\n")
    write_skill(user_skills, "bare", raw="---\nname: bare\n---\n\nBody.\n")


def _lines(found: dict) -> tuple[str, str]:
    (warning,) = found["warnings"]["unnamed"]
    (skipped,) = found["skipped"]
    return warning, skipped


def _keys() -> list[list[str]]:
    from chatcli import cache_dir

    cached = json.loads((cache_dir() / "skills" / "loaded.json").read_text())["skills"]
    return sorted(key.split("\0") for key in cached)


def test_english_first_then_portuguese_then_english_again(user_skills, workspace):
    _skills(user_skills)
    warning, skipped = _lines(_probe(workspace, "en"))
    assert warning.endswith(EN_WARNING) and EN_SKIPPED in skipped
    assert all(len(key) == 4 for key in _keys())  # English keys as they always were
    portuguese = _probe(workspace, "pt_BR")
    warning, skipped = _lines(portuguese)
    assert warning.endswith(PT_WARNING) and PT_SKIPPED in skipped
    assert sorted(len(key) for key in _keys()) == [4, 4, 5, 5]
    assert {key[-1] for key in _keys() if len(key) == 5} == {"pt_BR"}
    again = _probe(workspace, "en")
    assert not again["yaml"]  # read from the cache file, in its own language
    warning, skipped = _lines(again)
    assert warning.endswith(EN_WARNING) and EN_SKIPPED in skipped
    again = _probe(workspace, "pt_BR")
    assert not again["yaml"] and _lines(again) == _lines(portuguese)


def test_portuguese_first_then_english(user_skills, workspace):
    _skills(user_skills)
    warning, skipped = _lines(_probe(workspace, "pt_BR"))
    assert warning.endswith(PT_WARNING) and PT_SKIPPED in skipped
    warning, skipped = _lines(_probe(workspace, "en"))
    assert warning.endswith(EN_WARNING) and EN_SKIPPED in skipped


def test_the_memory_cache_keeps_languages_apart(user_skills, workspace, chatcli_language):
    _skills(user_skills)
    catalog = discover(workspace)
    assert catalog.skills["unnamed"].warnings[0].endswith(EN_WARNING)
    chatcli_language("pt_BR")
    catalog = discover(workspace)
    assert catalog.skills["unnamed"].warnings[0].endswith(PT_WARNING)
    assert PT_SKIPPED in catalog.skipped[0]
    chatcli_language("en")
    catalog = discover(workspace)
    assert catalog.skills["unnamed"].warnings[0].endswith(EN_WARNING)
    assert EN_SKIPPED in catalog.skipped[0]
