"""Reading the files the prompt quotes: the project root, text-or-binary, and a cache that reads
a file again only when it changed (its modification time, size or inode)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from chatcli import translation
from chatcli_records_lite import dataclass

__all__ = ["FileCache", "FileText", "decode_text", "display_path", "project_root"]

_, ngettext = translation(__name__)

#: Bytes read of a file at most (a bigger one is cut; callers cap far below this anyway).
MAX_READ = 4 * 1024 * 1024
#: How many leading bytes decide whether a file is binary.
SNIFF = 8192


@dataclass(frozen=True)
class FileText:
    """A file as read: its text (None when it is binary or unreadable) and why not."""

    path: Path
    text: str | None
    problem: str = ""


def decode_text(data: bytes) -> str | None:
    """``data`` as UTF-8 text (a BOM dropped), or None when it looks binary (a NUL byte in its
    first 8 KB, or bytes that are not UTF-8)."""
    if b"\0" in data[:SNIFF]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        if len(data) >= MAX_READ and err.start >= len(data) - 4:  # cut inside a character
            return data[:err.start].decode("utf-8-sig", errors="ignore")
        return None


class FileCache:
    """Text files by path, read again only when their ``stat`` changes."""

    def __init__(self) -> None:
        self._entries: dict[Path, tuple[tuple[int, int, int], FileText]] = {}
        self._lock = threading.Lock()
        #: how many times a file was actually read (tests and the bench look)
        self.reads = 0

    def get(self, path: Path) -> FileText | None:
        """The file at ``path``, or None when there is no regular file there."""
        try:
            stat = path.stat()
        except OSError:
            return None
        if not path.is_file():
            return None
        key = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        with self._lock:
            hit = self._entries.get(path)
            if hit is not None and hit[0] == key:
                return hit[1]
        entry = self._read(path)
        with self._lock:
            self.reads += 1
            if len(self._entries) > 4096:
                self._entries.clear()
            self._entries[path] = (key, entry)
        return entry

    @staticmethod
    def _read(path: Path) -> FileText:
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_READ)
        except OSError as err:
            return FileText(path, None, _("cannot read it ({reason})").format(
                reason=err.strerror or err))
        text = decode_text(data)
        if text is None:
            return FileText(path, None, _("it is binary (not UTF-8 text)"))
        return FileText(path, text)


def project_root(workspace: Path) -> Path:
    """The project the workspace belongs to: the nearest folder at or above it holding
    ``.agent/`` or ``.git``; else the nearest holding ``.chatcli/``; else the workspace. The
    home folder itself is nobody's project."""
    start = Path(os.path.realpath(workspace))
    home = Path(os.path.realpath(os.path.expanduser("~")))
    folders = [start, *start.parents]
    for markers in ((".agent", ".git"), (".chatcli",)):
        for folder in folders:
            if folder == home:
                continue
            for marker in markers:
                candidate = folder / marker
                if candidate.is_dir() or (marker == ".git" and candidate.is_file()):
                    return folder
    return start


def display_path(path: Path, workspace: Path) -> str:
    """``path`` relative to ``workspace`` when inside it (POSIX separators), else absolute with
    the home folder as ``~``."""
    try:
        return path.relative_to(workspace).as_posix()
    except ValueError:
        pass
    home = Path(os.path.expanduser("~"))
    try:
        return "~/" + path.relative_to(home).as_posix()
    except ValueError:
        return str(path)
