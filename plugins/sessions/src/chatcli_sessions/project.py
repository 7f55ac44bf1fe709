"""Which project a session belongs to, and how lists show a folder and an age.

A session belongs to the project it was started in: the project root as the rest of chatcli
finds it (:func:`chatcli.project_root`: the nearest folder holding ``.chatcli/``, else the git
root, else the folder itself), so ``chatcli -c`` in one repository never continues a session
of another.
"""

from __future__ import annotations

import os
import time

from chatcli import translation

__all__ = ["age", "current_project", "shown_folder"]

_, ngettext = translation(__name__)


def current_project(folder: str | None = None) -> str:
    """The project root of ``folder`` (default: the current folder), as an absolute path with
    symbolic links resolved. The home folder, which is nobody's project for trust, is its own
    project here: sessions started there are listed there."""
    from chatcli import project_root

    start = os.path.realpath(folder or os.getcwd())
    return project_root(start) or start


def shown_folder(path: str | None) -> str:
    """``path`` as lists show it: the home folder as ``~`` (``-`` when unknown)."""
    if not path:
        return "-"
    home = os.path.realpath(os.path.expanduser("~"))
    if path == home:
        return "~"
    if path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path


def age(timestamp: float, now: float | None = None) -> str:
    """How long ago ``timestamp`` was: ``just now``, ``5 min ago``, ``3 h ago``, ``2 d ago``,
    then the date."""
    seconds = max((time.time() if now is None else now) - timestamp, 0.0)
    if seconds < 60:
        return _("just now")
    if seconds < 3600:
        count = int(seconds // 60)
        return ngettext("{count} min ago", "{count} min ago", count).format(count=count)
    if seconds < 86_400:
        count = int(seconds // 3600)
        return ngettext("{count} h ago", "{count} h ago", count).format(count=count)
    if seconds < 30 * 86_400:
        count = int(seconds // 86_400)
        return ngettext("{count} d ago", "{count} d ago", count).format(count=count)
    return time.strftime("%Y-%m-%d", time.localtime(timestamp))
