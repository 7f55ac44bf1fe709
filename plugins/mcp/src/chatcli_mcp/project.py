"""The project's own servers file (``.mcp.json`` at the project root): its name and where it
is, apart from :mod:`.settings` so that the entry module learns whether a project has one (and
registers it as a control file) without importing how servers are read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["PROJECT_FILE", "project_file", "project_root"]

#: The project's own servers file, at the project root (Claude Code's name).
PROJECT_FILE = ".mcp.json"


def project_root(workspace: Path, host: Any = None) -> Path | None:
    """The project root of ``workspace`` as workspace trust sees it (the nearest folder holding
    ``.chatcli/``, else the git repository's top, else the workspace; never the home folder):
    the folder whose ``.mcp.json`` is the project's."""
    from chatcli import project_trust

    return project_trust(workspace, host).root


def project_file(workspace: Path, host: Any = None) -> Path | None:
    """The project's ``.mcp.json`` (at its root), if there is one."""
    root = project_root(workspace, host)
    if root is None:
        return None
    candidate = root / PROJECT_FILE
    return candidate if candidate.is_file() else None
