"""The loaded-skills cache (``<cache dir>/skills/loaded.json``): a fresh process reads the skills
it loaded before without PyYAML or the frontmatter reader, gets the very same skills, and still
notices an edit at once (also one that keeps the size and the modification time); a skill whose
fields JSON cannot carry is kept in memory only, and a damaged cache file is ignored."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from chatcli_skills import sources
from chatcli_skills.sources import _from_json, _to_json, discover
from skills_support import FIXTURES, write_skill

#: A fresh process: discover the workspace's skills, say which readers it imported and what
#: it found (name -> body, fingerprint, warnings, description; the skipped files' lines).
_PROBE = """
import json, sys
from pathlib import Path
from chatcli_skills.sources import discover
catalog = discover(Path(sys.argv[1]))
print(json.dumps({"yaml": "yaml" in sys.modules,
                  "frontmatter": "chatcli_frontmatter" in sys.modules,
                  "skipped": catalog.skipped,
                  "skills": {n: [s.body, s.fingerprint, list(s.warnings), s.description]
                             for n, s in catalog.skills.items()}}))
"""


def _probe(workspace: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, str(workspace)], capture_output=True,
                          text=True, check=True, env=dict(os.environ))
    return json.loads(done.stdout)


def _cache_file() -> Path:
    from chatcli import cache_dir

    return cache_dir() / "skills" / "loaded.json"


def test_a_fresh_process_reads_known_skills_without_the_yaml_reader(user_skills, workspace):
    shutil.copytree(FIXTURES, user_skills, dirs_exist_ok=True)
    first = _probe(workspace)
    assert first["yaml"] and _cache_file().is_file()
    second = _probe(workspace)
    assert not second["yaml"] and not second["frontmatter"]
    assert second["skills"] == first["skills"] and len(second["skills"]) == 6
    assert second["skipped"] == first["skipped"] and len(first["skipped"]) == 1


def test_an_edit_is_noticed_by_the_next_process(user_skills, workspace):
    folder = write_skill(user_skills, "notes", "First version.")
    assert "First version." in _probe(workspace)["skills"]["notes"][0]
    path = folder / "SKILL.md"
    path.write_text(path.read_text().replace("First", "Later"))  # same size
    assert "Later version." in _probe(workspace)["skills"]["notes"][0]


def test_an_edit_keeping_size_and_modification_time_is_noticed(user_skills, workspace):
    folder = write_skill(user_skills, "notes", "First version.")
    path = folder / "SKILL.md"
    before = discover(workspace).skills["notes"]
    stamp = path.stat().st_mtime_ns
    path.write_text(path.read_text().replace("First", "Later"))
    os.utime(path, ns=(stamp, stamp))
    after = discover(workspace).skills["notes"]
    assert "Later version." in after.body and after.fingerprint != before.fingerprint


def test_fields_json_cannot_carry_stay_in_memory_only(user_skills, workspace):
    write_skill(user_skills, "dated", raw="---\nname: dated\ndescription: Has a date.\n"
                                          "created: 2024-05-01\n---\n\nBody.\n")
    write_skill(user_skills, "plain")
    skills = discover(workspace).skills
    assert str(skills["dated"].fields["created"]) == "2024-05-01"
    cached = json.loads(_cache_file().read_text())["skills"]
    assert sorted(k.split("\0")[0] for k in cached) == [str(user_skills / "plain")]
    again = _probe(workspace)["skills"]
    assert again["dated"][0].strip() == "Body." and "plain" in again


def test_a_damaged_cache_file_is_ignored(user_skills, workspace):
    write_skill(user_skills, "notes", "The body.")
    _probe(workspace)
    _cache_file().write_text('{"version": 1, "skills": {"x": [1, 2]}, ')
    assert "The body." in _probe(workspace)["skills"]["notes"][0]
    _cache_file().write_text(json.dumps({"version": 1, "skills": {
        key: {"status": [0, 0, 0, 0, 0], "skill": {"name": 5}}
        for key in ("a", "b")}}))
    assert "The body." in _probe(workspace)["skills"]["notes"][0]


def test_every_public_skill_comes_back_from_json_the_same(user_skills, workspace):
    shutil.copytree(FIXTURES, user_skills, dirs_exist_ok=True)
    skills = list(discover(workspace).skills.values())
    assert skills
    for skill in skills:
        record = _to_json(skill)
        assert record is not None, skill.name
        assert _from_json(json.loads(json.dumps(record))) == skill


def test_nothing_is_written_when_nothing_was_loaded_afresh(user_skills, workspace, monkeypatch):
    write_skill(user_skills, "notes")
    discover(workspace)
    written: list[object] = []
    with monkeypatch.context() as patched:  # (undo() would also drop the fixtures' folders)
        patched.setattr(sources, "save_cache", lambda: written.append(1))
        discover(workspace)
    assert written == [1]  # discover asks to save; the save itself finds nothing new
    mtime = _cache_file().stat().st_mtime_ns
    discover(workspace)
    assert _cache_file().stat().st_mtime_ns == mtime
