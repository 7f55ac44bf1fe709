"""Permission rules in the ``Tool(specifier)`` form: parsing and matching.

``exec`` (a bare tool name) matches every call of that tool; ``exec(npm run test:*)`` matches
commands starting with the words ``npm run test``; ``exec(git log *)`` is a glob over the
command's words; anything else matches the command exactly. Path specifiers are gitignore-style
globs: ``src/**`` and ``./secrets/**`` are relative to the workspace, ``*.env`` (no slash) matches
a name in any folder, ``~/`` is the home folder and ``/`` (or ``//``) starts an absolute path; a
pattern naming a folder covers everything in it. ``edit`` covers write/edit/multiedit/apply_patch,
``read`` covers read/search/glob/tree, ``mcp__server`` every tool of that MCP server. Claude
Code's names work too: ``Bash`` is ``exec``, ``Read``/``Grep``/``Glob``/``LS`` are ``read``,
``Edit``/``Write``/``MultiEdit`` are ``edit``.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from chatcli import translation
from chatcli_workspace import glob_regex

__all__ = [
    "EDIT_TOOLS",
    "READ_TOOLS",
    "Rule",
    "RuleError",
    "command_rule",
    "escape_glob",
    "hidden_pattern",
    "match_command",
    "match_path",
    "parse_rule",
    "path_prefix",
    "path_rule",
    "shown_source",
]

_, ngettext = translation(__name__)


def shown_source(source: str) -> str:
    """Where a rule or the mode came from (``user config``, ``this session``…), as shown to the
    user: in the user's language (a file's path or an option stays as it is)."""
    return {"user config": _("user config"), "project config": _("project config"),
            "saved for this project": _("saved for this project"), "settings": _("settings"),
            "this session": _("this session"), "default": _("default")}.get(source, source)

EDIT_TOOLS = frozenset({"write", "edit", "multiedit", "apply_patch"})
READ_TOOLS = frozenset({"read", "search", "glob", "tree"})

#: Claude Code's tool names, for rules copied from its settings.
_ALIASES = {"Bash": "exec", "Read": "read", "Grep": "read", "Glob": "read", "LS": "read",
            "Edit": "edit", "Write": "edit", "MultiEdit": "edit", "NotebookEdit": "edit"}

#: Compiled (by ``re``'s cache) when a rule is first parsed, not at import.
_TOOL = r"^[A-Za-z0-9_*?-]{1,64}$"


class RuleError(ValueError):
    """A rule that cannot be read (the message says why, in one line)."""


@dataclass(frozen=True)
class Rule:
    """One rule: ``tool`` (a name, or a glob over names), its ``specifier`` (None: every call),
    the ``effect`` (allow, ask, deny) and where it came from (``source``)."""

    text: str
    tool: str
    specifier: str | None
    effect: str = "allow"
    source: str = ""

    def covers(self, tool_name: str) -> bool:
        """Whether the rule is about calls of ``tool_name``."""
        tool = self.tool
        if tool == "edit":
            return tool_name in EDIT_TOOLS or tool_name == "edit"
        if tool == "read":
            return tool_name in READ_TOOLS or tool_name == "read"
        if tool.startswith("mcp__") and tool.count("__") == 1:
            return tool_name == tool or tool_name.startswith(tool + "__")
        if any(c in tool for c in "*?"):
            return fnmatch.fnmatchcase(tool_name, tool)
        return tool_name == tool

    def with_source(self, effect: str, source: str) -> Rule:
        return Rule(self.text, self.tool, self.specifier, effect, source)


def parse_rule(text: str, effect: str = "allow", source: str = "") -> Rule:
    """Read ``Tool`` or ``Tool(specifier)``; raises :class:`RuleError`."""
    if not isinstance(text, str):
        raise RuleError(_("{text!r} is not text").format(text=text))
    stripped = text.strip()
    if not stripped:
        raise RuleError(_("an empty rule"))
    if "(" in stripped:
        if not stripped.endswith(")"):
            raise RuleError(_("'{rule}' opens '(' but does not end with ')'").format(
                rule=stripped))
        name, specifier = stripped.split("(", 1)
        specifier = specifier[:-1].strip()
        if not specifier:
            raise RuleError(_("'{rule}' has an empty specifier; write '{name}' to match every "
                              "call").format(rule=stripped, name=name.strip()))
    else:
        name, specifier = stripped, None
    name = name.strip()
    if not re.match(_TOOL, name):
        raise RuleError(_("'{name}' in '{rule}' is not a tool name").format(name=name,
                                                                          rule=stripped))
    tool = _ALIASES.get(name, name)
    return Rule(stripped, tool, specifier, effect, source)


# ------------------------------------------------------------------------------------ commands


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=False, posix=True)
    except ValueError:
        return text.split()


def normalize_command(text: str) -> str:
    """A command pattern's words joined by single spaces (quotes removed)."""
    return " ".join(_words(text))


def match_command(specifier: str, command: str) -> bool:
    """Whether ``command`` (a simple command's words joined by spaces) matches ``specifier``:
    ``prefix:*`` (those words first), a glob with ``*``, or the exact words."""
    spec = specifier.strip()
    if spec == "*":
        return True
    if spec.endswith(":*"):
        prefix = normalize_command(spec[:-2])
        if not prefix:
            return True
        if any(c in prefix for c in "*?["):
            return fnmatch.fnmatchcase(command, prefix) or fnmatch.fnmatchcase(
                command, prefix + " *")
        return command == prefix or command.startswith(prefix + " ")
    pattern = normalize_command(spec)
    if "*" in pattern:
        return fnmatch.fnmatchcase(command, pattern)
    return command == pattern


def command_rule(tool: str, prefix_words: list[str], exact: bool = False) -> str:
    """The rule allowing commands starting with ``prefix_words`` (``exec(npm test:*)``), or
    exactly them."""
    text = " ".join(shlex.quote(w) if _needs_quote(w) else w for w in prefix_words)
    return f"{tool}({text})" if exact else f"{tool}({text}:*)"


def _needs_quote(word: str) -> bool:
    return word == "" or any(c.isspace() for c in word) or any(c in word for c in "'\"")


# ------------------------------------------------------------------------------------ paths


def escape_glob(text: str) -> str:
    """``text`` with glob characters escaped (``[*]``)."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _anchor(specifier: str, workspace: Path, home: Path) -> tuple[str, bool]:
    """The pattern as an absolute glob, and whether it is anchored (False: a bare name that
    matches in any folder)."""
    spec = specifier.strip()
    if spec.endswith("/") and len(spec) > 1:
        spec = spec.rstrip("/")
    if spec.startswith("//"):
        return "/" + spec.lstrip("/"), True
    if spec == "~" or spec.startswith("~/"):
        return str(home) + spec[1:], True
    if spec.startswith("/"):
        return spec, True
    if spec.startswith("./"):
        rest = spec[2:]
        return (str(workspace) + ("/" + rest if rest else "")), True
    if spec in (".", ""):
        return str(workspace), True
    if "/" in spec:
        return str(workspace) + "/" + spec, True
    return spec, False


def _fixed_part(pattern: str) -> str:
    """The leading part of an absolute glob without glob characters (a folder)."""
    parts = pattern.split("/")
    fixed = []
    for part in parts:
        if any(c in part for c in "*?["):
            break
        fixed.append(part)
    text = "/".join(fixed)
    return text or "/"


def _real_fixed(pattern: str) -> str:
    """The pattern with its fixed leading folder resolved through symbolic links."""
    fixed = _fixed_part(pattern)
    real = _real(fixed)
    return real + pattern[len(fixed):] if real != fixed else pattern


def match_path(specifier: str, path: Path, workspace: Path, home: Path) -> bool:
    """Whether the absolute ``path`` matches the path pattern ``specifier`` (or lies inside a
    folder that does)."""
    pattern, anchored = _anchor(specifier, workspace, home)
    text = str(path)
    if not anchored:
        regex = glob_regex(pattern)
        return any(regex.match(part) for part in Path(text).parts if part != "/")
    candidates = {pattern, _real_fixed(pattern)}
    for candidate in candidates:
        regex = glob_regex(candidate)
        probe = text
        while True:
            if regex.match(probe):
                return True
            parent = os.path.dirname(probe)
            if parent == probe:
                break
            probe = parent
    return False


def path_prefix(specifier: str, workspace: Path, home: Path) -> str | None:
    """The folder a path pattern's matches all lie in (None for a bare name: anywhere)."""
    pattern, anchored = _anchor(specifier, workspace, home)
    if not anchored:
        return None
    return _fixed_part(_real_fixed(pattern))


def hidden_pattern(specifier: str, workspace: Path, home: Path) -> str:
    """A path pattern as the absolute path or glob a sandbox hides: ``./secrets/**`` is
    ``/ws/secrets/**`` (its fixed folder with links resolved), a bare name ``*.env`` is
    ``/ws/**/*.env`` (in every folder of the workspace)."""
    pattern, anchored = _anchor(specifier, workspace, home)
    if not anchored:
        return f"{workspace}/**/{pattern}"
    return _real_fixed(pattern)


def path_rule(tool: str, path: Path, workspace: Path, home: Path) -> str:
    """The narrowest rule naming ``path``: ``edit(src/app.py)``, ``read(./.env)``,
    ``read(~/notes.txt)``, ``read(/tmp/x)``."""
    if path == workspace:
        return f"{tool}(./)"
    if path.is_relative_to(workspace):
        relative = path.relative_to(workspace).as_posix()
        shown = escape_glob(relative)
        return f"{tool}({shown if '/' in relative else './' + shown})"
    if path.is_relative_to(home):
        return f"{tool}(~/{escape_glob(path.relative_to(home).as_posix())})"
    return f"{tool}({escape_glob(path.as_posix())})"
