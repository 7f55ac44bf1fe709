"""What the managed policy (``/etc/chatcli/managed.toml``, :func:`chatcli.managed_policy`) means
for permissions.

- ``[permissions] deny`` and ``ask``: the kernel keeps the managed rules whatever the layers below
  say (they merge by ``union``); an allow rule that is exactly a managed deny rule is refused
  here, wherever it comes from (a file, a variable, ``--allow``);
- ``[permissions] disabled_modes``: modes no flag, file, variable or ``/permissions`` may choose
  (``["auto"]``); ``/permissions cycle`` skips them;
- ``[permissions] mode``: fixed by the kernel like any other managed value.

Light: imported with the permissions' state; it reads the managed file through the kernel
(cached, one ``stat`` when there is none).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import translation

from chatcli_agent.permissions.cli_options import MODES

if TYPE_CHECKING:
    from chatcli import ConfigError

    from chatcli_agent.permissions.rules import Rule

__all__ = ["disabled_modes", "mode_off", "refuse_denied_allows"]

_, ngettext = translation(__name__)

#: what a mode turned off by the user's own settings (not the managed file) names
SETTINGS = _("the settings ([permissions] disabled_modes)")


def disabled_modes(merged: dict[str, Any]) -> dict[str, str]:
    """The modes that are off → what turned each off (the managed file's path, or
    :data:`SETTINGS`): ``disabled_modes`` of the merged ``[permissions]`` table (the managed
    file's items are in it whatever other layers say). A value that is no list of modes is a
    :class:`chatcli.ConfigError`."""
    from chatcli import ConfigError, managed_list

    managed = managed_list("permissions.disabled_modes")  # (a bad one names the file)
    value = merged.get("disabled_modes")
    if value is None:
        return {}
    items = [value] if isinstance(value, str) else value
    for where, listed in ((managed[0] if managed else "", managed[1] if managed else []),
                          (_("the settings"), items)):
        if not isinstance(listed, list) or not all(item in MODES for item in listed):
            raise ConfigError(_("{where}: [permissions] disabled_modes must be a list of modes, "
                                "not {value!r:.60}").format(where=where, value=listed),
                              _("choose among {modes}").format(modes=", ".join(MODES)))
    return {mode: managed[0] if managed and mode in managed[1] else SETTINGS
            for mode in items}


def mode_off(mode: str, where: str, by: str) -> ConfigError:
    """The one-line error for ``where`` (a flag, a file, a slash command) asking for ``mode``,
    which ``by`` (the managed file) turned off."""
    from chatcli import ConfigError

    others = ", ".join(m for m in MODES if m != mode)
    message = (_("{where}: the permission mode '{mode}' is turned off by {by}") if by == SETTINGS
               else _("{where}: the permission mode '{mode}' is turned off by the managed policy "
                      "{by}"))
    return ConfigError(message.format(where=where, mode=mode, by=by),
                       _("choose another mode ({modes})").format(modes=others))


def refuse_denied_allows(rules: list[Rule]) -> None:
    """Raise :class:`chatcli.ConfigError` for an allow rule that is a managed deny rule (the deny
    rule would win anyway: saying so beats a rule that silently does nothing)."""
    from chatcli import managed_error, managed_list

    managed = managed_list("permissions.deny")
    if managed is None:
        return
    from chatcli_agent.permissions.rules import shown_source  # a managed file: rules to name

    for rule in rules:
        if rule.effect == "allow" and rule.text in managed[1]:
            raise managed_error(f"permissions.deny ({rule.text})",
                                _("the allow rule {rule!r} ({source})").format(
                                    rule=rule.text, source=shown_source(rule.source)), managed[0])
