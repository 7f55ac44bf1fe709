"""The managed policy: an administrator's settings file that user and project settings,
``CHATCLI_*`` variables and flags cannot loosen.

The file is ``/etc/chatcli/managed.toml``; where the system has none, the one
``CHATCLI_MANAGED_CONFIG`` names (a container, a test) — a user's variable never replaces the
system's file. It is a settings file like ``config.toml``, and every value it sets is *managed*:
a list whose :class:`~chatcli.SettingRule` merges by ``union`` (deny rules) keeps its items
whatever the layers below say; a ``min`` number may only be lowered; any other value is fixed.
A layer below that loosens one is a :class:`~chatcli.ConfigError` naming the managed file.
Plugins give the values their meaning (:func:`managed_list` reads one); the kernel's own are
``[policy] providers``, ``base_urls``, ``plugins`` and ``refused_plugins``. With no file this
costs one ``stat``.
"""

from __future__ import annotations

import os
from typing import Any

from chatcli._errors import ConfigError
from chatcli._i18n import translation

__all__ = ["MANAGED_ENV", "SYSTEM_FILE", "check_managed", "managed_error", "managed_layer",
           "managed_list", "managed_policy"]

SYSTEM_FILE = "/etc/chatcli/managed.toml"
MANAGED_ENV = "CHATCLI_MANAGED_CONFIG"
_cache: dict[str, tuple[tuple[int, ...], dict[str, Any]]] = {}
_, ngettext = translation(__name__)


def managed_policy() -> tuple[str, dict[str, Any]] | None:
    """``(the managed file, its data)``, or None when there is none. A file that cannot be read
    or is not TOML is a :class:`~chatcli.ConfigError` naming it (never an unmanaged run)."""
    path = SYSTEM_FILE if os.path.lexists(SYSTEM_FILE) else os.environ.get(MANAGED_ENV)
    if not path:
        return None
    try:
        info = os.stat(path)
    except OSError as err:
        raise ConfigError(_("{path}: the managed policy cannot be read ({reason})").format(
            path=path, reason=err.strerror), _("restore the file, or ask your administrator")
        ) from None
    sig = (info.st_mtime_ns, info.st_size, info.st_ino, info.st_ctime_ns)
    cached = _cache.get(path)
    if cached is None or cached[0] != sig:
        from chatcli._tomlfile import read_toml

        cached = _cache[path] = (sig, read_toml(path))
    return path, cached[1]


def managed_error(key: str, where: str, path: str) -> ConfigError:
    """The error for ``where`` (a file, variable, flag or command) loosening ``key``."""
    return ConfigError(_("{where}: {key} is set by the managed policy {path} and cannot be "
                         "loosened").format(where=where, key=key, path=path),
                       _("remove that setting, or ask your administrator"))


def managed_list(key: str) -> tuple[str, list[str]] | None:
    """The managed file and its list of text at dotted ``key`` (``"policy.providers"``), or
    None when the file does not set it; a value that is not a list of text is a
    :class:`~chatcli.ConfigError` naming the file."""
    policy = managed_policy()
    if policy is None:
        return None
    from chatcli._trust import _at

    value = _at(policy[1], tuple(key.split(".")))
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(_("{path}: {key} must be a list of text, not {value!r:.60}").format(
            path=policy[0], key=key, value=value),
            _("fix the managed file, or ask your administrator"))
    return policy[0], value


def _leaves(data: dict[str, Any], path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for key, value in data.items():
        here = (*path, str(key))
        out.extend(_leaves(value, here) if isinstance(value, dict) else [here])
    return out


def _read(value: Any, like: Any) -> Any:
    """A variable's text read as the managed value's type (``"5"`` as 5, ``"on"`` as True)."""
    if not isinstance(value, str) or isinstance(like, str):
        return value
    if isinstance(like, bool):
        return {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False,
                "no": False, "off": False}.get(value.strip().lower(), value)
    from chatcli._tomlfile import toml_value

    return toml_value(value)


def _loosens(merge: str, managed: Any, value: Any) -> bool:
    if merge == "union":
        return False  # the managed items are added whatever the value is
    value = _read(value, managed)
    if merge == "min" and isinstance(value, int | float) and not isinstance(value, bool):
        if not isinstance(managed, int | float) or isinstance(managed, bool):
            return True  # a cap that is no number (`cost.limit = ""`): nothing gets under it
        return value > managed
    return bool(value != managed)


def check_managed(where: str, data: dict[str, Any], rules: Any = None) -> None:
    """Raise :class:`~chatcli.ConfigError` when the settings ``data`` of ``where`` (a layer, or
    what ``chatcli config set`` would write) loosen a managed value; ``rules`` as
    :func:`chatcli.setting_rules` gives them (default: the command line's)."""
    policy = managed_policy()
    if policy is None or not data:
        return
    from chatcli._trust import _at, _rule_for, setting_rules

    kernel, plugins = rules or setting_rules()
    for key in _leaves(policy[1]):
        value = _at(data, key)
        if value is not None and _loosens(_rule_for(kernel, plugins, key).merge,
                                          _at(policy[1], key), value):
            shown = ("CHATCLI_" + "__".join(p.upper() for p in key)
                     if where.startswith("environment") else where)
            raise managed_error(".".join(key), shown, policy[0])


def managed_layer(path: str, data: dict[str, Any], below: dict[str, Any]) -> dict[str, Any]:
    """The managed file's layer over the merged layers ``below`` (checked already): a ``union``
    list holds their items and the managed ones; a ``min`` number they lowered stays theirs."""
    from chatcli._trust import _at, _put, _rule_for, setting_rules

    kernel, plugins = setting_rules()
    layer: dict[str, Any] = {}
    for key in _leaves(data):
        value, lower = _at(data, key), _at(below, key)
        merge = _rule_for(kernel, plugins, key).merge
        if merge == "min" and lower is not None:
            continue
        if merge == "union" and isinstance(value, list) and lower is not None:
            lower = _read(lower, value)  # a variable's '["a"]'
            base = lower if isinstance(lower, list) else [lower]
            value = [*base, *(item for item in value if item not in base)]
        _put(layer, key, value)
    return layer
