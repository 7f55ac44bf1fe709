"""A click program's root help page, kept with what it was made from and printed again without
importing click (or any plugin) while none of that changed.

The root help page of a program whose plugins add commands and options costs a start of every
plugin. :meth:`HelpCache.serve` prints it through the program (``run``) the first time and keeps
a copy (``help-*.txt`` in the cache folder, mode 0600, written by the caller's atomic writer)
with what it was made from:

- the interpreter and its version, ``sys.path``, the program's version, its variables (those
  starting with ``prefix``), ``COLUMNS`` and the locale variables (a digest of each value: one
  may hold a secret), the width the page is wrapped at and stdout's encoding;
- every file and folder the run used, with its modification time, size and inode: the modules
  it imported, the files it opened and the folders it listed, each ``sys.path`` entry
  (installing, upgrading or removing a distribution changes one) and the files ``more_files``
  names (each plugin's entry module).

A later run whose interpreter, path, variables and width are the same stats those files and
prints the copy when none changed; otherwise it runs the program again and replaces the copy. A
run that wrote anything on stderr (a plugin that failed to load), ended with another exit code,
or used a file changed while it ran (a distribution being installed) is not kept.

Imports only :mod:`os` and :mod:`sys` until a page has to be made.
"""

from __future__ import annotations

import os
import sys

from chatcli_cli._startup import help_width

TYPE_CHECKING = False  # not `from typing import ...`: typing costs as much as starting Python
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

__all__ = ["HelpCache", "help_width"]

#: Variables besides the program's own that the page depends on: click's width, gettext's language.
_HELP_VARIABLES = ("COLUMNS", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
#: A file changed this recently before the run may have changed while it ran: not kept.
_SETTLED_NS = 1_000_000_000


class HelpCache:
    """Where a program's help pages are kept and what decides them.

    :param name: the program (``chatcli``): the format line of the kept file.
    :param version: the program's version (a new one makes a new page).
    :param folder: the cache folder the pages are kept in.
    :param prefix: the program's variables (``CHATCLI_``): their values decide the page.
    :param more_files: the files the page depends on besides those the run opened (each
        plugin's entry module), asked only when a page is kept.
    :param write: writes a page file atomically and privately: ``write(path, data)``.
    """

    def __init__(self, name: str, version: str, folder: str, prefix: str,
                 more_files: Callable[[], Iterable[str]],
                 write: Callable[[str, bytes], None]) -> None:
        self.format = f"{name}-help 1"
        self.version, self.folder, self.width, self.prefix = version, folder, help_width(), prefix
        self.more_files, self.write = more_files, write

    def serve(self, flag: str, run: Callable[[], int]) -> int:
        """Print the help page asked for with ``flag``: the kept one when it is still true,
        else ``run()``'s (kept). Returns the exit code."""
        key = self.key(flag)
        if key is None:  # no stdout, or not UTF-8: the program's own handling, uncached
            return run()
        path = self.page_file(flag)
        text = self.read(path, key)
        if text is not None:
            try:
                sys.stdout.write(text)
                sys.stdout.flush()
                return 0
            except (OSError, ValueError):  # a closed or full stdout: the program says so
                pass
        return self._make(path, key, run)

    def key(self, flag: str) -> str | None:
        """What decides the page besides the files it was made from (None: not cached)."""
        stream = sys.stdout
        encoding = str(getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if stream is None or encoding not in ("utf8", "utf_8"):
            return None
        try:  # the C module hashlib wraps: importing hashlib costs a fifth of starting Python
            from _blake2 import blake2b
        except ImportError:  # pragma: no cover - an interpreter without it
            from hashlib import blake2b

        def digest(value: str) -> str:  # a variable may hold a secret: only its digest is kept
            return blake2b(value.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

        parts = [self.format, flag, sys.executable, sys.version, self.version,
                 f"width {self.width}", f"stdout {encoding} {getattr(stream, 'errors', None)}",
                 *sorted(f"{name}={digest(value)}" for name, value in os.environ.items()
                         if name.startswith(self.prefix) or name in _HELP_VARIABLES),
                 *(f"path {entry}" for entry in sys.path)]
        return "\n".join(parts).replace("\0", "\\0")

    def page_file(self, flag: str) -> str:
        """One file per interpreter, flag, width and language variable (the first of
        ``CHATCLI_LANG``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` set): runs that differ in anything
        else (another variable, ``sys.path``) replace each other's copy rather than pile up."""
        language = next((os.environ[name].split(".")[0] for name in (
            "CHATCLI_LANG", "LC_ALL", "LC_MESSAGES", "LANG") if os.environ.get(name)), "")
        data = f"{sys.executable}\n{flag}\n{self.width}\n{language}".encode(
            "utf-8", "surrogateescape")
        digest = (len(data) * 65_537 + sum(data) * 31 + sum(data[::7])) % 2**32
        return os.path.join(self.folder, f"help-{digest:08x}.txt")

    @staticmethod
    def read(path: str, key: str) -> str | None:
        """The page kept in ``path`` if it was made under ``key`` and no file it used changed.

        The file is ``key``, NUL, the used files as ``state NUL path`` pairs, three NULs, the
        page's length, NUL, the page.
        """
        try:
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
                data = handle.read()
        except (OSError, ValueError):
            return None
        head, _, rest = data.partition("\0")
        listing, found, rest = rest.partition("\0\0\0")
        size, _, text = rest.partition("\0")
        if head != key or not found or size != str(len(text)) or "\x1b" in text:
            return None
        fields = listing.split("\0")
        if len(fields) % 2:
            return None
        for index in range(0, len(fields), 2):
            if _state(fields[index + 1]) != fields[index]:
                return None
        return text

    def _make(self, path: str, key: str, run: Callable[[], int]) -> int:
        """Print the page through ``run`` and keep it in ``path`` with the files the run used."""
        import time

        used: set[str] = set()
        recording = [True]

        def note(event: str, args: tuple[Any, ...]) -> None:
            if recording[0] and event in ("open", "os.listdir", "os.scandir") and args:
                name = args[0] if args[0] is not None else "."
                if isinstance(name, str | bytes | os.PathLike):
                    used.add(os.path.abspath(os.fsdecode(name)))

        sys.addaudithook(note)  # (hooks stay for the process, which ends after the page)
        start = time.time_ns()
        out, err = _Tee(sys.stdout), _Tee(sys.stderr)
        sys.stdout, sys.stderr = out, err
        try:
            code = run()
        finally:
            sys.stdout, sys.stderr = out.stream, err.stream
            recording[0] = False
        if code == 0 and not any(err.parts):
            self.keep(path, key, "".join(out.parts), used, start - _SETTLED_NS)
        return code

    def keep(self, path: str, key: str, text: str, used: set[str], settled: int) -> None:
        """Write the page and what it was made from; nothing when a file changed after
        ``settled`` (it may have changed while the page was made), the page holds a NUL or a
        terminal escape, or the cache cannot be written."""
        if not text or "\0" in text or "\x1b" in text:
            return
        # caches (this one, and others under the XDG cache folder) are rebuilt from the rest
        caches = tuple(os.path.join(os.path.abspath(os.path.expanduser(folder)), "")
                       for folder in (self.folder, os.environ.get("XDG_CACHE_HOME") or "~/.cache"))
        files = {name for name in used if not name.startswith(caches) and not name.endswith(".pyc")}
        files.update(os.path.abspath(entry or ".") for entry in sys.path)
        files.update(self.more_files())
        files.update(file for module in list(sys.modules.values())
                     if isinstance(file := getattr(module, "__file__", None), str))
        listing = []
        for name in sorted(files):
            if "\0" in name:
                continue
            state = _state(name)
            if state != "-" and int(state.split()[0]) >= settled:
                return
            listing += [state, name]
        import contextlib

        with contextlib.suppress(OSError):  # a read-only home still works, just uncached
            self.write(path, f"{key}\0{chr(0).join(listing)}\0\0\0{len(text)}\0{text}"
                       .encode("utf-8", "surrogateescape"))


def _state(path: str) -> str:
    """What tells a file (or folder) changed: modification time, size and inode."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return "-"
    return f"{found.st_mtime_ns} {found.st_size} {found.st_ino}"


class _Tee:
    """A text stream that passes everything on and keeps what was written."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        written: int = self.stream.write(text)  # (bytes raise here, as on the real stream)
        self.parts.append(text)
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)
