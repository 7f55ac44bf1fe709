"""Bootstrap files: the standing instructions a project and a user keep beside their work.

``AGENTS.md``, ``CLAUDE.md``, ``SOUL.md``, ``USER.md``, ``IDENTITY.md``, ``RULES.md`` and
``MEMORY.md`` are read from the project root (:func:`chatcli_context.files.project_root`) and
from the user's config folder (:func:`chatcli.config_dir`); for one name, the project's file
wins. Each becomes one stable prompt section, in that order, after the rest of the stable
prompt (the workspace half that does not depend on the turn comes last in the cached region).
A file longer than its cap is cut, with a note saying how to read the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import translation
from chatcli_records_lite import dataclass

from chatcli_context.files import FileCache, project_root

if TYPE_CHECKING:
    from chatcli_context.settings import ContextOptions

__all__ = ["BOOTSTRAP_NAMES", "BOOTSTRAP_ORDER", "BootstrapFile", "cut", "find_bootstrap"]

_, ngettext = translation(__name__)

BOOTSTRAP_NAMES = ("AGENTS.md", "CLAUDE.md", "SOUL.md", "USER.md", "IDENTITY.md", "RULES.md",
                   "MEMORY.md")
#: The order of the first bootstrap section (the kernel's base prompt is 0, the user's
#: ``system`` setting 900); each file takes the next number.
BOOTSTRAP_ORDER = 950


@dataclass(frozen=True)
class BootstrapFile:
    """A bootstrap file found: its name, where it is, whose it is, its text."""

    name: str
    path: Path
    source: str  # "project" or "user"
    text: str


def find_bootstrap(workspace: Path, user_dir: Path, cache: FileCache,
                   problems: list[str] | None = None, *,
                   root: Path | None = None) -> list[BootstrapFile]:
    """The bootstrap files in effect, in :data:`BOOTSTRAP_NAMES` order (project over user).
    Files that cannot be used (binary, unreadable) are left out and said in ``problems``.
    ``root``: the workspace's :func:`project_root`, when the caller has it."""
    root = project_root(workspace) if root is None else root
    found = []
    for name in BOOTSTRAP_NAMES:
        for source, folder in (("project", root), ("user", user_dir)):
            entry = cache.get(folder / name)
            if entry is None:
                continue
            if entry.text is None:
                if problems is not None:
                    problems.append(_("{path} is not used: {problem}").format(
                        path=entry.path, problem=entry.problem))
                continue
            text = entry.text.replace("\r\n", "\n").strip("\n")
            if text.strip():  # an empty project file still hides the user's, but says nothing
                found.append(BootstrapFile(name, entry.path, source, text))
            break
    return found


def cut(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to at most ``limit`` characters (at a line end when one is near), and where
    the rest starts (``len(text)`` when nothing was cut)."""
    if len(text) <= limit:
        return text, len(text)
    end = text.rfind("\n", 0, limit) + 1  # keep the line end: the rest starts a line
    if end < limit * 4 // 5:
        end = limit
    return text[:end].rstrip("\n"), end


def allowances(files: list[BootstrapFile], options: ContextOptions) -> list[int]:
    """How many characters of each file the prompt holds: the per-file cap, within what is left
    of the total cap."""
    left = options.bootstrap_total_max_chars
    out = []
    for file in files:
        allowed = max(0, min(options.bootstrap_max_chars, left))
        out.append(allowed)
        left -= min(len(file.text), allowed)
    return out
