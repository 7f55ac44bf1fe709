"""``.gitignore`` rules for workspaces that are not git repositories.

The manifest of a workspace outside git skips what git would ignore there: the patterns of every
``.gitignore`` from the workspace root down, with git's precedence (a deeper file beats a
shallower one, a later line beats an earlier one, ``!`` re-includes, a trailing ``/`` matches
folders only, a pattern with a ``/`` before its end is anchored to its file's folder, ``**``
spans folders). A folder that is ignored is not entered, so nothing below it can be re-included
— git's rule too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ALWAYS_SKIPPED", "IgnoreRules", "parse_gitignore"]

#: Folders never recorded, .gitignore or not: version-control data, caches and environments
#: that are rebuilt rather than restored.
ALWAYS_SKIPPED = frozenset({
    ".git", ".hg", ".svn", ".bzr", "node_modules", "__pycache__", ".venv", "venv", ".tox",
    ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache",
})


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _translate(glob: str) -> str:
    """A gitignore glob (already without its leading/trailing slash) as a regex body."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                before_ok = i == 0 or glob[i - 1] == "/"
                after = i + 2
                if before_ok and after == n:  # trailing "**": everything below
                    out.append(".*")
                    i = after
                    continue
                if before_ok and glob.startswith("/", after):  # "**/": zero or more folders
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
            out.append("[^/]*")
            while i < n and glob[i] == "*":
                i += 1
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        elif c == "[":
            end = glob.find("]", i + 2 if glob.startswith(("[!", "[^"), i) else i + 1)
            if end == -1:
                out.append(re.escape(c))
            else:
                body = glob[i + 1:end]
                negate = body[:1] in ("!", "^")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"[{'^' if negate else ''}{body}]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse_gitignore(text: str) -> list[_Pattern]:
    """The patterns of one ``.gitignore`` file, in file order."""
    patterns: list[_Pattern] = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        # trailing spaces are dropped unless escaped with a backslash
        stripped = line.rstrip(" ")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "
        line = stripped
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith(("\\!", "\\#")):  # the mark, or an escaped "!"/"#"
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _translate(line)
        if not anchored:
            body = "(?:.*/)?" + body
        patterns.append(_Pattern(re.compile(f"^{body}$", re.DOTALL), negated, dir_only))
    return patterns


class IgnoreRules:
    """The ``.gitignore`` files met on the way down from the workspace root.

    :meth:`enter` reads a folder's ``.gitignore`` (the walker calls it for each folder it goes
    into); :meth:`ignored` answers for a path relative to the root.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._by_folder: dict[str, list[_Pattern]] = {}

    def enter(self, folder: str) -> None:
        """Load ``folder``'s ``.gitignore`` (``""`` is the root), once."""
        if folder in self._by_folder:
            return
        path = self.root / folder / ".gitignore" if folder else self.root / ".gitignore"
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        self._by_folder[folder] = parse_gitignore(text)

    def ignored(self, relative: str, is_dir: bool) -> bool:
        """Whether ``relative`` (posix, from the root) is ignored by the folders loaded so far."""
        parts = relative.split("/")
        # deepest .gitignore first: the first one with a matching line decides
        for depth in range(len(parts) - 1, -1, -1):
            folder = "/".join(parts[:depth])
            patterns = self._by_folder.get(folder)
            if not patterns:
                continue
            below = "/".join(parts[depth:])
            for pattern in reversed(patterns):
                if pattern.dir_only and not is_dir:
                    continue
                if pattern.regex.match(below):
                    return not pattern.negated
        return False
