"""Extracting paths from tool arguments: which files a tool call names.

:func:`tool_kind` says whether a tool reads files, edits them, runs shell commands or does
something else; :func:`tool_paths` collects the paths its arguments name (under the usual keys,
at any depth, inside patches, before the first glob of a search pattern); :func:`patch_paths`
reads the files a unified diff or ``*** Begin Patch`` touches.
"""

from __future__ import annotations

import re
from typing import Any

from chatcli import ToolSpec

from chatcli_agent.permissions.rules import EDIT_TOOLS, READ_TOOLS

_PATH_KEYS = ("path", "file_path", "filepath", "file", "filename", "paths", "files", "target",
              "target_path", "destination", "dest", "source", "src", "dir", "directory", "root",
              "notebook_path", "old_path", "new_path", "cwd", "workdir")


_PATCH_KEYS = ("patch", "diff", "input", "patch_text")


CWD_KEYS = ("cwd", "workdir", "working_dir", "directory", "dir")


HARMLESS = re.compile(r"^/dev/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|fd/\d+|"
                      r"pts/\d+)$")


def tool_kind(tool: ToolSpec, arguments: dict[str, Any]) -> str:
    name = tool.name
    if name == "exec" or tool.subject == "command" or (
            tool.subject is None and name in ("bash", "shell", "sh", "test") and isinstance(
                arguments.get("command"), str)):
        return "shell"
    if name in READ_TOOLS:
        return "read"
    if name in EDIT_TOOLS:
        return "edit"
    return "other"


def tool_subject(tool: ToolSpec, arguments: dict[str, Any]) -> str | None:
    if tool.subject is None:
        return None
    value = arguments.get(tool.subject)
    if isinstance(value, str):
        return " ".join(value.split())
    return None if value is None else str(value)


def _collect(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 5:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list | tuple):
        for item in value[:200]:
            _collect(item, out, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key in _PATH_KEYS:
                _collect(item, out, depth + 1)
            elif isinstance(item, list | dict):
                _walk_dicts(item, out, depth + 1)


def _walk_dicts(value: Any, out: list[str], depth: int) -> None:
    if depth > 5:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _PATH_KEYS:
                _collect(item, out, depth + 1)
            elif isinstance(item, list | dict):
                _walk_dicts(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:200]:
            _walk_dicts(item, out, depth + 1)


_PATCH_LINE = re.compile(
    r"^(?:\*\*\* (?:Add|Update|Delete) File: (?P<a>.+)|\*\*\* Move to: (?P<b>.+)|"
    r"(?:---|\+\+\+) (?P<c>\S.*?)(?:\t.*)?|diff --git (?P<d>\S+) (?P<e>\S+)|"
    r"rename (?:from|to) (?P<f>.+))$", re.M)


def patch_paths(text: str) -> list[str]:
    """The files a patch (unified diff or ``*** Begin Patch``) touches."""
    out: list[str] = []
    for match in _PATCH_LINE.finditer(text):
        for group in ("a", "b", "c", "d", "e", "f"):
            value = match.group(group)
            if not value:
                continue
            value = value.strip()
            if value == "/dev/null":
                continue
            if group in ("c", "d", "e") and re.match(r"^[ab]/", value):
                value = value[2:]
            out.append(value)
    return out


def tool_paths(tool: ToolSpec, arguments: dict[str, Any]) -> list[str]:
    """The paths a file tool's arguments name."""
    out: list[str] = []
    if tool.subject and tool.subject in arguments:
        _collect(arguments[tool.subject], out)
    _walk_dicts(arguments, out, 0)
    for key in _PATCH_KEYS:
        value = arguments.get(key)
        if isinstance(value, str):
            out.extend(patch_paths(value))
    if tool.name in ("glob", "search"):
        for key in ("pattern", "glob", "include"):
            value = arguments.get(key)
            if isinstance(value, str) and (value.startswith(("/", "~")) or ".." in value):
                fixed = []
                for piece in value.split("/"):
                    if any(c in piece for c in "*?[{"):
                        break
                    fixed.append(piece)
                out.append("/".join(fixed) or "/")
    return list(dict.fromkeys(p for p in out if isinstance(p, str) and p.strip()))
