"""What trusting a project would change, in lines a person reads before trusting it: the keys of
its ``.chatcli/config.toml`` that trust would apply, those applied already (they only tighten)
and those no project may set; its other control files by name. (The trust question of the chat
and ``chatcli trust`` show these lines, with :func:`control_file_programs` under each file.)

The kernel decides (``chatcli.project_trust``, ``chatcli.filter_project_layer`` with
``chatcli.setting_rules``); this only words its answer. The kernel is imported when it runs."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost, ProjectTrust

__all__ = ["trust_notice", "trust_summary", "trust_waiting"]
_, ngettext = translation(__name__)

#: The kernel's own control file, relative to the project root (``chatcli._trust.CONFIG_FILE``).
CONFIG_FILE = ".chatcli/config.toml"


def _shown(key: str) -> str:
    """A key as it may reach a terminal: control characters escaped, at most 60 characters
    (a project's keys are someone else's text)."""
    text = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in key)
    return text if len(text) <= 60 else text[:59] + "…"


def _leaves(value: Any, path: tuple[str, ...]) -> list[str]:
    if isinstance(value, dict) and value:
        return [leaf for key, item in value.items() for leaf in _leaves(item, (*path, key))]
    return [".".join(path)]


def trust_summary(workspace: Path | str, host: PluginHost | None = None) -> list[str]:
    """What trusting the project of ``workspace`` would change, one line per control file:
    for ``.chatcli/config.toml``, the keys trust would apply, those applied already (they only
    tighten) and those no project may set; other files by name. Empty when there are none.
    Raises ``chatcli.ConfigError`` for a config file that cannot be read."""
    from chatcli import (
        filter_project_layer,
        project_trust,
        read_toml,
        setting_rules,
        user_config_path,
    )

    state = project_trust(workspace, host)
    if state.root is None:
        return []
    lines = []
    for name in state.files:
        if name != CONFIG_FILE:
            lines.append(name)
            continue
        data = read_toml(os.path.join(str(state.root), name))
        user = read_toml(user_config_path())
        rules = setting_rules(host)
        untrusted = filter_project_layer(data, state.root, user, False, rules)[1]
        never = filter_project_layer(data, state.root, user, True, rules)[2]
        waiting = list(dict.fromkeys(_shown(key) for key in untrusted))
        refused = list(dict.fromkeys(_shown(key) for key in never))
        already = [key for key in dict.fromkeys(_shown(key) for key in _leaves(data, ()))
                   if key not in waiting and key not in refused and key]
        parts = []
        if waiting:
            parts.append(_("trusting applies {keys}").format(keys=", ".join(waiting)))
        if already:
            parts.append(_("applied already (they only tighten): {keys}").format(
                keys=", ".join(already)))
        if refused:
            parts.append(ngettext("never from a project: {keys} (set it in {path})",
                                  "never from a project: {keys} (set them in {path})",
                                  len(refused)).format(keys=", ".join(refused),
                                                       path=user_config_path()))
        lines.append(f"{name}: " + ("; ".join(parts) if parts else _("empty")))
    return lines


def _names(keys: list[str], limit: int = 6) -> str:
    unique = list(dict.fromkeys(_shown(key) for key in keys))
    shown = ", ".join(unique[:limit])
    if len(unique) <= limit:
        return shown
    return _("{names} and {count} more").format(names=shown, count=len(unique) - limit)


def _dropped(state: ProjectTrust, host: PluginHost | None) -> tuple[list[str], list[str]]:
    """(keys of the project's config waiting for trust, keys no project may set), as the
    settings find them."""
    from chatcli import filter_project_layer, read_toml, setting_rules, user_config_path

    if CONFIG_FILE not in state.files:
        return [], []
    try:
        user = read_toml(user_config_path())
        data = read_toml(os.path.join(str(state.root), CONFIG_FILE))
    except Exception:  # the settings themselves report a file that cannot be read
        return [], []
    _kept, untrusted, never = filter_project_layer(data, str(state.root), user, state.trusted,
                                                   setting_rules(host))
    return untrusted, never


def trust_waiting(workspace: Path | str, host: PluginHost | None = None) -> list[str]:
    """What trusting the project of ``workspace`` would turn on, one entry per file:
    ``".chatcli/config.toml (system, model)"`` (its keys that wait for trust) and each other
    control file (``".mcp.json"``). Empty when the project is trusted, has no control files,
    or trusting would change nothing (its config only tightens): then there is nothing to ask.
    """
    from chatcli import project_trust

    state = project_trust(workspace, host)
    if state.root is None or state.trusted:
        return []
    untrusted = _dropped(state, host)[0]
    return [name if name != CONFIG_FILE else f"{name} ({_names(untrusted)})"
            for name in state.files if name != CONFIG_FILE or untrusted]


def trust_notice(workspace: Path | str, host: PluginHost | None = None) -> str | None:
    """The one line a session prints when it starts in a project whose files were ignored, or
    whose config sets what no project may set; None when there is nothing to say.

    It names the ignored files (the config file with its ignored keys, see
    :func:`trust_waiting`) and the fix: ``chatcli trust`` for an untrusted project, the user's
    config file for a key no project may set. (chatcli-admin prints it when plugins are
    configured for a session.)
    """
    from chatcli import project_trust, user_config_path

    state = project_trust(workspace, host)
    if state.root is None or not state.files:
        return None
    never = _dropped(state, host)[1]
    parts = []
    ignored = trust_waiting(workspace, host)
    if ignored:
        parts.append((_("this project is changed since you trusted it: ignored {files} — run "
                         "`chatcli trust` to use them") if state.changed else
                       _("this project is not trusted: ignored {files} — run `chatcli trust` "
                         "to use them")).format(files=", ".join(ignored)))
    if never:
        parts.append(ngettext("a project cannot set {keys}; set it in {path}",
                              "a project cannot set {keys}; set them in {path}",
                              len(set(never))).format(keys=_names(never),
                                                      path=user_config_path()))
    return "; ".join(parts) or None
