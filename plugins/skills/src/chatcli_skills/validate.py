"""``chatcli skills validate``: every problem of a skill folder, strictly, by the specification.

Where loading is lenient (:mod:`chatcli_skills.skill`), this reports: a missing or misnamed
``SKILL.md``, text that is not UTF-8, missing or unclosed frontmatter, invalid YAML (an unquoted
colon included), duplicate fields, and every field rule of :mod:`chatcli_skills.spec`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from chatcli import translation

from chatcli_skills.frontmatter import read_strict
from chatcli_skills.skill import skill_file
from chatcli_skills.spec import field_problems

__all__ = ["skill_folders", "validate_all", "validate_folder"]

_, ngettext = translation(__name__)


def validate_folder(folder: Path, *, spec_only: bool = False) -> list[str]:
    """The problems of the skill in ``folder``, each ``PATH: problem``."""
    path = skill_file(folder)
    if path is None:
        return [_("{folder}: no SKILL.md in this folder").format(folder=folder)]
    problems = []
    if path.name != "SKILL.md":
        problems.append(_("the file is named {name}; the specification names it SKILL.md")
                        .format(name=path.name))
    try:
        data = path.read_bytes()
    except OSError as err:
        return [_("{path}: cannot be read ({reason})").format(path=path,
                                                                reason=err.strerror or err)]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        return [_("{path}: not UTF-8 text (byte {offset})").format(path=path, offset=err.start)]
    parsed = read_strict(text)
    problems += parsed.errors
    if parsed.fields is not None:
        problems += field_problems(parsed.fields, folder.name, spec_only=spec_only)
    return [f"{path}: {problem}" for problem in problems]


def skill_folders(path: Path) -> list[Path]:
    """The skill folders ``path`` names: itself (a skill folder, or its SKILL.md's folder), or
    each sub-folder of a folder of skills. Raises FileNotFoundError when it does not exist."""
    if not path.exists():
        raise FileNotFoundError(str(path))
    if path.is_file():
        return [path.parent]
    if skill_file(path) is not None:
        return [path]
    return sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith("."))


def validate_all(folders: Iterable[Path], *, spec_only: bool = False) -> tuple[int, list[str]]:
    """``(folders checked, problems)``."""
    problems: list[str] = []
    count = 0
    for folder in folders:
        count += 1
        problems += validate_folder(folder, spec_only=spec_only)
    return count, problems
