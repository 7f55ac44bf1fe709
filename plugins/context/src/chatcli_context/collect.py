"""What ``/context create NAME PATH...`` takes: files, folders and globs, read as text.

- a file named on its own is taken (even one ``.gitignore`` lists: it was asked for by name);
- a folder is walked, and a glob (``src/**/*.py``) expanded, skipping what ``.gitignore`` files
  exclude (read with pathspec, as git reads them: every ``.gitignore`` from the repository's
  root down, ``.git/info/exclude`` too) and the ``.git`` folder; links to folders are not
  followed;
- binary files are refused (a NUL byte in the first 8 KB, or not UTF-8), and so are files over
  the per-file cap; once the context's total cap or its file count is reached, the rest is
  refused. Each refusal is reported with its reason.
"""

from __future__ import annotations

import contextlib
import glob as _glob
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_context.files import decode_text, display_path
from chatcli_context.store import StoredFile

if TYPE_CHECKING:
    from chatcli_context.settings import ContextOptions

__all__ = ["Collected", "collect"]

_, ngettext = translation(__name__)

_GLOB_CHARS = set("*?[")


@dataclass
class Collected:
    """The files taken, those refused (path, why), and how many ``.gitignore`` excluded."""

    files: list[StoredFile] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    ignored: int = 0
    missing: list[str] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return sum(len(f.text) for f in self.files)


class _Ignores:
    """``.gitignore`` rules that apply to a path, gathered from the repository root down."""

    def __init__(self) -> None:
        self._specs: dict[Path, Any] = {}

    def _spec(self, folder: Path) -> Any:
        if folder not in self._specs:
            import pathspec

            lines: list[str] = []
            for name in (".gitignore",) + (("info/exclude",) if folder.name == ".git" else ()):
                with contextlib.suppress(OSError):
                    lines += (folder / name).read_text(encoding="utf-8",
                                                       errors="replace").splitlines()
            self._specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
        return self._specs[folder]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether git would ignore ``path``: the deepest ``.gitignore`` with a matching rule
        (from the repository root, ``.git/info/exclude`` first) decides."""
        repo = _repository(path)
        folders = [repo, *reversed([p for p in path.parents if _inside(p, repo) and p != repo])]
        verdict = None
        checks: list[tuple[Path, Any]] = []
        exclude = self._spec(repo / ".git") if (repo / ".git").is_dir() else None
        if exclude is not None:
            checks.append((repo, exclude))
        checks += [(folder, self._spec(folder)) for folder in folders]
        for folder, spec in checks:
            if spec is None:
                continue
            relative = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(relative)
            if result.include is not None:
                verdict = result.include
        return bool(verdict)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


_repos: dict[Path, Path] = {}


def _repository(path: Path) -> Path:
    """The root of the git repository holding ``path`` (else its folder)."""
    start = path.parent
    hit = _repos.get(start)
    if hit is not None:
        return hit
    found = start
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            found = folder
            break
    _repos[start] = found
    return found


def collect(arguments: list[str], workspace: Path, options: ContextOptions) -> Collected:
    """Read what ``arguments`` name (relative to ``workspace``) within the caps."""
    out = Collected()
    ignores = _Ignores()
    seen: set[Path] = set()
    for argument in arguments:
        expanded = os.path.expanduser(argument)
        target = Path(expanded) if os.path.isabs(expanded) else workspace / expanded
        if target.exists():
            if target.is_dir():
                _walk(target, out, seen, ignores, workspace, options)
            else:
                _take(target, out, seen, workspace, options)
            continue
        if not _GLOB_CHARS & set(argument):
            out.missing.append(argument)
            continue
        matches = sorted(_glob.glob(expanded, root_dir=None if os.path.isabs(expanded)
                                    else workspace, recursive=True))
        if not matches:
            out.missing.append(argument)
        for match in matches:
            path = Path(match) if os.path.isabs(match) else workspace / match
            if ".git" in path.parts or ignores.ignored(path, path.is_dir()):
                out.ignored += 1
            elif path.is_dir():
                _walk(path, out, seen, ignores, workspace, options)
            else:
                _take(path, out, seen, workspace, options)
    return out


def _walk(folder: Path, out: Collected, seen: set[Path], ignores: _Ignores, workspace: Path,
          options: ContextOptions) -> None:
    for current, dirs, names in os.walk(folder):
        base = Path(current)
        kept = []
        for name in sorted(dirs):
            path = base / name
            if name == ".git" or path.is_symlink():
                continue
            if ignores.ignored(path, True):
                out.ignored += 1
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(names):
            path = base / name
            if ignores.ignored(path, False):
                out.ignored += 1
                continue
            _take(path, out, seen, workspace, options)


def _take(path: Path, out: Collected, seen: set[Path], workspace: Path,
          options: ContextOptions) -> None:
    resolved = path.resolve()
    if resolved in seen:
        return
    seen.add(resolved)
    shown = display_path(path, workspace)
    if len(out.files) >= options.context_max_files:
        out.skipped.append((shown, _("the context already has {count:,} files "
                                     "(context_max_files)").format(
                                         count=options.context_max_files)))
        return
    try:
        size = resolved.stat().st_size
        with open(resolved, "rb") as handle:
            data = handle.read(options.file_max_chars * 4 + 4)
    except OSError as err:
        out.skipped.append((shown, _("cannot read it ({reason})").format(
            reason=err.strerror or err)))
        return
    text = decode_text(data)
    if text is None:
        out.skipped.append((shown, _("binary file (not UTF-8 text)")))
        return
    if len(text) > options.file_max_chars or size > options.file_max_chars * 4:
        out.skipped.append((shown, _("{count:,} characters, over the {limit:,} of "
                                     "file_max_chars").format(
                                         count=max(len(text), size),
                                         limit=options.file_max_chars)))
        return
    if out.chars + len(text) > options.context_max_chars:
        out.skipped.append((shown, _("the context would pass its {limit:,} characters "
                                     "(context_max_chars)").format(
                                         limit=options.context_max_chars)))
        return
    out.files.append(StoredFile(shown, text))
