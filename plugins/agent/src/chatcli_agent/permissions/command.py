"""``/permissions``: show the mode and the rules, switch the mode, cycle through the modes.

``/permissions`` shows the mode (and where it came from) and every rule with its source;
``/permissions MODE`` switches to ``default``, ``accept-edits``, ``plan`` or ``auto``;
``/permissions cycle`` goes to the next mode and prints it in one line (the REPL binds Shift+Tab
to it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import SlashCommand, translation

from chatcli_agent.permissions.policy import MODES, mode_help
from chatcli_agent.permissions.rules import shown_source

if TYPE_CHECKING:
    from chatcli_agent.permissions.plugin import PermissionsPlugin
    from chatcli_agent.permissions.state import PermissionState

__all__ = ["describe", "slash_command"]

_, ngettext = translation(__name__)

HELP = _("permissions: /permissions (mode and rules) | /permissions "
         "default|accept-edits|plan|auto | /permissions cycle")


def _say(app: Any, text: str) -> None:
    app.console.print(text, markup=False, highlight=False)


def describe(state: PermissionState) -> list[str]:
    """The lines ``/permissions`` prints."""
    policy = state.policy
    lines = [_("permission mode: {mode} ({meaning}; from {source})").format(
        mode=state.mode, meaning=mode_help(state.mode), source=shown_source(state.mode_source))]
    headings = {"deny": _("deny:"), "ask": _("ask:"), "allow": _("allow:")}
    for effect in ("deny", "ask", "allow"):
        rules = [r for r in policy.rules if r.effect == effect]
        if rules:
            lines.append(headings[effect])
            lines.extend(f"  {r.text}  ({shown_source(r.source)})" for r in rules)
    if not policy.rules:
        lines.append(_("no rules (add them under [permissions] allow/ask/deny in the config)"))
    if policy.classes:
        lines.append(_("risk classes allowed by --allow: {classes}").format(
            classes=", ".join(sorted(policy.classes))))
    if policy.allowed_dirs:
        lines.append(_("folders allowed outside the workspace: {folders}").format(
            folders=", ".join(str(d) for d in policy.allowed_dirs)))
    from chatcli_agent.permissions.state import SAVED, project_rules_path

    if any(r.source == SAVED for r in policy.rules):
        lines.append(_("rules saved for this project (\"always\") are kept in {path}, under "
                       "its folder: remove one there").format(path=project_rules_path()))
    lines.extend(_("note: {note}").format(note=note) for note in state.notes)
    lines.append(_("dangerous commands, credential files and paths outside the workspace "
                   "always ask"))
    from chatcli_workspace import CONTROL_NAMES

    lines.append(_("protected (a write asks in every mode unless a rule names the file): "
                   "{names}").format(names=", ".join(CONTROL_NAMES)))
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
            _say(app, _("permission mode: {mode} ({meaning})").format(
                mode=mode, meaning=mode_help(mode)))
            return
        if word in MODES:
            state.set_mode(word)  # (a mode the managed policy turned off: a ConfigError)
            _say(app, _("permission mode: {mode} ({meaning})").format(
                mode=word, meaning=mode_help(word)))
            return
        _say(app, _("unknown mode '{mode}'; {usage}").format(mode=args.strip(), usage=HELP))

    def complete(_app: Any, text: str) -> list[str]:
        return [m for m in (*MODES, "cycle") if m.startswith(text.strip())]

    return SlashCommand(name="permissions", help=HELP, run=run,
                        subcommands=[*MODES, "cycle"], complete=complete)
