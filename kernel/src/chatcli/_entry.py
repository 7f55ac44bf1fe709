"""The ``chatcli`` console script. ``--version`` answers here, before click or any plugin loads;
so does ``--help`` (or ``-h``, alone on the line) when its page is cached.

The root help page is click's, once every installed plugin has added its commands and options:
about four times the start of Python. The first ``chatcli --help`` prints it through click as
always and keeps a copy (``help-*.txt`` in chatcli's cache folder, mode 0600, written
atomically) with what it was made from:

- the interpreter and its version, ``sys.path``, chatcli's version, the ``CHATCLI_*``
  variables, ``COLUMNS`` and the locale variables (a digest of each value: one may hold a
  secret), the width the page is wrapped at and stdout's encoding;
- every file and folder the run used, with its modification time, size and inode: the modules
  it imported (the kernel's, click's, the plugins'), each installed plugin's entry module, the
  files it opened and the folders it listed, and each ``sys.path`` entry (installing, upgrading
  or removing a distribution changes one).

A later ``--help`` whose interpreter, path, variables and width are the same stats those files
and prints the copy when none changed, importing neither click nor any plugin; otherwise it runs
click again and replaces the copy. A run that wrote anything on stderr (a plugin that failed to
load), ended with another exit code, or used a file changed while it ran (a distribution being
installed) is not kept.
"""

from __future__ import annotations

import os
import sys

from chatcli._startup import help_width, hold_collector

TYPE_CHECKING = False  # not `from typing import ...`: typing costs as much as starting Python
if TYPE_CHECKING:
    from typing import Any

_HELP_FORMAT = "chatcli-help 1"
#: Variables besides ``CHATCLI_*`` that the page depends on: click's width, gettext's language.
_HELP_VARIABLES = ("COLUMNS", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
#: A file changed this recently before the run may have changed while it ran: not kept.
_SETTLED_NS = 1_000_000_000


def main() -> int:
    """Run chatcli; returns the process exit code."""
    args = sys.argv[1:]
    if args == ["--version"] or args == ["-V"]:
        from chatcli import __version__

        print(f"chatcli {__version__}")
        return 0
    if args == ["--help"] or args == ["-h"]:
        return _help(args[0])
    hold_collector()  # until a command starts (chatcli._startup.start_command)
    from chatcli._cli import run

    return run()


def _help(flag: str) -> int:
    """``chatcli --help``: the cached page when it is still true, else click's (kept)."""
    key = _help_key(flag)
    if key is None:  # no stdout, or not UTF-8: click's own handling, uncached
        from chatcli._cli import run

        return run()
    path = _help_file(flag)
    text = _cached_help(path, key)
    if text is not None:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
            return 0
        except (OSError, ValueError):  # a closed or full stdout: click's handling says so
            pass
    return _make_help(path, key)


def _help_key(flag: str) -> str | None:
    """What decides the page besides the files it was made from (None: not cached)."""
    stream = sys.stdout
    encoding = str(getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if stream is None or encoding not in ("utf8", "utf_8"):
        return None
    from chatcli import __version__

    try:  # the C module hashlib wraps: importing hashlib costs a fifth of starting Python
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter without it
        from hashlib import blake2b

    def digest(value: str) -> str:  # a variable may hold a secret: only its digest is kept
        return blake2b(value.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()

    parts = [_HELP_FORMAT, flag, sys.executable, sys.version, __version__,
             f"width {help_width()}", f"stdout {encoding} {getattr(stream, 'errors', None)}",
             *sorted(f"{name}={digest(value)}" for name, value in os.environ.items()
                     if name.startswith("CHATCLI_") or name in _HELP_VARIABLES),
             *(f"path {entry}" for entry in sys.path)]
    return "\n".join(parts).replace("\0", "\\0")


def _help_file(flag: str) -> str:
    """One file per interpreter, flag and width: runs that differ in anything else (a
    variable, ``sys.path``) replace each other's copy rather than pile up."""
    from chatcli._paths import directory

    data = f"{sys.executable}\n{flag}\n{help_width()}".encode("utf-8", "surrogateescape")
    digest = (len(data) * 65_537 + sum(data) * 31 + sum(data[::7])) % 2**32
    return os.path.join(directory("cache"), f"help-{digest:08x}.txt")


def _state(path: str) -> str:
    """What tells a file (or folder) changed: modification time, size and inode."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return "-"
    return f"{found.st_mtime_ns} {found.st_size} {found.st_ino}"


def _cached_help(path: str, key: str) -> str | None:
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


def _make_help(path: str, key: str) -> int:
    """Print the page through click and keep it in ``path`` with the files the run used."""
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
    from chatcli._cli import run

    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        code = run()
    finally:
        sys.stdout, sys.stderr = out.stream, err.stream
        recording[0] = False
    if code == 0 and not any(err.parts):
        _keep_help(path, key, "".join(out.parts), used, start - _SETTLED_NS)
    return code


def _keep_help(path: str, key: str, text: str, used: set[str], settled: int) -> None:
    """Write the page and what it was made from; nothing when a file changed after
    ``settled`` (it may have changed while the page was made), the page holds a NUL or a
    terminal escape, or the cache cannot be written."""
    if not text or "\0" in text or "\x1b" in text:
        return
    import contextlib
    from pathlib import Path

    from chatcli._discovery import find_entry_points
    from chatcli._paths import atomic_write, directory

    # caches (chatcli's, stevedore's under the XDG cache folder) are rebuilt from the rest
    caches = tuple(os.path.join(os.path.abspath(os.path.expanduser(folder)), "") for folder in (
        directory("cache"), os.environ.get("XDG_CACHE_HOME") or "~/.cache"))
    files = {name for name in used if not name.startswith(caches) and not name.endswith(".pyc")}
    files.update(os.path.abspath(entry or ".") for entry in sys.path)
    files.update(ep.file for ep in find_entry_points() if ep.file)
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
    with contextlib.suppress(OSError):  # a read-only home still works, just uncached
        atomic_write(Path(path), f"{key}\0{chr(0).join(listing)}\0\0\0{len(text)}\0{text}"
                     .encode("utf-8", "surrogateescape"), mode=0o600)
