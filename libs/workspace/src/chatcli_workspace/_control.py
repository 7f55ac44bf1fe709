"""chatcli's and git's control files: what no tool writes without the person's say-so.

A file in a project that changes what chatcli or git *does* — chatcli's project config, the MCP
servers it starts, Claude Code's settings (hooks), git's config and hooks, attributes naming
filters, submodules — turns a write into a program that runs later, outside any sandbox. The
permission policy asks before any write to one (in every mode) and the coder's sandbox mounts
them read-only unless the call was approved for them.

Names are compared case-insensitively, with characters that some file systems ignore removed and
trailing dots and spaces dropped (``.GIT``, ``.git.`` and ``.g\\u200cit`` are all ``.git`` to macOS
or Windows), so a spelling that a case-insensitive file system would fold is protected too.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

__all__ = ["CONTROL_NAMES", "control_paths", "git_dir_of", "is_control_file"]

#: What is protected, as shown to people (gitignore-style, relative to any folder).
CONTROL_NAMES = (".chatcli/**", ".mcp.json", ".claude/settings*.json", ".git/**",
                 ".gitattributes", ".gitmodules")

#: Folders whose whole content (and the folder itself) is protected, in any folder.
_FOLDERS = (".chatcli", ".git")
#: File names protected in any folder.
_FILES = (".mcp.json", ".gitattributes", ".gitmodules")
#: (folder, file pattern): files protected inside a folder of that name.
_INSIDE = ((".claude", "settings*.json"),)

#: Characters HFS+/NTFS ignore in names (git's own list for core.protectHFS), removed before
#: comparing.
_IGNORED = re.compile("[\u200c\u200d\u200e\u200f\u202a-\u202e\u206a-\u206f\ufeff]")


def _fold(name: str) -> str:
    """A file name as a case-insensitive file system would compare it."""
    return _IGNORED.sub("", name).rstrip(". ").casefold()


def _names(path: Path, root: Path | None) -> list[str]:
    """The folded names of ``path``'s parts below ``root`` (all of them when outside it)."""
    if root is not None and (path == root or path.is_relative_to(root)):
        parts = path.relative_to(root).parts
    else:
        parts = tuple(p for p in path.parts if p != path.anchor)
    return [_fold(p) for p in parts]


def _by_name(names: list[str]) -> bool:
    for index, name in enumerate(names):
        if name in _FOLDERS:
            return True
        if index == len(names) - 1 and name in _FILES:
            return True
        if index == len(names) - 2 and any(
                name == folder and fnmatch.fnmatchcase(names[-1], pattern)
                for folder, pattern in _INSIDE):
            return True
    return False


def git_dir_of(folder: Path) -> Path | None:
    """The folder a ``.git`` *file* in ``folder`` points to (``gitdir: …`` of a worktree or a
    submodule), resolved; None when there is no such file or it cannot be read."""
    marker = folder / ".git"
    try:
        if not marker.is_file():
            return None
        with open(marker, encoding="utf-8", errors="replace") as handle:
            first = handle.read(4096).splitlines()[:1]
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    target = first[0][len("gitdir:"):].strip()
    if not target:
        return None
    return Path(os.path.realpath(folder / os.path.expanduser(target)))


def _is_git_dir(folder: Path) -> bool:
    """Whether ``folder`` is a git repository's own folder (a bare repository, or the target of
    a ``.git`` file): it has ``HEAD``, ``objects`` and ``refs``."""
    try:
        return ((folder / "HEAD").is_file() and (folder / "objects").is_dir() and
                (folder / "refs").is_dir())
    except OSError:
        return False


def is_control_file(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether writing ``path`` (absolute, or relative to ``root``, the workspace) writes one
    of chatcli's or git's control files: ``.chatcli/**``, ``.mcp.json``,
    ``.claude/settings*.json``, ``.git/**`` (or the folder a ``.git`` file points to, or any
    git repository's own folder), ``.gitattributes`` or ``.gitmodules``, in any folder.

    Both ``path`` as given (``..`` folded) and its real path (links followed) are judged, so a
    link to a control file is one too."""
    base = Path(os.path.realpath(root))
    given = Path(os.path.expanduser(os.fspath(path)))
    lexical = Path(os.path.normpath(given if given.is_absolute() else base / given))
    real = Path(os.path.realpath(lexical))
    for candidate in dict.fromkeys((lexical, real)):
        if _by_name(_names(candidate, base)):
            return True
    # a folder on the way that is a git directory itself, or that a `.git` file points to
    for folder in [real, *real.parents]:
        if folder == Path(folder.anchor):
            break
        if _is_git_dir(folder):
            return True
        pointed = git_dir_of(folder)
        if pointed is not None and (real == pointed or real.is_relative_to(pointed)):
            return True
    pointed = git_dir_of(base)
    return pointed is not None and (real == pointed or real.is_relative_to(pointed))


def control_paths(root: str | os.PathLike[str], limit: int = 20000) -> list[Path]:
    """The control files and folders that exist in the workspace ``root`` (real paths, no
    duplicates): what a sandbox mounts read-only. Folders are searched to ``limit`` entries (the
    ones at the top are always there); ``.git`` folders are listed, not entered, and the folder
    a ``.git`` file points to is listed too."""
    base = Path(os.path.realpath(root))
    found: dict[Path, None] = {}
    seen = 0
    for folder, dirs, files in _walk(base):
        for name in [*dirs, *files]:
            seen += 1
            path = folder / name
            names = _names(path, base)
            if _by_name(names):
                found[Path(os.path.realpath(path))] = None
                if _fold(name) == ".git" and name in files:
                    pointed = git_dir_of(folder)
                    if pointed is not None:
                        found[pointed] = None
        # do not enter what is already protected as a whole, nor what is too much
        dirs[:] = [d for d in dirs if _fold(d) not in _FOLDERS]
        if seen > limit:
            dirs[:] = []
    return list(found)


def _walk(base: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    for folder, dirs, files in os.walk(base):
        yield Path(folder), dirs, files
