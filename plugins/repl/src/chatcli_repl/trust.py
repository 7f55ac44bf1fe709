"""The question the chat asks once as it starts in a project it does not trust yet.

A project someone else wrote may hold files that change chatcli — its ``.chatcli/config.toml``,
an ``.mcp.json`` whose servers are programs, hooks, skills with scripts (the kernel's and the
plugins' *control files*, :func:`chatcli.project_trust`). Until the user trusts it, chatcli
ignores them (but what only tightens). When the chat starts in such a project, or in one whose
trusted files changed since, and trusting would turn something on
(:func:`chatcli_workspace.trust_waiting`; a config that only tightens asks nothing), it shows
the project's root, its files and what they would change — the config keys trusting applies,
the programs and addresses the files name — and asks ``Trust this project? [y/N]``. Yes records
the trust (with the digest of what was shown: a file changed meanwhile is not trusted) and reads
the settings again, so the project's config applies from the first message; the plugins read
their files when the session opens, after this. No, or anything else, goes on untrusted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatcli import PluginHost, SessionOptions, Settings, translation

__all__ = ["ask_trust", "summary"]

#: Files of one skill folder named, at most (then "and N more").
MAX_SKILL_FILES = 6

_, ngettext = translation(__name__)


def ask_trust(console: Any, host: PluginHost, settings: Settings, options: SessionOptions,
              workspace: Path | None = None, answer: Any = None) -> Settings:
    """Ask whether to trust the project of ``workspace`` (default: the current folder) when it
    has files that change chatcli and is not trusted as they are; returns the settings to use
    (read again when the user said yes). ``answer(prompt)`` reads the reply (default: the
    console's input line)."""
    from chatcli import ChatcliError, load_settings, project_trust
    from chatcli_workspace import trust_project, trust_waiting

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
            _("Trust this project? [y/N] "))
    except (EOFError, KeyboardInterrupt):
        reply = ""
    # i18n: the answers that mean yes, separated by spaces (English "y yes" always works too)
    yes = {"y", "yes", *_("y yes").split()}
    if str(reply).strip().lower() not in yes:
        console.print(_("not trusted: its files stay ignored (`chatcli trust` trusts it later)"),
                      style="dim", markup=False, highlight=False)
        return settings
    try:
        done = trust_project(workspace, host, expected=state.digest)
        # the settings the command line gave, read again with the trusted project's files
        reread = load_settings({"provider": options.provider, "model": options.model,
                                "system": options.system})
    except ChatcliError as err:
        console.print(f"✗ {err}", style="red", markup=False, highlight=False)
        return settings
    count = len(done.files)
    console.print(ngettext("trusted {root} ({count} file); a change to them asks again",
                           "trusted {root} ({count} files); a change to them asks again",
                           count).format(root=done.root, count=count),
                  style="dim", markup=False, highlight=False)
    return reread


def summary(workspace: Path, host: PluginHost, state: Any) -> list[str]:
    """The lines shown before the question: the root, each control file and what it would
    change (skill folders on one line each)."""
    from chatcli_workspace import control_file_programs, trust_summary

    lines = [_("This project has files that change chatcli: {root}").format(root=state.root)]
    if state.changed:
        lines.append(_("They changed since you trusted it."))
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
        lines.extend(f"    {line}" for line in control_file_programs(Path(state.root) / name))
    for folder, files in folders.items():
        shown = ", ".join(files[:MAX_SKILL_FILES])
        if len(files) > MAX_SKILL_FILES:
            shown = _("{names} and {count} more").format(names=shown,
                                                         count=len(files) - MAX_SKILL_FILES)
        lines.append(f"  {folder}: {shown}")
    return [_clean(line) for line in lines]


def _skill_folder(name: str) -> str | None:
    """``.claude/skills/deploy/`` for a file of that skill folder, else None."""
    parts = name.split("/")
    for index in range(len(parts) - 2):
        if parts[index] == "skills" and index >= 1 and parts[index - 1] in (
                ".chatcli", ".agents", ".claude"):
            return "/".join(parts[: index + 2]) + "/"
    return None


def _clean(text: str) -> str:
    """``text`` without control characters (a file name from someone else's repository must
    not drive the terminal)."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)
