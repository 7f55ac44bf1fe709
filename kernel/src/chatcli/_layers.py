"""The settings layers as plain data: the config files, ``CHATCLI_*`` variables and flags.

Reading them needs no pydantic, so a command that only glances at a few settings
(``chatcli models``, through :func:`raw_settings`) stays as cheap as ``--help``;
:mod:`chatcli._config` validates them into :class:`~chatcli.Settings`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from chatcli._errors import ConfigError
from chatcli._i18n import translation
from chatcli._paths import project_directory
from chatcli._tomlfile import MAX_DEPTH, read_toml, user_config_path, user_file

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ENV_SOURCE", "MAX_DEPTH", "layers", "merge_layers", "origin_of", "parse_bool",
           "project_config_path", "raw_settings", "read_toml", "user_config_path"]
_, ngettext = translation(__name__)

#: How errors name the ``CHATCLI_*`` layer.
ENV_SOURCE = "environment (CHATCLI_*)"

# Variables that look like settings but belong to other parts of chatcli.
_NOT_SETTINGS = {"CHATCLI_CONFIG_DIR", "CHATCLI_DATA_DIR", "CHATCLI_CACHE_DIR", "CHATCLI_PLUGINS",
                 "CHATCLI_DISABLE_PLUGINS", "CHATCLI_TRACE_HOOKS", "CHATCLI_DEBUG",
                 "CHATCLI_MANAGED_CONFIG"}


def project_config_path(start: Path | None = None) -> Path | None:
    """The project configuration file, if a ``.chatcli`` folder exists at or above ``start``."""
    from pathlib import Path

    found = _project_file(start)
    return Path(found) if found else None


def _project_file(start: Path | None) -> str | None:
    project = project_directory(str(start) if start is not None else None)
    return os.path.join(project, ".chatcli", "config.toml") if project else None


# ------------------------------------------------------------------------------ loading


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _env_layer(environ: dict[str, str]) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    for name, value in environ.items():
        if not name.startswith("CHATCLI_") or name in _NOT_SETTINGS:
            continue
        for text in (name, value):
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:  # bytes the OS could not decode (kept as surrogates)
                shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                raise ConfigError(_("the variable {name} is not valid UTF-8").format(name=shown),
                                  _("set it again in UTF-8 text, or unset it")) from None
        path = [p.lower() for p in name[len("CHATCLI_") :].split("__") if p]
        if not path:
            continue
        if len(path) > MAX_DEPTH:
            raise ConfigError(_("{name}…: more than {depth} levels of __").format(
                name=name[:60], depth=MAX_DEPTH), _("unset it; no setting is nested that deep"))
        cursor = layer
        for part in path[:-1]:
            cursor = cursor.setdefault(part, {})
            if not isinstance(cursor, dict):  # CHATCLI_A=1 beside CHATCLI_A__B=2
                raise ConfigError(_("{name} sets a key inside a setting that is not a table"
                                    ).format(name=name), _("unset one of the two variables"))
        cursor[path[-1]] = value
    return layer


def layers(flags: dict[str, Any] | None = None, cwd: Path | None = None,
           environ: dict[str, str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Every settings layer, lowest precedence first: ``(where it comes from, its data)``.

    The project file is someone else's when the repository was cloned, so its layer holds only
    what a project may set (:mod:`chatcli._trust`): until the user trusts the project, only what
    tightens (deny rules, smaller budgets, merged with the user file's values); once trusted,
    every key but those no project may set (endpoints, keys, programs, whatever loosens
    security). The other layers are never filtered. The managed policy's file, when there is
    one, is the last layer, and a layer that loosens one of its values is a ConfigError
    (:mod:`chatcli._managed`)."""
    environ = dict(os.environ if environ is None else environ)
    user_path = user_file()  # text, not Path: `chatcli models` must not pay for pathlib
    layers = [(user_path, read_toml(user_path))]
    from chatcli._managed import check_managed, managed_layer, managed_policy

    policy = managed_policy()  # (no file: one stat)

    def check(where: str, data: dict[str, Any]) -> None:
        if policy:
            check_managed(where, data)

    check(user_path, layers[0][1])
    project_path = _project_file(cwd)
    if project_path:
        data = read_toml(project_path)
        check(project_path, data)  # what it tries, before the trust filter takes its part
        if data:  # filtered with the command line's host (its plugins' rules)
            from chatcli._trust import filter_project_layer, project_trust, setting_rules

            root = os.path.dirname(os.path.dirname(project_path))
            data = filter_project_layer(data, root, layers[0][1], project_trust(root).trusted,
                                        setting_rules())[0]
        layers.append((project_path, data))
    layers.append((ENV_SOURCE, _env_layer(environ)))
    layers.append(("command line", {k: v for k, v in (flags or {}).items() if v is not None}))
    if policy:  # the managed file: on top, and nothing below may loosen it
        for source, data in layers[-2:]:
            check(source, data)
        layers.append((policy[0], managed_layer(*policy, merge_layers(layers))))
    return layers


def merge_layers(layers: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The layers merged, later ones winning, tables merged key by key.

    A model named in the same layer as a provider belongs to that provider: ``--provider
    ollama`` over a file saying ``provider = "anthropic"``, ``model = "claude-…"`` must not send
    the Claude model to Ollama (its ``[providers.ollama].model`` or default applies instead). A
    model set on its own (no provider beside it) applies to whichever provider is used.
    """
    merged: dict[str, Any] = {}
    paired_with: str | None = None
    for _source, layer in layers:
        if "model" in layer:
            paired_with = layer.get("provider")
        elif paired_with is not None and layer.get("provider", paired_with) != paired_with:
            merged.pop("model", None)
            paired_with = None
        merged = _merge(merged, layer)
    return merged


def raw_settings() -> dict[str, Any]:
    """The config files and ``CHATCLI_*`` variables merged as plain data, not validated (no
    pydantic): for a registration hook that needs one of a plugin's values cheaply (the named
    pools of ``[fallback.pools]``). Values of variables are text. Raises
    :class:`~chatcli.ConfigError` for a file that cannot be read."""
    return merge_layers(layers())


def origin_of(key: tuple[str, ...], *, cwd: Path | None = None,
              environ: dict[str, str] | None = None) -> str:
    """Where the effective value of the setting at ``key`` comes from: a file's path, the
    variable that sets it, or "command line" ("configuration" when no layer sets it)."""
    try:
        found = layers(None, cwd, environ)
    except ConfigError:
        return "configuration"
    for source, data in found[::-1]:  # (mypy types the items of reversed() as Any)
        cursor: Any = data
        for part in key:
            cursor = cursor.get(part) if isinstance(cursor, dict) else None
        if cursor is not None:
            if source == ENV_SOURCE:
                return "CHATCLI_" + "__".join(part.upper() for part in key)
            return source
    return "configuration"


_WORDS = {"1": True, "true": True, "yes": True, "on": True,
          "0": False, "false": False, "no": False, "off": False}


def parse_bool(value: Any) -> bool | None:
    """A setting's value as a boolean: TOML's ``true``/``false``, ``0``/``1``, or text as an
    environment variable gives it (``true``, ``off``, ``yes``, ``0``…, any case); None for
    anything else (absent, or not a boolean), so the caller can report it or use its
    default."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return _WORDS.get(value.strip().lower()) if isinstance(value, str) else None
