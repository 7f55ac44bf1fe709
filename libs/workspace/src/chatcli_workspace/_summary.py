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

if TYPE_CHECKING:
    from chatcli import PluginHost

__all__ = ["trust_summary"]

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
        _, untrusted, _ = filter_project_layer(data, state.root, user, False, rules)
        _, _, never = filter_project_layer(data, state.root, user, True, rules)
        waiting = list(dict.fromkeys(_shown(key) for key in untrusted))
        refused = list(dict.fromkeys(_shown(key) for key in never))
        already = [key for key in dict.fromkeys(_shown(key) for key in _leaves(data, ()))
                   if key not in waiting and key not in refused and key]
        parts = []
        if waiting:
            parts.append(f"trusting applies {', '.join(waiting)}")
        if already:
            parts.append(f"applied already (they only tighten): {', '.join(already)}")
        if refused:
            parts.append(f"never from a project: {', '.join(refused)} (set "
                         f"{'it' if len(refused) == 1 else 'them'} in {user_config_path()})")
        lines.append(f"{name}: {'; '.join(parts) if parts else 'empty'}")
    return lines
