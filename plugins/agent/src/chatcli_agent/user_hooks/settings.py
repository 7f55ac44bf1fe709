"""Where user hooks come from: chatcli's TOML and Claude Code's ``settings.json`` files.

chatcli's format (user ``config.toml`` or project ``.chatcli/config.toml``)::

    [hooks]
    timeout = 60                   # default seconds for every hook

    [[hooks.PreToolUse]]
    matcher = "exec|edit"          # a regex the whole tool name must match; "" or "*": all
    command = "./check.sh"
    timeout = 10

Claude Code's format (``~/.claude/settings.json`` — or ``$CLAUDE_CONFIG_DIR`` — and the
project's ``.claude/settings.json`` and ``.claude/settings.local.json``)::

    {"hooks": {"PreToolUse": [{"matcher": "Bash",
                                "hooks": [{"type": "command", "command": "…", "timeout": 10}]}]}}

The user's own files are trusted. A project's files — its ``.chatcli/config.toml`` and the
``.claude/settings.json`` and ``.claude/settings.local.json`` at its root, which come with a
repository someone else may have written — run only in a project the user trusts as it is now
(``chatcli trust``, or the chat's question; :func:`chatcli.project_trust`): a change to any of
them asks again. ``[hooks] trust_project``, which trusted folders before, is no longer read.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# the project's files whose hooks run once it is trusted (in .state: the entry module needs them)
from chatcli import translation

from chatcli_agent.user_hooks.state import PROJECT_CLAUDE_FILES, PROJECT_CONFIG

_, ngettext = translation(__name__)

#: The events a hook may be attached to.
EVENTS = (
    "PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart",
    "SessionEnd", "PreCompact", "PostCompact", "Stop",
)
#: Events whose matcher is tested against the tool's name.
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure")

#: Claude Code's tool names and chatcli's.
CLAUDE_TOOLS = {
    "Bash": "exec", "Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "multiedit",
    "Grep": "search", "Glob": "glob",
}
CHATCLI_TO_CLAUDE = {chatcli: claude for claude, chatcli in CLAUDE_TOOLS.items()}

#: Seconds a hook may run when it does not say (Claude Code's default too).
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class Hook:
    """One shell command attached to an event."""

    event: str
    command: str
    matcher: str = ""
    timeout: float = DEFAULT_TIMEOUT
    #: where it was configured (a file path), for reports
    origin: str = ""
    #: written for Claude Code: its tool names in the payload (``Bash``, ``Read``…)
    claude: bool = False

    def matches(self, subject: str | None) -> bool:
        """Whether the hook applies to ``subject`` (a tool name; a source for SessionStart).
        A tool matches by chatcli's name or Claude Code's."""
        pattern = self.matcher.strip()
        if not pattern or pattern == "*" or subject is None:
            return True
        names = [subject]
        if subject in CHATCLI_TO_CLAUDE:
            names.append(CHATCLI_TO_CLAUDE[subject])
        try:
            return any(re.fullmatch(pattern, name) for name in names)
        except re.error:
            return False

    @property
    def label(self) -> str:
        """``PreToolUse[exec] ./check.sh`` for one-line reports."""
        command = " ".join(self.command.split())
        if len(command) > 60:  # the end names the script: `…/hooks/check.sh`
            command = "…" + command[-59:]
        where = f"[{self.matcher}]" if self.matcher.strip() not in ("", "*") else ""
        return f"{self.event}{where} `{command}`"


@dataclass
class Loaded:
    """The hooks that run, and what was found but not used (reported once)."""

    hooks: list[Hook]
    problems: list[str]
    untrusted: list[str]  # project files whose hooks do not run


def load(settings: Any, workspace: Path, user_file: Path | None,
         environ: dict[str, str] | None = None, host: Any = None) -> Loaded:
    """Every hook configured for ``workspace``: the user's files always, the project's when
    the user trusts the project (``host``: the plugin host whose control files trust counts;
    default the command line's)."""
    from chatcli import project_trust

    environ = dict(os.environ if environ is None else environ)
    problems: list[str] = []
    user_table = _user_hooks_table(user_file, problems)
    defaults = _defaults(settings.plugin_table("hooks"), user_table, problems)
    hooks: list[Hook] = []
    untrusted: list[str] = []

    # the user's own files
    if user_file is not None:
        hooks += _from_toml(user_table, str(user_file), defaults["timeout"], problems)
    claude_home = Path(environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    if defaults["claude"]:
        hooks += _from_claude(claude_home / "settings.json", defaults["timeout"], problems)

    # the project's files, at its root
    state = project_trust(workspace, host)
    root = state.root
    if root is None:
        return Loaded(_unique(hooks), problems, untrusted)
    project: list[tuple[str, Path]] = []
    if (root / ".chatcli").is_dir():
        project.append((PROJECT_CONFIG, root / PROJECT_CONFIG))
    if defaults["claude"]:
        project += [(name, root / name) for name in PROJECT_CLAUDE_FILES]
    for name, path in project:
        if not path.is_file():  # (first: most projects have none, and resolving costs more)
            continue
        if (user_file is not None and _same(path, user_file)) or (
                name != PROJECT_CONFIG and _same(path.parent, claude_home)):
            continue  # the workspace is the home folder: that file is the user's own
        trusted = _trusted_with(state, name)
        said = problems if trusted else []  # an untrusted file's problems are not the user's
        if name == PROJECT_CONFIG:
            found = _from_toml(_read_toml_hooks(path, said), str(path), defaults["timeout"],
                               said)
        else:
            found = _from_claude(path, defaults["timeout"], said)
        if trusted:
            hooks += found
        elif found:
            untrusted.append(ngettext("{path} ({count} hook)", "{path} ({count} hooks)",
                                      len(found)).format(path=path, count=len(found)))
    return Loaded(_unique(hooks), problems, untrusted)


def _same(one: Path, other: Path) -> bool:
    try:
        return one.resolve() == other.resolve()
    except OSError:
        return False


def _trusted_with(state: Any, name: str) -> bool:
    """Whether the project's file ``name`` may be used: the project is trusted and the file
    was among those trusted (one that was not counted — read by a caller without the plugin
    host — is not)."""
    if not state.trusted:
        return False
    return name in state.files or not (state.root / name).is_file()


# ------------------------------------------------------------------------------ reading files


def _user_hooks_table(path: Path | None, problems: list[str]) -> dict[str, Any]:
    return _read_toml_hooks(path, problems) if path is not None else {}


def _read_toml_hooks(path: Path, problems: list[str]) -> dict[str, Any]:
    try:
        handle = open(path, "rb")  # noqa: SIM115 (closed below)
    except FileNotFoundError:  # (most runs: tomllib is not imported for nothing)
        return {}
    except OSError as err:
        problems.append(_("{path}: cannot read its [hooks] ({error})").format(path=path,
                                                                            error=err))
        return {}
    import tomllib

    try:
        with handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        problems.append(_("{path}: cannot read its [hooks] ({error})").format(path=path,
                                                                            error=err))
        return {}
    table = data.get("hooks", {})
    if not isinstance(table, dict):
        problems.append(_("{path}: 'hooks' must be a table ([hooks])").format(path=path))
        return {}
    return table


def _defaults(merged: dict[str, Any], user: dict[str, Any], problems: list[str]
              ) -> dict[str, Any]:
    """``timeout`` and ``claude_settings`` from the effective settings (a project's part of
    them only once it is trusted: the kernel filters its config)."""
    timeout = _seconds(merged.get("timeout", DEFAULT_TIMEOUT), "hooks.timeout", problems)
    claude = _flag(merged.get("claude_settings", True))
    return {"timeout": timeout or DEFAULT_TIMEOUT, "claude": claude}


def _flag(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _seconds(value: Any, where: str, problems: list[str]) -> float | None:
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = float(value)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 86_400:
        problems.append(_("{where}: the timeout must be a number of seconds above 0, not "
                          "{value!r:.40}").format(where=where, value=value))
        return None
    return float(value)


def _from_toml(table: dict[str, Any], origin: str, timeout: float, problems: list[str]
               ) -> list[Hook]:
    hooks: list[Hook] = []
    for event, entries in table.items():
        if event in ("trust_project", "timeout", "claude_settings"):
            continue
        if event not in EVENTS:
            close = [name for name in EVENTS if name.lower() == str(event).lower()]
            problems.append((_("{origin}: [hooks] has an unknown event '{event}' (did you mean "
                               "{close}?)") if close else
                             _("{origin}: [hooks] has an unknown event '{event}' (one of "
                               "{events})")).format(origin=origin, event=event,
                                                    close=close[0] if close else "",
                                                    events=", ".join(EVENTS)))
            continue
        if isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            problems.append(_("{origin}: hooks.{event} must be an array of tables "
                              "([[hooks.{event}]])").format(origin=origin, event=event))
            continue
        for index, entry in enumerate(entries):
            where = f"{origin}: hooks.{event}[{index}]"
            if not isinstance(entry, dict):
                problems.append(_("{where} must be a table with a command").format(where=where))
                continue
            if isinstance(entry.get("hooks"), list):  # Claude's nesting, written in TOML
                hooks += _entry_hooks(event, entry, origin, timeout, problems, claude=False)
                continue
            hook = _hook(event, entry.get("matcher", ""), entry, where, origin, timeout,
                         problems, claude=False)
            if hook is not None:
                hooks.append(hook)
    return hooks


def _from_claude(path: Path, timeout: float, problems: list[str]) -> list[Hook]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as err:
        problems.append(_("{path}: cannot read it ({error})").format(path=path, error=err))
        return []
    try:
        data = json.loads(text)
    except ValueError as err:
        problems.append(_("{path}: not valid JSON ({error}); its hooks are not used").format(
            path=path, error=err))
        return []
    table = data.get("hooks") if isinstance(data, dict) else None
    if table is None:
        return []
    if not isinstance(table, dict):
        problems.append(_("{path}: 'hooks' must be an object").format(path=path))
        return []
    hooks: list[Hook] = []
    for event, groups in table.items():
        if event not in EVENTS:
            continue  # Claude Code has events chatcli does not (Notification, SubagentStop…)
        if not isinstance(groups, list):
            problems.append(_("{path}: hooks.{event} must be a list").format(path=path,
                                                                              event=event))
            continue
        for group in groups:
            if isinstance(group, dict):
                hooks += _entry_hooks(event, group, str(path), timeout, problems, claude=True)
    return hooks


def _entry_hooks(event: str, group: dict[str, Any], origin: str, timeout: float,
                 problems: list[str], *, claude: bool) -> list[Hook]:
    """``{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}``."""
    hooks = []
    matcher = group.get("matcher", "")
    for index, entry in enumerate(group.get("hooks") or []):
        where = f"{origin}: hooks.{event} ({matcher or 'all'}) #{index + 1}"
        if not isinstance(entry, dict):
            problems.append(_("{where} must be an object with a command").format(where=where))
            continue
        kind = entry.get("type", "command")
        if kind != "command":
            problems.append(_("{where}: type '{kind}' is not supported (only 'command')").format(
                where=where, kind=kind))
            continue
        hook = _hook(event, matcher, entry, where, origin, timeout, problems, claude=claude)
        if hook is not None:
            hooks.append(hook)
    return hooks


def _hook(event: str, matcher: Any, entry: dict[str, Any], where: str, origin: str,
          timeout: float, problems: list[str], *, claude: bool) -> Hook | None:
    command = entry.get("command")
    if not isinstance(command, str) or not command.strip():
        problems.append(_("{where} has no command").format(where=where))
        return None
    if matcher is None:
        matcher = ""
    if not isinstance(matcher, str):
        problems.append(_("{where}: the matcher must be text (a regex of tool names)").format(
            where=where))
        return None
    if matcher.strip() not in ("", "*"):
        try:
            re.compile(matcher)
        except re.error as err:
            problems.append(_("{where}: the matcher {matcher!r} is not a valid regex ({error})"
                              ).format(where=where, matcher=matcher, error=err))
            return None
    seconds = timeout
    if "timeout" in entry:
        seconds = _seconds(entry["timeout"], f"{where}: timeout", problems) or timeout
    return Hook(event=event, command=command, matcher=matcher, timeout=seconds,
                origin=origin, claude=claude)


def _unique(hooks: list[Hook]) -> list[Hook]:
    """The same command for the same event and matcher runs once (as in Claude Code)."""
    seen: set[tuple[str, str, str]] = set()
    unique = []
    for hook in hooks:
        key = (hook.event, hook.matcher, hook.command)
        if key not in seen:
            seen.add(key)
            unique.append(hook)
    return unique


# re-exported for the plugin and tests
__all__ = ["CHATCLI_TO_CLAUDE", "CLAUDE_TOOLS", "EVENTS", "PROJECT_CLAUDE_FILES", "PROJECT_CONFIG",
           "TOOL_EVENTS", "Hook", "Loaded", "load"]
