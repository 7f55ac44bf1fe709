"""What every tool shares: errors, settings, confined paths, read tracking, atomic writes."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import StashKey
from chatcli_workspace import is_credential, resolve

from chatcli_coder._settings import (  # re-exported
    CoderSettings,
    SandboxMode,
    coder_settings,
    parse_coder_settings,
)

if TYPE_CHECKING:
    from chatcli import FileAccess, ToolContext

__all__ = [
    "CoderSettings",
    "SandboxMode",
    "ToolError",
    "atomic_write",
    "coder_settings",
    "display",
    "one_line",
    "parse_coder_settings",
    "resolve_path",
]


# ------------------------------------------------------------------------------ errors


class ToolError(Exception):
    """A failure the model can act on. The engine sends ``<tool> failed: <Class>: <message>``,
    the first line only, so messages are one line (quoted text is escaped by :func:`one_line`)."""


class NoSuchFile(ToolError):
    """The path names nothing (the message lists the closest names)."""


class NotAFile(ToolError):
    """A folder (or a device) where a file was expected."""


class NotReadYet(ToolError):
    """An edit of a file the model has not read in this conversation."""


class ChangedSinceRead(ToolError):
    """An edit of a file that changed on disk since the model read it."""


class BinaryFile(ToolError):
    """A file that is not text."""


class FileTooLarge(ToolError):
    """A file too large for the operation."""


class NoMatch(ToolError):
    """``old`` text that is nowhere in the file."""


class AmbiguousMatch(ToolError):
    """``old`` text found more than once."""


class PatchError(ToolError):
    """A patch that cannot be parsed or applied."""


class SandboxUnavailable(ToolError):
    """``sandbox = "bwrap"`` but bubblewrap cannot run."""


_LINE_BREAKS = {"\x85": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def one_line(text: str, limit: int = 1_500) -> str:
    """``text`` quoted on one line (JSON escapes: ``\\n``, ``\\t``, ``\\"``), cut to ``limit``."""
    quoted = json.dumps(text if len(text) <= limit else text[:limit] + "…", ensure_ascii=False)
    for char, escape in _LINE_BREAKS.items():
        quoted = quoted.replace(char, escape)
    return quoted


# ------------------------------------------------------------------------------ paths


def allowed_dirs(context: ToolContext) -> list[Path]:
    """The folders outside the workspace the user allowed (``allowed_dirs``)."""
    return [Path(os.path.expanduser(d)) for d in context.settings.allowed_dirs]


def resolve_path(path: str, context: ToolContext) -> Path:
    """``path`` resolved and confined to the workspace and the allowed folders."""
    if not path.strip():
        raise ToolError(
            "the path is empty; give a path relative to the workspace root")  # untranslated
    # OutsideWorkspace (a ValueError) reaches the model as it is: it names the workspace
    return resolve(path, context.workspace, allowed=allowed_dirs(context))


def display(path: Path, context: ToolContext) -> str:
    """``path`` as the model should write it: relative to the workspace when inside it."""
    root = Path(os.path.realpath(context.workspace))
    try:
        relative = path.relative_to(root)
    except ValueError:
        return str(path)
    return relative.as_posix() or "."


def missing(path: str, target: Path, context: ToolContext, then: str = "") -> NoSuchFile:
    """The error for a path that names nothing, with the closest existing names (``then``:
    what to say after the path)."""
    hints: list[str] = []
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if parent.is_dir():
        try:
            names = [entry.name for entry in os.scandir(parent)][:5_000]
        except OSError:
            names = []
        wanted = target.name if parent == target.parent else target.relative_to(parent).parts[0]
        import difflib  # only when a path is missing

        for name in difflib.get_close_matches(wanted, names, n=3, cutoff=0.6):
            hints.append(display(parent / name, context))
    if not hints:
        hints = _same_name_elsewhere(target.name, context)
    where = "" if parent == target.parent else f" (no folder {display(target.parent, context)})"
    hint = f"; did you mean {', '.join(hints)}?" if hints else (
        "; list files with the glob or tree tool")
    return NoSuchFile(f"no file or folder '{path}'{where}{then}{hint}")


def _same_name_elsewhere(name: str, context: ToolContext, limit: int = 20_000) -> list[str]:
    """Up to three files of the workspace named ``name`` (a bounded walk)."""
    found: list[str] = []
    seen = 0
    root = Path(os.path.realpath(context.workspace))
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _HEAVY_FOLDERS]
        seen += len(files) + len(dirs)
        if name in files:
            found.append(display(Path(folder) / name, context))
            if len(found) == 3:
                break
        if seen > limit:
            break
    return found


_HEAVY_FOLDERS = {"node_modules", "__pycache__", "target", "dist", "build", "venv"}


def credential(path: Path) -> bool:
    """Whether ``path`` looks like a file of secrets (listings skip them by default)."""
    return is_credential(path)


# ------------------------------------------------------------------------------ reading bytes

#: Edits load the whole file; larger files are left to shell tools.
EDIT_MAX_BYTES = 64 * 1024 * 1024
#: Reads past this size are stamped by size and time only (not hashed).
HASH_MAX_BYTES = 64 * 1024 * 1024


def looks_binary(sample: bytes) -> bool:
    """Whether the first bytes of a file say it is not text (a NUL byte, or not decodable)."""
    if b"\x00" in sample:
        return True
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as err:
        # a multi-byte character cut at the end of the sample is fine
        return err.start < len(sample) - 4
    return False


_MAGIC = ((b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
          (b"GIF8", "a GIF image"), (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a zip archive"),
          (b"\x7fELF", "an ELF executable"), (b"\x1f\x8b", "a gzip archive"),
          (b"SQLite format 3", "an SQLite database"))


def binary_kind(sample: bytes) -> str:
    """What a binary file seems to be."""
    for magic, kind in _MAGIC:
        if sample.startswith(magic):
            return kind
    return "binary data"


def read_text_for_edit(target: Path, shown: str, files: FileAccess) -> str:
    """The whole text of an existing file about to be edited, through ``files`` (an editor's
    unsaved buffer); the size and binary checks are the disk's."""
    if not target.exists():
        raise NoSuchFile(f"no file '{shown}'; create it with the write tool")
    if not target.is_file():
        raise NotAFile(f"'{shown}' is a folder, not a file")
    size = target.stat().st_size
    if size > EDIT_MAX_BYTES:
        raise FileTooLarge(f"'{shown}' has {size:,} bytes, more than the "
                           f"{EDIT_MAX_BYTES:,} this tool edits; use exec (sed, a script)")
    with open(target, "rb") as handle:
        sample = handle.read(8192)
    if b"\x00" in sample:
        raise BinaryFile(f"'{shown}' is {binary_kind(sample[:64])}, not text; it cannot be "
                         "edited")
    try:
        return files.read_text(target)
    except UnicodeDecodeError as err:
        raise BinaryFile(f"'{shown}' is not UTF-8 text (byte {err.start:,}); it cannot be "
                         "edited with this tool") from None


# ------------------------------------------------------------------------------ read tracking


@dataclass(frozen=True)
class Stamp:
    """What a file was when the model last saw it."""

    size: int
    mtime_ns: int
    digest: str | None


class _Seen:
    """The files one conversation has read, and what they were then."""

    def __init__(self) -> None:
        self.files: dict[Path, Stamp] = {}


#: The read book of a conversation, in its stash: it lives as long as that conversation object
#: (a resumed conversation is a new object, so it starts with nothing read).
SEEN = StashKey[_Seen]()
#: The read book of calls made outside any conversation.
_unattached = _Seen()
_seen_lock = threading.Lock()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _book(context: ToolContext) -> _Seen:
    """The read book of the call's conversation (a new conversation object, as a resumed one
    is, starts with nothing read, even with the id of an earlier one)."""
    conversation = context.conversation
    if conversation is None:
        return _unattached
    return conversation.stash.setdefault(SEEN, _Seen())


def stamp_of(target: Path, data: bytes | None = None) -> Stamp:
    """The stamp of ``target`` now (``data``: its content, when already in hand)."""
    info = target.stat()
    if data is None and info.st_size <= HASH_MAX_BYTES:
        data = target.read_bytes()
    digest = _digest(data) if data is not None else None
    return Stamp(info.st_size, info.st_mtime_ns, digest)


def remember(context: ToolContext, target: Path, data: bytes | None = None) -> None:
    """Record that the model has seen ``target`` as it is now."""
    stamp = stamp_of(target, data)
    with _seen_lock:
        _book(context).files[target] = stamp


def forget(context: ToolContext, target: Path) -> None:
    """The model no longer knows ``target`` (it was deleted or moved)."""
    with _seen_lock:
        _book(context).files.pop(target, None)


def check_read(context: ToolContext, target: Path, shown: str, data: bytes) -> None:
    """Refuse to change ``target`` unless the model read it and it is unchanged since:
    ``data`` (its content now, through ``context.files``) is what was read (size and time for a
    file too large to hash)."""
    with _seen_lock:
        stamp = _book(context).files.get(target)
    if stamp is None:
        raise NotReadYet(
            f"'{shown}' has not been read in this conversation (a resumed conversation starts "
            "with nothing read): read it first with the read tool, then edit it")
    if stamp.digest is not None:  # the text as read (an editor's buffer may change alone)
        if stamp.digest == _digest(data):
            return  # touched, not changed
    else:  # a file too large to hash
        info = target.stat()
        if (info.st_size, info.st_mtime_ns) == (stamp.size, stamp.mtime_ns):
            return
    raise ChangedSinceRead(
        f"'{shown}' changed on disk since you read it (by the user, a command or another "
        "tool): read it again first, then edit the current text")


# ------------------------------------------------------------------------------ writing


def atomic_write(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` in one step (a temporary file beside it, then a rename);
    the parent folders are created; an existing file keeps its permissions."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = target.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
