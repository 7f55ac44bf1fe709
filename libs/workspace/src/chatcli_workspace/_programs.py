"""What a project's control file would run or reach, in lines a person can read before trusting
it: each table of a JSON or TOML file with a ``command`` (and its ``args``) or a ``url`` — an MCP
server of ``.mcp.json``, a hook of ``.claude/settings.json`` or ``.chatcli/config.toml`` — named by
where it is. Generic on purpose: it knows no plugin's format, so a file a plugin names as a
control file shows what it runs whatever its layout. Text from someone else's repository never
reaches the terminal with its control characters. (The trust question of the chat and
``chatcli trust`` show these lines.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from chatcli import translation

__all__ = ["MAX_LINE", "MAX_PROGRAMS", "control_file_programs", "printable"]
_, ngettext = translation(__name__)

#: Programs shown per file, at most (then "… and N more").
MAX_PROGRAMS = 6
#: Characters of one program's line (indented, it still fits a 132-column terminal).
MAX_LINE = 120


def control_file_programs(path: Path | str) -> list[str]:
    """What a JSON or TOML control file would run or reach: each table with a ``command``
    (its ``args`` too) or a ``url``, named by where it is (``mcpServers.x``,
    ``hooks.PreToolUse``); at most :data:`MAX_PROGRAMS` lines."""
    path = Path(path)
    try:
        raw = path.read_bytes()
        if path.suffix == ".json":
            data = json.loads(raw)
        elif path.suffix == ".toml":
            import tomllib  # (here: every run imports this module, few read a TOML file)

            data = tomllib.loads(raw.decode("utf-8"))
        else:
            return []
    except (OSError, ValueError, RecursionError):  # (nesting deep enough to overflow readers)
        return []
    found: list[str] = []
    _walk(data, [], found)
    if len(found) > MAX_PROGRAMS:
        found = [*found[:MAX_PROGRAMS], _("… and {count} more").format(
            count=len(found) - MAX_PROGRAMS)]
    return found


def _walk(node: Any, where: list[str], found: list[str], depth: int = 0) -> None:
    if depth > 12:
        return
    if isinstance(node, dict):
        command, url = node.get("command"), node.get("url")
        # (Claude Code nests a hook's command in hooks.EVENT[i].hooks[j]: named hooks.EVENT)
        kept = [part for part in where if not part.isdigit()]
        label = ".".join(part for index, part in enumerate(kept)
                         if part != "hooks" or index == 0) or "(top)"
        if isinstance(command, str) and command.strip():
            args = node.get("args")
            words = [str(a) for a in args] if isinstance(args, list) else []
            found.append(_line(_("runs:"), " ".join([command, *_quoted(words)]), label))
        elif isinstance(url, str) and url.strip():
            found.append(_line(_("connects to:"), url, label))
        for key, value in node.items():
            if isinstance(value, dict | list):
                _walk(value, [*where, str(key)], found, depth + 1)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            _walk(item, [*where, str(index)], found, depth + 1)


def _quoted(words: list[str]) -> list[str]:
    """A program's arguments as a shell would need them (the command is a shell line)."""
    import shlex

    return [shlex.quote(word) for word in words]


def _line(verb: str, what: str, label: str) -> str:
    """``verb what (label)`` in at most :data:`MAX_LINE` printable characters: a long command
    or address is cut short (marked "…") before the label, so where it is stays readable."""
    verb, what, label = printable(verb), printable(what), printable(label)
    tail = f" ({label})" if len(label) <= MAX_LINE // 3 else f" ({label[: MAX_LINE // 3 - 1]}…)"
    room = MAX_LINE - len(verb) - 1 - len(tail)
    if len(what) > room:
        what = what[: room - 1] + "…"
    return f"{verb} {what}{tail}"


def printable(text: str) -> str:
    """``text`` without control characters (a file name or command from someone else's
    repository must not drive the terminal)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)
