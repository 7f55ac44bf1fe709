"""The question the chat asks once as it starts in a project it does not trust yet.

A project someone else wrote may hold files that change chatcli — its ``.chatcli/config.toml``,
an ``.mcp.json`` whose servers are programs, hooks, skills with scripts (the kernel's and the
plugins' *control files*, :func:`chatcli.project_trust`). Until the user trusts it, chatcli
ignores them (but what only tightens). When the chat starts in such a project, or in one whose
trusted files changed since, and trusting would turn something on (:func:`chatcli.trust_waiting`;
a config that only tightens asks nothing), it shows the project's root, its files and what they
would change — the config keys trusting applies, the programs and addresses the files name — and
asks ``Trust this project? [y/N]``. Yes records the trust (with the digest of what was shown: a
file changed meanwhile is not trusted) and reads the settings again, so the project's config
applies from the first message; the plugins read their files when the session opens, after
this. No, or anything else, goes on untrusted.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from chatcli import PluginHost, SessionOptions, Settings

__all__ = ["ask_trust", "programs", "summary"]

#: Programs shown per file, at most (then "… and N more").
MAX_PROGRAMS = 6
#: Characters of one program's line.
MAX_LINE = 160


def ask_trust(console: Any, host: PluginHost, settings: Settings, options: SessionOptions,
              workspace: Path | None = None, answer: Any = None) -> Settings:
    """Ask whether to trust the project of ``workspace`` (default: the current folder) when it
    has files that change chatcli and is not trusted as they are; returns the settings to use
    (read again when the user said yes). ``answer(prompt)`` reads the reply (default: the
    console's input line)."""
    from chatcli import ChatcliError, load_settings, project_trust, trust_project, trust_waiting

    workspace = (workspace or Path.cwd()).resolve()
    state = project_trust(workspace, host)
    if state.root is None or state.trusted or not state.files:
        return settings
    if not trust_waiting(workspace, host):
        return settings  # its config only tightens (deny rules, smaller budgets): nothing to ask
    for line in summary(workspace, host, state):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    try:
        reply = (answer or (lambda text: console.input(text, markup=False)))(
            "Trust this project? [y/N] ")
    except (EOFError, KeyboardInterrupt):
        reply = ""
    if str(reply).strip().lower() not in ("y", "yes"):
        console.print("not trusted: its files stay ignored (`chatcli trust` trusts it later)",
                      style="dim", markup=False, highlight=False)
        return settings
    try:
        done = trust_project(workspace, host, expected=state.digest)
        reread = load_settings(options.flags)
    except ChatcliError as err:
        console.print(f"✗ {err}", style="red", markup=False, highlight=False)
        return settings
    count = len(done.files)
    console.print(f"trusted {done.root} ({count} file{'s' if count != 1 else ''}); a change to "
                  "them asks again", style="dim", markup=False, highlight=False)
    return reread


def summary(workspace: Path, host: PluginHost, state: Any) -> list[str]:
    """The lines shown before the question: the root, each control file and what it would
    change (skill folders on one line each)."""
    from chatcli import trust_summary

    lines = [f"This project has files that change chatcli: {state.root}"]
    if state.changed:
        lines.append("They changed since you trusted it.")
    try:
        described = {line.split(":", 1)[0]: line for line in trust_summary(workspace, host)}
    except Exception as err:  # a config file that cannot be read: name it, ask anyway
        described = {".chatcli/config.toml": f".chatcli/config.toml: {err}"}
    folders: dict[str, list[str]] = {}
    for name in state.files:
        folder = _skill_folder(name)
        if folder is not None:
            folders.setdefault(folder, []).append(name[len(folder):])
            continue
        lines.append(f"  {described.get(name, name)}")
        lines.extend(f"    {line}" for line in programs(Path(state.root) / name))
    for folder, files in folders.items():
        shown = ", ".join(files[:MAX_PROGRAMS])
        more = f" and {len(files) - MAX_PROGRAMS} more" if len(files) > MAX_PROGRAMS else ""
        lines.append(f"  {folder}: {shown}{more}")
    return [_clean(line) for line in lines]


def _skill_folder(name: str) -> str | None:
    """``.claude/skills/deploy/`` for a file of that skill folder, else None."""
    parts = name.split("/")
    for index in range(len(parts) - 2):
        if parts[index] == "skills" and index >= 1 and parts[index - 1] in (
                ".chatcli", ".agents", ".claude"):
            return "/".join(parts[: index + 2]) + "/"
    return None


def programs(path: Path) -> list[str]:
    """What a JSON or TOML control file would run or reach: each table with a ``command``
    (its ``args`` too) or a ``url``, named by where it is (``mcpServers.x``,
    ``hooks.PreToolUse``); at most :data:`MAX_PROGRAMS` lines."""
    try:
        raw = path.read_bytes()
        if path.suffix == ".json":
            data = json.loads(raw)
        elif path.suffix == ".toml":
            data = tomllib.loads(raw.decode("utf-8"))
        else:
            return []
    except (OSError, ValueError, RecursionError):  # (nesting deep enough to overflow readers)
        return []
    found: list[str] = []
    _walk(data, [], found)
    if len(found) > MAX_PROGRAMS:
        found = [*found[:MAX_PROGRAMS], f"… and {len(found) - MAX_PROGRAMS} more"]
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
            found.append(_line(f"runs: {' '.join([command, *_quoted(words)])} ({label})"))
        elif isinstance(url, str) and url.strip():
            found.append(_line(f"connects to: {url} ({label})"))
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


def _line(text: str) -> str:
    text = _clean(text)
    return text if len(text) <= MAX_LINE else text[: MAX_LINE - 1] + "…"


def _clean(text: str) -> str:
    """``text`` without control characters (a file name or command from someone else's
    repository must not drive the terminal)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)
