"""The ``[coder]`` settings (:class:`CoderSettings`), apart from what the tools share
(:mod:`._common`) so that configuring the plugin and describing its tools import no more than
this."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = ["CoderSettings", "SandboxMode", "coder_settings", "parse_coder_settings"]

_, ngettext = translation(__name__)

#: The kinds of sandbox ``[coder] sandbox`` may name.
SandboxMode = Literal["auto", "bwrap", "off"]


class CoderSettings(NamedTuple):
    """The ``[coder]`` table. (A NamedTuple: immutable like a frozen dataclass, and a fifth of
    the cost to make at import, which every run pays.)"""

    sandbox: SandboxMode = "auto"
    exec_timeout: float = 120.0
    exec_timeout_max: float = 600.0
    sandbox_writable: tuple[str, ...] = ()
    list_credentials: bool = False
    #: environment variables commands get though they look like secrets
    pass_env: tuple[str, ...] = ()


_SETTINGS_CACHE: dict[str, CoderSettings] = {}


def parse_coder_settings(table: dict[str, Any]) -> CoderSettings:
    """The ``[coder]`` table checked; a wrong key or value raises ValueError naming it."""
    key = json.dumps(table, sort_keys=True, default=str)
    cached = _SETTINGS_CACHE.get(key)
    if cached is not None:
        return cached
    known = set(CoderSettings._fields)
    unknown = sorted(set(table) - known)
    if unknown:
        import difflib  # only to name a misspelt key

        close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
        message = (_("[coder] has no setting '{key}' (did you mean '{close}'?); known: {known}")
                   if close else _("[coder] has no setting '{key}'; known: {known}"))
        raise ValueError(message.format(key=unknown[0], close=close[0] if close else "",
                                        known=", ".join(sorted(known))))
    values: dict[str, Any] = {}
    sandbox = table.get("sandbox", "auto")
    if sandbox not in ("auto", "bwrap", "off"):
        raise ValueError(_('[coder] sandbox must be "auto", "bwrap" or "off", not {value!r}')
                         .format(value=sandbox))
    values["sandbox"] = sandbox
    for name in ("exec_timeout", "exec_timeout_max"):
        if name in table:
            value = table[name]
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(_("[coder] {key} must be a positive number of seconds, not "
                                   "{value!r}").format(key=name, value=value))
            values[name] = float(value)
    writable = table.get("sandbox_writable", [])
    if not isinstance(writable, list) or not all(isinstance(w, str) for w in writable):
        raise ValueError(_("[coder] sandbox_writable must be a list of folder paths"))
    values["sandbox_writable"] = tuple(writable)
    credentials = table.get("list_credentials", False)
    if not isinstance(credentials, bool):
        raise ValueError(_("[coder] list_credentials must be true or false"))
    values["list_credentials"] = credentials
    pass_env = table.get("pass_env")
    if pass_env in (None, [], ()):  # (most runs: chatcli_workspace is not imported for nothing)
        values["pass_env"] = ()
    else:
        from chatcli_workspace import pass_env_names

        values["pass_env"] = pass_env_names(pass_env)
    parsed = CoderSettings(**values)
    if parsed.exec_timeout > parsed.exec_timeout_max:
        parsed = CoderSettings(**{**values, "exec_timeout": parsed.exec_timeout_max})
    _SETTINGS_CACHE[key] = parsed
    return parsed


def coder_settings(settings: Settings) -> CoderSettings:
    """The ``[coder]`` table of ``settings``."""
    return parse_coder_settings(settings.plugin_table("coder"))
