"""Walking folders the way git sees them: ``.gitignore`` files (every level, and those above up
to the repository's root), ``.git/info/exclude``, the ``.git`` folder itself skipped; symbolic
links listed, never followed; credential files left out unless asked for; the paths a call's
:class:`chatcli.Confinement` hides (deny rules' targets) left out without a word."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chatcli_workspace import glob_regex

from chatcli_coder._common import credential

__all__ = ["Entry", "Hidden", "Walker"]

#: Never listed (version-control internals).
ALWAYS_SKIPPED = frozenset({".git", ".hg", ".svn"})


@dataclass(frozen=True)
class Entry:
    """One entry of a folder."""

    path: Path
    name: str
    is_dir: bool
    is_link: bool


def _fixed_part(pattern: str) -> str:
    """The leading folders of an absolute glob that hold no glob character."""
    fixed: list[str] = []
    for part in pattern.split("/"):
        if any(c in part for c in "*?["):
            break
        fixed.append(part)
    return "/".join(fixed) or "/"


class Hidden:
    """The paths a call must not see (:attr:`chatcli.Confinement.hidden`: absolute paths or
    absolute globs): what matches, or lies inside a folder that matches, is hidden. Each
    pattern is judged as given and with its fixed leading folder resolved through links."""

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        self.patterns: list[tuple[str, str]] = []  # (fixed folder, pattern), both forms
        self._regexes: list[re.Pattern[str]] = []
        for pattern in patterns:
            if not pattern or not pattern.startswith("/"):
                continue
            pattern = pattern.rstrip("/") or "/"
            fixed = _fixed_part(pattern)
            real = os.path.realpath(fixed)
            forms = [pattern, real + pattern[len(fixed):]]
            # "folder/**" hides the folder itself (what is added to it later too)
            forms += [form[:-3] or "/" for form in forms if form.endswith("/**")]
            for form in dict.fromkeys(forms):
                self.patterns.append((_fixed_part(form), form))
                self._regexes.append(glob_regex(form))

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def covers(self, path: Path | str, resolve: bool = True) -> bool:
        """Whether ``path`` (absolute; judged as given and, with ``resolve``, with links
        resolved) is hidden."""
        if not self._regexes:
            return False
        text = os.path.normpath(os.fspath(path))
        forms = (text, os.path.realpath(text)) if resolve else (text,)
        for probe_start in dict.fromkeys(forms):
            probe = probe_start
            while True:
                if any(regex.match(probe) for regex in self._regexes):
                    return True
                parent = os.path.dirname(probe)
                if parent == probe:
                    break
                probe = parent
        return False

    def expand(self, limit: int = 50_000) -> tuple[list[tuple[Path, bool]], bool]:
        """The existing paths the patterns name, real, each with whether it is a folder (a
        folder that matches stands for everything in it; nothing inside a hidden folder is
        listed again), and whether every one was found (False: the walk stopped at ``limit``
        entries)."""
        found: dict[Path, bool] = {}
        complete = True
        seen = 0
        for fixed, pattern in self.patterns:
            regex = glob_regex(pattern)
            if fixed == pattern:  # a plain path
                if os.path.lexists(pattern):
                    real = Path(os.path.realpath(pattern))
                    if real.exists():
                        found[real] = real.is_dir()
                continue
            if os.path.isdir(fixed) and regex.match(fixed):
                found[Path(os.path.realpath(fixed))] = True
                continue
            last = pattern.rsplit("/", 1)[1]
            # the last part's own test first (most names fail it): "**/.env" looks at ".env"s
            name_test = glob_regex(last).match if "**" not in last else None
            for folder, dirs, files in os.walk(fixed):
                keep = []
                for name, is_dir in [*((d, True) for d in dirs), *((f, False) for f in files)]:
                    seen += 1
                    if name_test is not None and not name_test(name):
                        if is_dir:
                            keep.append(name)
                        continue
                    path = os.path.join(folder, name)
                    if regex.match(path):
                        real = Path(os.path.realpath(path))
                        if real.exists():
                            found[real] = real.is_dir()
                    elif is_dir:
                        keep.append(name)
                dirs[:] = keep
                if seen > limit:
                    complete = False
                    dirs[:] = []
                    break
        # nothing inside a hidden folder: the folder hides it already
        folders = [p for p, is_dir in found.items() if is_dir]
        kept = [(p, is_dir) for p, is_dir in found.items()
                if not any(p != f and p.is_relative_to(f) for f in folders)]
        return sorted(kept, key=lambda item: (len(item[0].parts), str(item[0]))), complete


def git_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git``."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


class Walker:
    """Lists folders below ``top``, honouring ignore files when ``ignore`` is set."""

    def __init__(self, top: Path, *, ignore: bool = True, credentials: bool = False,
                 hidden: Hidden | None = None) -> None:
        self.top = top
        self.hidden = hidden if hidden else None
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
            if self.hidden is not None and self.hidden.covers(path):
                continue
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
