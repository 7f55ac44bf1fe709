"""Walking folders the way git sees them: ``.gitignore`` files (every level, and those above up
to the repository's root), ``.git/info/exclude``, the ``.git`` folder itself skipped; symbolic
links listed, never followed; credential files left out unless asked for."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli_coder._common import credential

__all__ = ["Entry", "Walker"]

#: Never listed (version-control internals).
ALWAYS_SKIPPED = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class Entry:
    """One entry of a folder."""

    path: Path
    name: str
    is_dir: bool
    is_link: bool


def git_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git``."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


class Walker:
    """Lists folders below ``top``, honouring ignore files when ``ignore`` is set."""

    def __init__(self, top: Path, *, ignore: bool = True, credentials: bool = False) -> None:
        self.top = top
        self.ignore = ignore
        self.credentials = credentials
        #: folder -> its compiled .gitignore (None: it has none)
        self._specs: dict[Path, Any] = {}
        #: (priority, folder, spec) of the ignore files found so far
        self._active: list[tuple[int, Path, Any]] = []
        #: credential files left out of the listings so far
        self.credential_paths: list[Path] = []
        if ignore:
            root = git_root(top)
            if root is not None:
                exclude = root / ".git" / "info" / "exclude"
                self._add(root, [exclude], key=root / ".git")
                for folder in reversed([top, *top.parents]):
                    if folder == root or folder.is_relative_to(root):
                        self._load(folder)
            else:
                self._load(top)

    # ------------------------------------------------------------------ ignore rules

    def _add(self, base: Path, files: list[Path], key: Path) -> None:
        lines: list[str] = []
        for file in files:
            try:
                lines.extend(file.read_text(encoding="utf-8", errors="replace").splitlines())
            except OSError:
                continue
        if not lines:
            self._specs[key] = None
            return
        import pathspec

        try:
            spec = pathspec.GitIgnoreSpec.from_lines(lines)
        except Exception:  # a malformed pattern: ignore the file rather than fail the listing
            spec = None
        self._specs[key] = (base, spec) if spec is not None else None
        if spec is not None:
            priority = -1 if key.name == ".git" else len(base.parts)
            self._active.append((priority, base, spec))

    def _load(self, folder: Path) -> None:
        if folder not in self._specs:
            self._add(folder, [folder / ".gitignore"], key=folder)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether git would ignore ``path`` (the ignore files of its folders are loaded
        already): the deepest ignore file with a pattern for it decides, and
        ``.git/info/exclude`` decides last."""
        if not self.ignore:
            return False
        best: tuple[int, bool] | None = None
        for priority, base, spec in self._active:
            if path == base or not path.is_relative_to(base):
                continue
            if best is not None and priority <= best[0]:
                continue
            relative = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            include = spec.check_file(relative).include
            if include is not None:
                best = (priority, bool(include))
        return bool(best and best[1])

    # ------------------------------------------------------------------ listing

    def children(self, folder: Path) -> tuple[list[Entry], list[Entry]]:
        """The folders and files in ``folder`` that are listed, each sorted by name."""
        if self.ignore:
            self._load(folder)
        dirs: list[Entry] = []
        files: list[Entry] = []
        try:
            with os.scandir(folder) as scan:
                entries = list(scan)
        except OSError:
            return dirs, files
        for item in sorted(entries, key=lambda e: e.name):
            if item.name in ALWAYS_SKIPPED:
                continue
            is_link = item.is_symlink()
            try:
                is_dir = item.is_dir(follow_symlinks=False)
            except OSError:
                continue
            path = folder / item.name
            if self.ignored(path, is_dir):
                continue
            if not is_dir and not self.credentials and credential(path):
                self.credential_paths.append(path)
                continue
            (dirs if is_dir else files).append(Entry(path, item.name, is_dir, is_link))
        return dirs, files

    def files(self, folder: Path | None = None) -> Iterator[Entry]:
        """Every listed file below ``folder`` (``top``), depth first, sorted."""
        stack = [folder or self.top]
        while stack:
            current = stack.pop()
            dirs, files = self.children(current)
            yield from files
            stack.extend(entry.path for entry in reversed(dirs))
