"""Whether the project's own skills may be activated: workspace trust (``chatcli trust``).

A repository's ``.chatcli/skills``, ``.agents/skills`` and ``.claude/skills`` come with
instructions and scripts someone else wrote, so they are listed but not activated until the user
trusts the project (:func:`chatcli.project_trust`): ``chatcli trust``, the chat's question at
start, or ``/skills trust always``. Their files are control files (:func:`control_patterns`),
so the trust covers them as they are and a change asks again. ``/skills trust`` trusts the
project's skills for this session only. ``[skills] trust_project`` and ``[hooks]
trust_project``, which trusted folders before, are no longer read.

The project's skill folders are those of the workspace and each folder above it up to the
project root (the folder trust is recorded for), at most two levels below it (see
:func:`project_chain`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["PROJECT_DIRS", "control_patterns", "project_chain", "project_root",
           "trusted_by_project"]

#: The project's skill folders, in each folder of the chain (nearest first).
PROJECT_DIRS = (".chatcli/skills", ".agents/skills", ".claude/skills")


def _kernel_root(workspace: Path) -> Path | None:
    """The project root as workspace trust finds it (the nearest folder holding ``.chatcli/``,
    else ``.git``, else the workspace; never the home folder), without asking trust itself
    (:func:`control_patterns` runs while trust is being computed)."""
    home = _home()
    start = workspace.resolve()
    for markers in ((".chatcli",), (".git",)):
        for candidate in (start, *start.parents):
            if candidate == home:
                continue
            if any((candidate / marker).is_dir() if marker == ".chatcli"
                   else (candidate / marker).exists() for marker in markers):
                return candidate
    return None if start == home else start


#: How deep below the project root a folder's skills still count as the project's (a
#: monorepo's ``packages/app/.claude/skills``): the control-file patterns reach that far.
MAX_DEPTH = 2


def project_chain(workspace: Path) -> list[Path]:
    """The folders whose skills are the project's, nearest first: from the workspace up to the
    project root, at most :data:`MAX_DEPTH` levels below it (deeper folders' skills are not
    read: trust could not cover them cheaply). The home folder is nobody's project (its skills
    are the user's)."""
    root = _kernel_root(workspace)
    if root is None:
        return []
    folder = workspace.resolve()
    chain = [folder]
    while folder != root and folder.parent != folder:
        folder = folder.parent
        chain.append(folder)
    return [f for f in chain if f == root or len(f.relative_to(root).parts) <= MAX_DEPTH]


def project_root(workspace: Path) -> Path | None:
    """The project's root (see :func:`project_chain`), or None in the home folder."""
    return _kernel_root(workspace)


def control_patterns() -> list[str]:
    """The glob patterns, relative to the project root, of the project's skill files: its
    skill folders at the root and up to :data:`MAX_DEPTH` folders below it (the same for every
    folder of the project, so trusting it from any of them is the same trust)."""
    return [f"{'*/' * depth}{sub}/**" for depth in range(MAX_DEPTH + 1) for sub in PROJECT_DIRS]


#: The home folder, resolved, by the value of ``HOME`` it was found with (a catalog asks a few
#: times per model call).
_homes: dict[str | None, Path] = {}


def _home() -> Path:
    key = os.environ.get("HOME")
    home = _homes.get(key)
    if home is None:
        try:
            home = Path.home().resolve()
        except (RuntimeError, OSError):
            home = Path("/nonexistent-home")
        _homes[key] = home
    return home


def trusted_by_project(workspace: Path, host: Any = None, *,
                       chain: list[Path] | None = None) -> bool:
    """Whether the user trusts the project of ``workspace`` with its skills as they are: the
    project is trusted, and every skill file found was among the files trusted (one that was
    not counted — a caller without the plugin host — is not trusted). ``chain``: the
    workspace's :func:`project_chain`, when the caller has it."""
    from chatcli import project_trust

    state = project_trust(workspace, host)
    if state.root is None:
        return True
    if not state.trusted:
        return False
    counted = set(state.files)
    root = state.root
    for folder in project_chain(workspace) if chain is None else chain:
        for sub in PROJECT_DIRS:
            base = folder / sub
            if not base.is_dir():
                continue
            for top, _dirs, files in os.walk(base):
                for name in files:
                    relative = (Path(top) / name).relative_to(root).as_posix()
                    if relative not in counted:
                        return False
    return True
