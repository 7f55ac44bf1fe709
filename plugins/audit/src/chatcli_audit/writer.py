"""Appending records to the JSON-lines file, and rotating it by size.

Each record is one line written with one ``write`` on a descriptor opened with ``O_APPEND``, so
lines from several threads and processes (server replicas, a chat beside a ``-p`` run) never
interleave. The size check and the rotation happen under an exclusive ``flock`` on
``audit.lock`` in the folder, taken for each record: two processes never rotate the same file
twice, and a writer holding a descriptor of a file another process rotated away opens the new
one (it compares inode numbers) before it writes.

Files are created 0600, the folder 0700 (when this module creates it).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = ["JsonlWriter", "rotated_files"]


def rotated_files(file: Path, keep: int | None = None) -> list[Path]:
    """``file``'s rotated files that exist, oldest first (``audit.jsonl.N`` … ``.1``); with
    ``keep``, the numbers 1 to ``keep`` whether they exist or not, newest first."""
    if keep is not None:
        return [file.with_name(f"{file.name}.{number}") for number in range(1, keep + 1)]
    found: list[tuple[int, Path]] = []
    prefix = file.name + "."
    try:
        entries = list(file.parent.iterdir())
    except OSError:
        return []
    for entry in entries:
        suffix = entry.name[len(prefix):] if entry.name.startswith(prefix) else ""
        if suffix.isdigit():
            found.append((int(suffix), entry))
    return [path for _number, path in sorted(found, reverse=True)]


class JsonlWriter:
    """Appends lines to ``file``, rotating it before it would pass ``max_bytes`` and keeping
    ``keep`` rotated files."""

    def __init__(self, file: Path, max_bytes: int, keep: int) -> None:
        self.file = file
        self.max_bytes = max_bytes
        self.keep = keep
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._inode: tuple[int, int] | None = None

    def _folder(self) -> None:
        folder = self.file.parent
        if not folder.is_dir():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            os.chmod(folder, 0o700)  # (mkdir's mode goes through the umask)

    def append(self, line: bytes) -> None:
        """Append ``line`` (one JSON object and its newline) as one write.

        :raises OSError: the folder or the file cannot be made or written.
        """
        import fcntl

        with self._lock:
            self._folder()
            lock_fd = os.open(self.file.with_name("audit.lock"),
                              os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX)
                self._rotate_if_needed(len(line))
                fd = self._descriptor()
                written = os.write(fd, line)
                while written < len(line):  # (a regular file takes it all unless it is full)
                    written += os.write(fd, line[written:])
            finally:
                os.close(lock_fd)  # (closing releases the lock)

    def _descriptor(self) -> int:
        """The descriptor of the current file, opened again when the file was rotated."""
        try:
            stat = os.stat(self.file)
            current: tuple[int, int] | None = (stat.st_dev, stat.st_ino)
        except FileNotFoundError:
            current = None
        if self._fd is not None and current == self._inode:
            return self._fd
        self.close()
        fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        stat = os.fstat(fd)
        if stat.st_mode & 0o077:
            os.fchmod(fd, 0o600)
        self._fd, self._inode = fd, (stat.st_dev, stat.st_ino)
        return fd

    def _rotate_if_needed(self, adding: int) -> None:
        try:
            size = os.stat(self.file).st_size
        except FileNotFoundError:
            return
        if size == 0 or size + adding <= self.max_bytes:
            return
        numbered = rotated_files(self.file, self.keep)
        for stale in rotated_files(self.file):  # beyond keep (keep was lowered)
            if stale not in numbered:
                stale.unlink(missing_ok=True)
        if not numbered:
            os.unlink(self.file)
        else:
            for older, newer in zip(reversed(numbered), reversed(numbered[:-1]), strict=False):
                if newer.exists():
                    os.replace(newer, older)
            os.replace(self.file, numbered[0])
        self.close()

    def close(self) -> None:
        """Close the descriptor (the next record opens the file again)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd, self._inode = None, None
