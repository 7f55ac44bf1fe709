"""Whether the project's own skills may be activated: the same notion of trust as user hooks.

A repository's ``.chatcli/skills``, ``.agents/skills`` and ``.claude/skills`` come with code
someone else may have written, so they are listed but not activated until the user trusts the
project — as chatcli-agent does for a project's hooks. Trust is said in the *user's* config file
only (a project cannot trust itself)::

    [skills]
    trust_project = true                     # every project
    trust_project = ["~/src/mine", "/work"]  # these folders and what is below them

``[hooks] trust_project`` counts too (a project trusted to run hooks may give skills), and so
does ``CHATCLI_SKILLS__TRUST_PROJECT=1``. In the chat, ``/skills trust`` trusts the project for
the session and ``/skills trust always`` adds it to the user's file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["add_trusted", "project_chain", "project_root", "trusted_by_config"]

ENV = "CHATCLI_SKILLS__TRUST_PROJECT"


def project_chain(workspace: Path) -> list[Path]:
    """The folders whose skills are the project's, nearest first: from the workspace up to the
    repository's root (the nearest folder holding ``.git``), or the workspace alone outside a
    repository. The home folder is nobody's project (its skills are the user's)."""
    home = _home()
    folder = workspace.resolve()
    chain: list[Path] = []
    for candidate in (folder, *folder.parents):
        if candidate == home:
            break
        chain.append(candidate)
        if (candidate / ".git").exists():
            return chain
    return [folder] if folder != home else []


def project_root(workspace: Path) -> Path | None:
    """The project's root (see :func:`project_chain`), or None in the home folder."""
    chain = project_chain(workspace)
    return chain[-1] if chain else None


def _home() -> Path:
    try:
        return Path.home().resolve()
    except (RuntimeError, OSError):
        return Path("/nonexistent-home")


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _user_tables() -> list[Any]:
    """``skills.trust_project`` and ``hooks.trust_project`` from the user's config file."""
    import tomllib

    from chatcli import user_config_path

    try:
        with open(user_config_path(), "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    found = []
    for table in ("skills", "hooks"):
        value = data.get(table)
        if isinstance(value, dict) and "trust_project" in value:
            found.append(value["trust_project"])
    return found


def _covers(value: Any, root: Path) -> bool:
    if isinstance(value, list):
        for entry in value:
            if not isinstance(entry, str):
                continue
            folder = Path(entry).expanduser().resolve()
            if root == folder or folder in root.parents:
                return True
        return False
    return _flag(value)


def trusted_by_config(root: Path) -> bool:
    """Whether the user's config (or the environment) trusts the project at ``root``."""
    variable = os.environ.get(ENV)
    if variable is not None:
        return _flag(variable)
    return any(_covers(value, root.resolve()) for value in _user_tables())


def add_trusted(root: Path) -> Path:
    """Add ``root`` to ``[skills] trust_project`` in the user's config file, keeping its other
    lines and comments; returns the file."""
    import tomllib

    from chatcli import user_config_path

    path = user_config_path()
    try:
        text = path.read_text(encoding="utf-8")
        current = (tomllib.loads(text).get("skills") or {}).get("trust_project", [])
    except FileNotFoundError:
        text, current = "", []
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, AttributeError):
        text, current = None, []
    if current is True:
        return path
    entries = [e for e in current if isinstance(e, str)] if isinstance(current, list) else []
    if str(root) not in entries:
        entries.append(str(root))
    edited = _with_trust(text, entries) if text is not None else None
    if edited is not None:
        from chatcli import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, edited)
    else:  # a file this cannot edit line by line: the kernel's editor rewrites it
        import json

        from chatcli import set_value

        path.parent.mkdir(parents=True, exist_ok=True)
        set_value(path, "skills.trust_project", json.dumps(entries))
    return path


def _with_trust(text: str, entries: list[str]) -> str | None:
    """``text`` with ``trust_project`` of its ``[skills]`` table set to ``entries`` (one line
    changed or added); None when the result would not read back as exactly that."""
    import json
    import re
    import tomllib

    line = f"trust_project = {json.dumps(entries, ensure_ascii=False)}\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    header = next((i for i, item in enumerate(lines)
                   if re.fullmatch(r"\s*\[\s*skills\s*\]\s*(#.*)?", item.strip())), None)
    if header is None:
        lines.append(("\n" if lines else "") + "[skills]\n" + line)
    else:
        end = next((i for i in range(header + 1, len(lines))
                    if lines[i].lstrip().startswith("[")), len(lines))
        found = next((i for i in range(header + 1, end)
                      if re.match(r"\s*trust_project\s*=", lines[i])), None)
        if found is not None:
            lines[found] = line
        else:
            lines.insert(header + 1, line)
    new = "".join(lines)
    try:
        data = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        return None
    return new if (data.get("skills") or {}).get("trust_project") == entries else None
