"""Settings: defaults < user file < project file < ``CHATCLI_*`` variables < command-line flags.

The user file is ``config.toml`` in :func:`chatcli.config_dir`; the project file is
``.chatcli/config.toml`` in the nearest folder that has one. Every layer is validated; a bad value
raises :class:`chatcli.ConfigError` naming the file, the key and the fix.

Environment variables: ``CHATCLI_PROVIDER``, ``CHATCLI_MODEL``, ... map to top-level keys, and a
double underscore reaches into tables: ``CHATCLI_PROVIDERS__OPENAI__BASE_URL``.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from chatcli._errors import ConfigError
from chatcli._paths import atomic_write, config_dir, find_project_dir

__all__ = [
    "ProviderSettings",
    "Settings",
    "get_value",
    "load_settings",
    "origin_of",
    "project_config_path",
    "set_value",
    "unknown_setting",
    "unset_value",
    "user_config_path",
]

#: How errors name the ``CHATCLI_*`` layer.
ENV_SOURCE = "environment (CHATCLI_*)"

# Variables that look like settings but belong to other parts of chatcli.
_NOT_SETTINGS = {
    "CHATCLI_CONFIG_DIR",
    "CHATCLI_DATA_DIR",
    "CHATCLI_CACHE_DIR",
    "CHATCLI_PLUGINS",
    "CHATCLI_DISABLE_PLUGINS",
    "CHATCLI_TRACE_HOOKS",
    "CHATCLI_DEBUG",
}


class ProviderSettings(BaseModel):
    """Per-provider settings, under ``[providers.NAME]``."""

    model_config = ConfigDict(extra="allow")

    model: str | None = Field(None, description="Default model for this provider.")
    base_url: str | None = Field(None, description="Override the service URL.")
    api_key_env: str | None = Field(None, description="Variable to read the API key from.")
    timeout: float = Field(120.0, gt=0, description="Seconds to wait for a response.")
    max_retries: int = Field(3, ge=0, le=10, description="Retries on 429/5xx/network errors.")


class Settings(BaseModel):
    """chatcli's effective settings. Unknown top-level tables belong to plugins and are kept."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    provider: str | None = Field(None, description="Provider to use (see `chatcli models`).")
    model: str | None = Field(None, description="Model to use with that provider.")
    system: str | None = Field(None, description="Extra system prompt text.")
    max_turns: int = Field(20, ge=1, le=500, description="Model calls allowed in one turn.")
    max_tokens: int | None = Field(None, gt=0, description="Limit on output tokens per call.")
    temperature: float | None = Field(None, ge=0, le=2, description="Sampling temperature.")
    markdown: bool = Field(True, description="Render answers as markdown on a terminal.")
    max_checkpoints: int = Field(20, ge=1, le=1000, description="Rewind checkpoints kept.")
    response_timeout: float = Field(
        120.0, gt=0, le=86_400,
        description="Seconds an answer may take to start (retries included), and the longest "
                    "silence in the middle of one.")
    providers: dict[str, ProviderSettings] = Field(default_factory=dict)

    def provider_settings(self, name: str) -> ProviderSettings:
        """The ``[providers.NAME]`` table, or defaults when absent."""
        return self.providers.get(name) or ProviderSettings()

    def plugin_table(self, name: str) -> dict[str, Any]:
        """A plugin's own top-level table (``[NAME]``), or an empty dict."""
        value = (self.model_extra or {}).get(name)
        return value if isinstance(value, dict) else {}


def user_config_path() -> Path:
    """The user configuration file."""
    return config_dir() / "config.toml"


def project_config_path(start: Path | None = None) -> Path | None:
    """The project configuration file, if a ``.chatcli`` folder exists at or above ``start``."""
    project = find_project_dir(start)
    return project / ".chatcli" / "config.toml" if project else None


# ------------------------------------------------------------------------------ loading


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(
            f"{path}: invalid TOML ({err})", "fix the syntax or remove the file"
        ) from None
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start})",
            "save the file as UTF-8, or remove it",
        ) from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror})",
                          "make it a readable file (e.g. chmod 644 it), or remove it") from None


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
        path = [p.lower() for p in name[len("CHATCLI_") :].split("__") if p]
        if not path:
            continue
        cursor = layer
        for part in path[:-1]:
            cursor = cursor.setdefault(part, {})
        cursor[path[-1]] = value
    return layer


def unknown_setting(key: str, where: str = "") -> ConfigError:
    """The error for a top-level ``key`` that is no setting, suggesting the closest one."""
    import difflib

    close = difflib.get_close_matches(key, list(Settings.model_fields), n=1)
    hint = f"did you mean '{close[0]}'?" if close else "see `chatcli config list`"
    return ConfigError(f"{where}{': ' if where else ''}unknown setting '{key}'", hint)


def _reject_unknown_values(data: dict[str, Any], source: str) -> None:
    """A top-level key that is neither a setting nor a table is a typo (plugins own tables)."""
    for key, value in data.items():
        if key not in Settings.model_fields and not isinstance(value, dict):
            raise unknown_setting(key, source)


def _validate(data: dict[str, Any], source: str) -> Settings:
    if source not in (ENV_SOURCE, "command line", "configuration"):
        _reject_unknown_values(data, source)  # a file: every key in it was written by someone
    try:
        return Settings.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        if source == ENV_SOURCE:
            variable = "CHATCLI_" + "__".join(str(p).upper() for p in first["loc"])
            fix = f"fix or unset {variable}"
        else:
            fix = f"fix it with `chatcli config set {key} VALUE` or edit the file"
        raise ConfigError(f"{source}: invalid value for '{key}': {first['msg']}", fix) from None


def _layers(flags: dict[str, Any] | None, cwd: Path | None,
            environ: dict[str, str] | None) -> list[tuple[str, dict[str, Any]]]:
    """Every settings layer, lowest precedence first: ``(where it comes from, its data)``."""
    environ = dict(os.environ if environ is None else environ)
    user_path = user_config_path()
    layers = [(str(user_path), _read_toml(user_path))]
    project_path = project_config_path(cwd)
    if project_path:
        layers.append((str(project_path), _read_toml(project_path)))
    layers.append((ENV_SOURCE, _env_layer(environ)))
    layers.append(("command line", {k: v for k, v in (flags or {}).items() if v is not None}))
    return layers


def load_settings(
    flags: dict[str, Any] | None = None,
    *,
    cwd: Path | None = None,
    environ: dict[str, str] | None = None,
) -> Settings:
    """Build the effective :class:`Settings` from every layer (flags win).

    ``flags`` holds only options given on the command line (None values are ignored).
    """
    try:
        return _load(_layers(flags, cwd, environ))
    except RecursionError:
        raise ConfigError("the configuration is nested too deeply to read",
                          "flatten the tables in your config files (`chatcli config path`)"
                          ) from None


def _load(layers: list[tuple[str, dict[str, Any]]]) -> Settings:
    merged: dict[str, Any] = {}
    # A model named in the same layer as a provider belongs to that provider: `--provider
    # ollama` over a file saying provider = "anthropic", model = "claude-…" must not send the
    # Claude model to Ollama (its [providers.ollama].model or default applies instead).
    # A model set on its own (no provider beside it) applies to whichever provider is used.
    paired_with: str | None = None
    for source, layer in layers:
        _validate(layer, source)  # name the layer that holds the bad value
        if "model" in layer:
            paired_with = layer.get("provider")
        elif paired_with is not None and layer.get("provider", paired_with) != paired_with:
            merged.pop("model", None)
            paired_with = None
        merged = _merge(merged, layer)
    return _validate(merged, "configuration")


def origin_of(key: tuple[str, ...], *, cwd: Path | None = None,
              environ: dict[str, str] | None = None) -> str:
    """Where the effective value of the setting at ``key`` comes from: a file's path, the
    variable that sets it, or "command line" ("configuration" when no layer sets it)."""
    try:
        layers = _layers(None, cwd, environ)
    except ConfigError:
        return "configuration"
    for source, data in reversed(layers):
        cursor: Any = data
        for part in key:
            cursor = cursor.get(part) if isinstance(cursor, dict) else None
        if cursor is not None:
            if source == ENV_SOURCE:
                return "CHATCLI_" + "__".join(part.upper() for part in key)
            return source
    return "configuration"


# ------------------------------------------------------------------------------ editing


def _parse_value(raw: str) -> Any:
    """Read ``raw`` as a TOML value when it is one (numbers, booleans, arrays), else a string."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def get_value(settings: Settings, key: str) -> Any:
    """The value at dotted ``key`` in the effective settings; raises ConfigError if absent."""
    data: Any = settings.model_dump(exclude_none=False)
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            raise ConfigError(f"unknown setting '{key}'", "see `chatcli config list`")
        data = data[part]
    return data


def _write(path: Path, text: str) -> None:
    """Write a config file atomically; an unwritable place is a ConfigError, not a crash."""
    try:
        atomic_write(path, text)
    except OSError as err:
        raise ConfigError(
            f"{path}: cannot write ({err.strerror})",
            "check the permissions of its folder, or point CHATCLI_CONFIG_DIR elsewhere",
        ) from None


def set_value(path: Path, key: str, raw: str) -> Any:
    """Set dotted ``key`` to ``raw`` in the TOML file at ``path`` (validated, atomic).

    ``raw`` is read as a TOML value (``9``, ``true``, ``["a"]``, ``"text"``) when the setting
    accepts that type, and as plain text otherwise.
    """
    import tomli_w

    data = _read_toml(path)
    parts = key.split(".")
    cursor = data
    for part in parts[:-1]:
        nxt = cursor.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"'{part}' in '{key}' is a value, not a table")
        cursor = nxt
    cursor[parts[-1]] = _parse_value(raw)
    try:
        _validate(data, str(path))
    except ConfigError:
        if cursor[parts[-1]] == raw:
            raise
        cursor[parts[-1]] = raw  # e.g. `config set system 1`: the field wants text
        _validate(data, str(path))
    _write(path, tomli_w.dumps(data))
    return cursor[parts[-1]]


def unset_value(path: Path, key: str) -> bool:
    """Remove dotted ``key`` from the TOML file at ``path``; returns False if it was not set."""
    import tomli_w

    data = _read_toml(path)
    parts = key.split(".")
    cursor: Any = data
    for part in parts[:-1]:
        cursor = cursor.get(part) if isinstance(cursor, dict) else None
    if not isinstance(cursor, dict) or parts[-1] not in cursor:
        return False
    del cursor[parts[-1]]
    _write(path, tomli_w.dumps(data))
    return True
