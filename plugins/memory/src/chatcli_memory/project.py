"""The project a workspace belongs to, and its memory scope (``project:<key>``)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

__all__ = ["project_root", "project_scope"]

_MARKERS = (".chatcli", ".git")


def project_root(workspace: Path) -> Path | None:
    """The nearest folder at or above ``workspace`` holding ``.chatcli`` or ``.git`` (the home
    folder itself never counts), or None."""
    home = Path(os.path.realpath(os.path.expanduser("~")))
    folder = Path(os.path.realpath(workspace))
    for candidate in (folder, *folder.parents):
        if candidate != home and any((candidate / m).exists() for m in _MARKERS):
            return candidate
    return None


def project_scope(workspace: Path, key: str = "") -> str | None:
    """``project:<key>`` for the workspace's project: ``key`` when given (``memory.project``),
    else the folder's name and a hash of its path; None outside a project."""
    if key:
        return f"project:{key}"
    root = project_root(workspace)
    if root is None:
        return None
    name = re.sub(r"[^\w.\-]+", "-", root.name).strip("-") or "project"
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:8]
    return f"project:{name}-{digest}"
