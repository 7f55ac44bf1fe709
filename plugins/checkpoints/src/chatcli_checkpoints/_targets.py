"""Which files a write tool's call is about to touch, read from its arguments.

The coder tools name their files in a ``path`` argument (``write``, ``edit``), in
``edits[].path`` (``multiedit``) or inside a patch (``apply_patch``: a unified diff's
``--- a/x`` / ``+++ b/x`` lines, git's ``diff --git``/``rename`` lines, or the
``*** Update File: x`` / ``*** Add File:`` / ``*** Delete File:`` / ``*** Move to:`` lines of the
``*** Begin Patch`` format). Any tool is read the same way: every argument whose name says it is a
path, at any depth, and every text argument that holds a patch.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["patch_paths", "touched_paths"]

#: Patterns compiled (by ``re``'s cache) at the first tool call, not when a session starts.
_PATH_KEYS = r"(^|_)(path|paths|file|files|filename|filepath|dest|destination|target)$"
_PATCH_MARKERS = ("\n+++ ", "*** Begin Patch", "*** Update File:", "*** Add File:",
                  "*** Delete File:", "diff --git ")
_ENVELOPE = r"^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$"
_GIT_LINE = r"^(?:rename|copy) (?:from|to) (.+)$"
_MAX_PATH = 4096


def _unified_name(rest: str) -> str | None:
    """The file of a ``---``/``+++`` line (after the marker): no timestamp, no /dev/null."""
    name = rest.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) > 1:
        name = name[1:-1]
    if not name or name == "/dev/null":
        return None
    return name


def _with_prefixes(name: str) -> list[str]:
    """``a/x`` may be the file ``x`` (``-p1``) or really ``a/x``: keep both."""
    if name[:2] in ("a/", "b/") and len(name) > 2:
        return [name[2:], name]
    return [name]


def patch_paths(text: str) -> list[str]:
    """Every file a patch names, in order, without duplicates."""
    found: list[str] = []
    for line in text.splitlines():
        match = re.match(_ENVELOPE, line)
        if match:
            found.append((match.group(1) or match.group(2)).strip())
            continue
        if line.startswith(("--- ", "+++ ")):
            name = _unified_name(line[4:])
            if name is not None:
                found.extend(_with_prefixes(name))
            continue
        if line.startswith("diff --git "):
            pieces = line[len("diff --git "):].split(" ")
            if len(pieces) == 2:
                for piece in pieces:
                    found.extend(_with_prefixes(piece))
            continue
        match = re.match(_GIT_LINE, line)
        if match:
            found.append(match.group(1).strip())
    return list(dict.fromkeys(p for p in found if p))


def _strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, key)


def _looks_like_path(text: str) -> bool:
    return 0 < len(text) <= _MAX_PATH and "\n" not in text and "\0" not in text


def touched_paths(arguments: dict[str, Any]) -> list[str]:
    """The paths (as the model wrote them) that a call with ``arguments`` may write."""
    found: list[str] = []
    for key, text in _strings(arguments):
        if re.search(_PATH_KEYS, key, re.IGNORECASE) and _looks_like_path(text):
            found.append(text.strip())
        elif any(marker in text for marker in _PATCH_MARKERS):
            found.extend(patch_paths(text))
    return list(dict.fromkeys(p for p in found if p))
