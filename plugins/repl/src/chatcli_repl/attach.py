"""``@path`` references in a message: the files they name travel with it.

``explain @src/app.py`` sends the typed text unchanged, followed by one text part per referenced
file (``<file path="src/app.py">…</file>``); images (png, jpg, gif, webp) become image parts for
providers with vision. A word that starts with ``@`` but names no existing file is left as text
(``@everyone``). A folder, a binary file or a file over :data:`MAX_BYTES` stops the message with a
one-line error instead of sending something the user did not mean.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from chatcli import ImagePart, Message, Role, TextPart, UsageError, translation

__all__ = ["MAX_BYTES", "references", "user_message"]

#: Largest file attached whole (text files; about 64k tokens).
MAX_BYTES = 256 * 1024

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
               ".gif": "image/gif", ".webp": "image/webp"}

_REFERENCE = re.compile(r"(?<!\S)@(\S+)")
_TRAILING = ",.;:!?)]}'\""

_, ngettext = translation(__name__)


def references(text: str, cwd: Path | None = None) -> list[tuple[str, Path]]:
    """The ``@path`` words of ``text`` that name existing files or folders, in order, once each.

    Returns (the path as written, the resolved path). Punctuation right after a path
    (``@a.py,``) is not part of it unless the file name really ends that way.
    """
    base = cwd or Path.cwd()
    found: dict[Path, str] = {}
    for match in _REFERENCE.finditer(text):
        written = match.group(1)
        candidates = [written]
        stripped = written.rstrip(_TRAILING)
        if stripped and stripped != written:
            candidates.append(stripped)
        for candidate in candidates:
            path = Path(candidate).expanduser()
            if not path.is_absolute():
                path = base / path
            if path.exists():
                found.setdefault(path, candidate)
                break
    return [(written, path) for path, written in found.items()]


def _size(count: int) -> str:
    if count >= 1024 * 1024:
        return f"{count / (1024 * 1024):.1f} MB"
    return f"{count / 1024:.0f} KB"


def _attachment(written: str, path: Path) -> Any:
    if path.is_dir():
        raise UsageError(_("@{path} is a folder, not a file").format(path=written),
                         _("reference the files you mean, e.g. @{folder}/NAME").format(
                             folder=written.rstrip("/")))
    media_type = IMAGE_TYPES.get(path.suffix.lower())
    if media_type is not None:
        return ImagePart(source=str(path), media_type=media_type)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise UsageError(_("@{path} is too big to attach ({size}; the limit is {limit})")
                             .format(path=written, size=_size(size), limit=_size(MAX_BYTES)),
                             _("paste the part that matters instead"))
        data = path.read_bytes()
    except OSError as err:
        raise UsageError(_("cannot read @{path}: {reason}").format(path=written,
                                                                   reason=err.strerror),
                         _("check the path and its permissions")) from None
    try:
        if b"\0" in data[:8192]:
            raise UnicodeDecodeError("utf-8", data, 0, 1, "NUL byte")
        content = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(_("@{path} is a binary file").format(path=written),
                         _("attach text files or images (png, jpg, gif, webp)")) from None
    return TextPart(text=f'\n\n<file path="{written}">\n{content.rstrip()}\n</file>')


def user_message(text: str, cwd: Path | None = None) -> Message:
    """The user message for ``text``: the typed text, then the files its ``@path`` words name.

    Raises :class:`~chatcli.UsageError` (one line) for a folder, a binary file or a file
    too big to attach.
    """
    parts: list[Any] = [TextPart(text=text)]
    parts.extend(_attachment(written, path) for written, path in references(text, cwd))
    return Message(role=Role.USER, parts=parts)


def typed_text(message: Message) -> str:
    """What the user typed: the first text part (without the attached files)."""
    for part in message.parts:
        if isinstance(part, TextPart):
            return part.text
    return ""
