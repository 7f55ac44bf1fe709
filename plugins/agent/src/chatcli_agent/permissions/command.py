"""``/permissions``: show the mode and the rules, switch the mode, cycle through the modes.

``/permissions`` shows the mode (and where it came from) and every rule with its source;
``/permissions MODE`` switches to ``default``, ``accept-edits``, ``plan`` or ``auto``;
``/permissions cycle`` goes to the next mode and prints it in one line (the REPL binds Shift+Tab
to it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import SlashCommand

from chatcli_agent.permissions.policy import MODE_HELP, MODES

if TYPE_CHECKING:
    from chatcli_agent.permissions.plugin import PermissionsPlugin
    from chatcli_agent.permissions.state import PermissionState

__all__ = ["describe", "slash_command"]

HELP = ("permissions: /permissions (mode and rules) | /permissions default|accept-edits|plan|auto "
        "| /permissions cycle")


def _say(app: Any, text: str) -> None:
    app.console.print(text, markup=False, highlight=False)


def describe(state: PermissionState) -> list[str]:
    """The lines ``/permissions`` prints."""
    policy = state.policy
    lines = [f"permission mode: {state.mode} ({MODE_HELP[state.mode]}; from {state.mode_source})"]
    for effect in ("deny", "ask", "allow"):
        rules = [r for r in policy.rules if r.effect == effect]
        if rules:
            lines.append(f"{effect}:")
            lines.extend(f"  {r.text}  ({r.source})" for r in rules)
    if not policy.rules:
        lines.append("no rules (add them under [permissions] allow/ask/deny in the config)")
    if policy.classes:
        lines.append("risk classes allowed by --allow: " + ", ".join(sorted(policy.classes)))
    if policy.allowed_dirs:
        lines.append("folders allowed outside the workspace: " + ", ".join(
            str(d) for d in policy.allowed_dirs))
    from chatcli_agent.permissions.state import SAVED, project_rules_path

    if any(r.source == SAVED for r in policy.rules):
        lines.append(f"rules saved for this project (\"always\") are kept in "
                     f"{project_rules_path()}, under its folder: remove one there")
    lines.extend(f"note: {note}" for note in state.notes)
    lines.append("dangerous commands, credential files and paths outside the workspace always "
                 "ask")
    from chatcli_workspace import CONTROL_NAMES

    lines.append(f"protected (a write asks in every mode unless a rule names the file): "
                 f"{', '.join(CONTROL_NAMES)}")
    return lines


def slash_command(plugin: PermissionsPlugin) -> SlashCommand:
    def run(app: Any, args: str) -> None:
        state = plugin.state_for(app.session)
        word = args.strip().lower()
        if not word or word in ("show", "list"):
            for line in describe(state):
                _say(app, line)
            return
        if word == "cycle":
            mode = state.cycle()
            _say(app, f"permission mode: {mode} ({MODE_HELP[mode]})")
            return
        if word in MODES:
            state.set_mode(word)  # (a mode the managed policy turned off: a ConfigError)
            _say(app, f"permission mode: {word} ({MODE_HELP[word]})")
            return
        _say(app, f"unknown mode '{args.strip()}'; {HELP}")

    def complete(_app: Any, text: str) -> list[str]:
        return [m for m in (*MODES, "cycle") if m.startswith(text.strip())]

    return SlashCommand(name="permissions", help=HELP, run=run,
                        subcommands=[*MODES, "cycle"], complete=complete)
