"""What one record says: the pieces taken from a tool call, its result and a model's answer.

Everything textual that comes from a call (a command, the arguments, a reason, a path) goes
through :func:`chatcli.redact` first and is then cut to the configured excerpt, so no key and no
file content beyond the excerpt reaches the log. Redacting before cutting matters: a key cut in
half would no longer be recognised.
"""

from __future__ import annotations

import functools
import json
import re
from datetime import UTC, datetime
from typing import Any

__all__ = ["KINDS", "changed_paths", "command_of", "excerpt", "exit_status", "now",
           "shown_arguments"]

#: The kinds of record.
KINDS = ("session", "tool_call", "command", "file_change", "model_call")

#: The first lines of a shell tool's result: "exit code 0 (1.2 s, bwrap)", "tests failed,
#: exit code 1 (…)", "timed out after 30 s…", "killed by SIGKILL after…", "stopped by the user…"
#: — and the file names of a unified diff or of the "*** Begin Patch" format. Compiled when a
#: tool call first needs them (a run without tool calls compiles none).
_PATTERNS = {
    "exit": r"^(?:tests (?:passed|failed), )?exit code (-?\d+)\b",
    "timed_out": r"^timed out after\b",
    "killed": r"^killed by (\S+)",
    "stopped": r"^stopped by the user\b",
    "patch_file": r"^(?:\*\*\* (?P<verb>Add|Update|Delete) File: (?P<path>.+)"
                  r"|\+\+\+ (?:b/)?(?P<new>\S.*)"
                  r"|--- (?:a/)?(?P<old>\S.*)"
                  r"|\*\*\* Move to: (?P<moved>.+))$",
}


@functools.cache
def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(_PATTERNS[name], re.MULTILINE)


#: the lines of a result looked at for the exit status (notes come before the status line)
_HEAD = 6


def now() -> str:
    """The time now, UTC, ISO 8601 with milliseconds and ``Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def excerpt(text: str, limit: int) -> str:
    """``text`` with keys redacted, cut to ``limit`` characters (``…`` marks a cut)."""
    from chatcli import redact

    text = redact(text)
    if len(text) <= limit:
        return text
    return text[: max(limit - 1, 0)] + "…" if limit else ""


def shown_arguments(arguments: dict[str, Any], raw: str | None, limit: int) -> str:
    """A call's arguments as compact JSON (or the raw text the model sent when it was not
    JSON), redacted and cut to ``limit``."""
    if raw is not None and not arguments:
        return excerpt(raw, limit)
    try:
        text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"), default=str)
    except ValueError:  # (a circular structure cannot come from JSON; be safe anyway)
        text = repr(arguments)
    return excerpt(text, limit)


def command_of(arguments: dict[str, Any], subject: str | None) -> str | None:
    """The command line a shell tool's call runs: its ``subject`` argument when that is the
    ``command`` (the coder's exec and test tools), else a ``command`` argument."""
    for key in (subject, "command", "cmd"):
        if key in ("command", "cmd"):
            value = arguments.get(key)
            if isinstance(value, str):
                return value
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                return " ".join(value)
    return None


def exit_status(content: str, is_error: bool) -> tuple[int | None, str]:
    """The exit code of a shell tool's run from its result, and how the run ended: ``exit``
    (with the code), ``timeout``, ``killed`` (the signal's name after a colon), ``stopped``
    (the user stopped it), ``error`` (the tool failed before running it), ``unknown``."""
    head = "\n".join(content.splitlines()[:_HEAD])
    found = _pattern("exit").search(head)
    if found is not None:
        return int(found.group(1)), "exit"
    if _pattern("timed_out").search(head):
        return None, "timeout"
    killed = _pattern("killed").search(head)
    if killed is not None:
        return None, f"killed:{killed.group(1)}"
    if _pattern("stopped").search(head):
        return None, "stopped"
    return None, "error" if is_error else "unknown"


def changed_paths(arguments: dict[str, Any], tool: str = "") -> list[tuple[str, str]]:
    """The files a file-changing call names, with what it does to each: ``edit`` or ``write``
    (a ``path`` argument: ``edit`` for a tool whose name says so), ``edit`` (each of ``edits``'
    paths), and for a ``patch`` the files it adds,
    updates, deletes or moves (``add``, ``update``, ``delete``, ``move``)."""
    found: list[tuple[str, str]] = []
    path = arguments.get("path") or arguments.get("file_path")
    if isinstance(path, str) and path:
        found.append((path, "edit" if "edit" in tool.lower() else "write"))
    edits = arguments.get("edits")
    if isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, dict) and isinstance(edit.get("path"), str):
                found.append((edit["path"], "edit"))
    patch = arguments.get("patch") or arguments.get("input")
    if isinstance(patch, str):
        for match in _pattern("patch_file").finditer(patch):
            if match.group("verb"):
                found.append((match.group("path").strip(), match.group("verb").lower()))
            elif match.group("moved"):
                found.append((match.group("moved").strip(), "move"))
            else:
                name = (match.group("new") or match.group("old") or "").strip()
                name = name.split("\t", 1)[0]
                if name and name != "/dev/null":
                    found.append((name, "update"))
    unique: dict[str, str] = {}
    for name, action in found:
        unique.setdefault(name, action)
    return list(unique.items())
