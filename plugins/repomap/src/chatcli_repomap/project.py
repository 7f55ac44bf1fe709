"""Where the project is and which of its files to map.

The project is the git repository holding the workspace (found by looking for ``.git`` upwards,
without running git), else the workspace folder itself. Its files come from ``git ls-files``
(tracked, plus untracked ones that ``.gitignore`` does not exclude) run through
:func:`chatcli_workspace.safe_git`, so no config of the repository can make git run a program;
outside git, from a bounded walk of the folder that honours ``.gitignore`` files (pathspec) —
but not of the home folder or ``/``, which are no project.

What is never read: symbolic links (a link is skipped, never followed, and a file whose folder
resolves outside the project is skipped), files bigger than the limit, binary files (a NUL byte
in the first 8 KB, or not UTF-8), files of no known language.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from chatcli_records_lite import NamedTuple

__all__ = ["Listing", "git_dir", "list_files", "project_of", "read_source"]

#: Entries a walk outside git looks at, at most (a home folder is not a project).
WALK_LIMIT = 20_000
#: Folders a walk outside git never enters.
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
                          ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache", "dist",
                          "build", "target", ".idea", ".vscode"})
#: Leading bytes that decide whether a file is binary.
SNIFF = 8192


class Listing(NamedTuple):
    """The project's candidate files, relative to ``root`` (``/``-separated)."""

    root: Path
    files: list[str]
    #: "git" or "walk"
    source: str
    #: whether the walk stopped at its limit
    truncated: bool = False


def git_dir(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder or a worktree's
    file), without running git; None outside a repository. The home folder never counts."""
    folder = os.path.realpath(start)
    home = os.path.realpath(os.path.expanduser("~"))
    while True:
        if folder != home and os.path.exists(os.path.join(folder, ".git")):
            return Path(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def project_of(workspace: Path) -> tuple[Path, bool]:
    """The project root of ``workspace`` and whether it is a git repository."""
    found = git_dir(workspace)
    return (found, True) if found is not None else (Path(os.path.realpath(workspace)), False)


def list_files(workspace: Path, *, timeout: float = 20.0) -> Listing:
    """The files to consider for the map of ``workspace``'s project."""
    root, in_git = project_of(workspace)
    if in_git:
        files = _git_files(root, timeout)
        if files is not None:
            return Listing(root, files, "git")
    if str(root) in (os.path.realpath(os.path.expanduser("~")), os.path.realpath(os.sep)):
        return Listing(root, [], "walk")  # a home folder (or /) is no project: no map
    files, truncated = _walk(root)
    return Listing(root, files, "walk", truncated)


def _git_files(root: Path, timeout: float) -> list[str] | None:
    """``git ls-files`` (tracked and not-ignored untracked files), or None when git fails."""
    import subprocess

    from chatcli_workspace import GitMissing, safe_git

    from chatcli_repomap.common import git_env

    try:
        done = safe_git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                        root, git_env=git_env(root, timeout), timeout=timeout)
    except (GitMissing, subprocess.TimeoutExpired, OSError):
        return None
    if done.returncode != 0:
        return None
    names = []
    for raw in done.stdout.split(b"\0"):
        if raw:
            name = os.fsdecode(raw)
            if _plain_relative(name):
                names.append(name)
    return list(dict.fromkeys(names))  # a conflicted file is listed once per stage


def _plain_relative(name: str) -> bool:
    parts = name.split("/")
    return not name.startswith("/") and ".." not in parts and "" not in parts


def _walk(root: Path) -> tuple[list[str], bool]:
    """Files under ``root`` that its ``.gitignore`` files do not exclude (links not followed),
    and whether the walk stopped at :data:`WALK_LIMIT` entries."""
    found: list[str] = []
    seen = 0
    stack: list[tuple[str, list[tuple[str, object]]]] = [("", [])]
    while stack:
        prefix, specs = stack.pop()
        folder = root / prefix if prefix else root
        specs = specs + _ignore_spec(folder, prefix)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return found, True
            rel = f"{prefix}{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in SKIPPED_DIRS or _ignored(specs, rel + "/"):
                    continue
                subdirs.append((rel + "/", specs))
            elif is_file and not _ignored(specs, rel):
                found.append(rel)
        stack.extend(reversed(subdirs))
    return found, False


def _ignore_spec(folder: Path, prefix: str) -> list[tuple[str, object]]:
    path = folder / ".gitignore"
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return []
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    import pathspec

    return [(prefix, pathspec.GitIgnoreSpec.from_lines(lines))]


def _ignored(specs: list[tuple[str, object]], rel: str) -> bool:
    ignored = False
    for prefix, spec in specs:
        inner = rel[len(prefix):]
        result = spec.check_file(inner)  # type: ignore[attr-defined]
        if result.include is not None:
            ignored = result.include
    return ignored


class Source(NamedTuple):
    """A file's bytes and the stat they were read with."""

    data: bytes
    mtime_ns: int
    size: int


def file_stat(root: Path, rel: str) -> os.stat_result | None:
    """``lstat`` of a regular file of the project (None for links, folders, missing files)."""
    try:
        info = os.lstat(root / rel)
    except (OSError, ValueError):
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def inside(root: Path, rel: str, checked: dict[str, bool]) -> bool:
    """Whether ``rel``'s folder resolves inside ``root`` (a folder swapped for a link that
    points out is not); ``checked`` remembers each folder's answer."""
    folder = rel.rpartition("/")[0]
    known = checked.get(folder)
    if known is None:
        real = os.path.realpath(root / folder) if folder else str(root)
        known = checked[folder] = real == str(root) or real.startswith(str(root) + os.sep)
    return known


def read_source(root: Path, rel: str, max_bytes: int) -> Source | None:
    """The bytes of text file ``rel`` (None: a link, too big, binary, unreadable). The file is
    opened without following a link in its last part."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(root / rel, flags)
    except (OSError, ValueError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
            return None
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(max_bytes + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > max_bytes or b"\0" in data[:SNIFF]:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return Source(data, info.st_mtime_ns, info.st_size)
