"""Settings: defaults < user file < project file < ``CHATCLI_*`` variables < command-line flags.

The user file is ``config.toml`` in :func:`chatcli.config_dir`; the project file is
``.chatcli/config.toml`` in the nearest folder that has one. Every layer is validated; a bad value
raises :class:`chatcli.ConfigError` naming the file, the key and the fix.

Environment variables: ``CHATCLI_PROVIDER``, ``CHATCLI_MODEL``, ... map to top-level keys, and a
double underscore reaches into tables: ``CHATCLI_PROVIDERS__OPENAI__BASE_URL``.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

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


#: Tables and arrays nested deeper than this are refused when read: no setting needs a tenth of
#: it, and deeper data would overflow the recursion of every reader and writer after it.
MAX_DEPTH = 64


def _too_deep(data: Any) -> bool:
    """Whether ``data`` nests tables or arrays more than :data:`MAX_DEPTH` levels (iterative)."""
    stack = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        items = value.values() if isinstance(value, dict) else value
        stack.extend((item, depth + 1) for item in items if isinstance(item, dict | list))
    return False


def _toml_error(path: Path, err: tomllib.TOMLDecodeError) -> ConfigError:
    """A TOML syntax error as the file, line and column to fix."""
    text = str(err)
    where = re.search(r" \(at line (\d+), column (\d+)\)$", text)
    if where is None:
        return ConfigError(f"{path}: invalid TOML ({text})", "fix it in an editor")
    line, column = where.groups()
    return ConfigError(f"{path}, line {line}, column {column}: invalid TOML: "
                       f"{text[: where.start()]}", f"fix line {line} of the file in an editor")


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as err:
        raise _toml_error(path, err) from None
    except RecursionError:  # tomllib recurses on nested arrays and inline tables
        data = None
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{err.object[err.start]:02x} at offset {err.start})",
            "save the file as UTF-8, or remove it",
        ) from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror})",
                          "make it a readable file (e.g. chmod 644 it), or remove it") from None
    if data is None or _too_deep(data):
        raise ConfigError(f"{path}: tables or arrays nested more than {MAX_DEPTH} levels deep",
                          "flatten them in an editor")
    return data


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
                raise ConfigError(f"the variable {shown} is not valid UTF-8",
                                  "set it again in UTF-8 text, or unset it") from None
        path = [p.lower() for p in name[len("CHATCLI_") :].split("__") if p]
        if not path:
            continue
        if len(path) > MAX_DEPTH:
            raise ConfigError(f"{name[:60]}…: more than {MAX_DEPTH} levels of __",
                              "unset it; no setting is nested that deep")
        cursor = layer
        for part in path[:-1]:
            cursor = cursor.setdefault(part, {})
            if not isinstance(cursor, dict):  # CHATCLI_A=1 beside CHATCLI_A__B=2
                raise ConfigError(f"{name} sets a key inside a setting that is not a table",
                                  "unset one of the two variables")
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


_KINDS: dict[Any, str] = {int: "a whole number", float: "a number", bool: "true or false",
                          str: "text"}
_BOUNDS = (("gt", "above"), ("ge", "at least"), ("lt", "below"), ("le", "at most"))


def _field(loc: tuple[Any, ...]) -> FieldInfo | None:
    """The declared field at ``loc`` (a setting, or a ``providers.NAME`` key), if any."""
    if len(loc) == 1:
        return Settings.model_fields.get(str(loc[0]))
    if len(loc) == 3 and loc[0] == "providers":
        return ProviderSettings.model_fields.get(str(loc[2]))
    return None


def _expected(error: Any) -> str:
    """What the setting a pydantic ``error`` is about takes, in words: "a whole number from 1
    to 500", else pydantic's own words."""
    field = _field(tuple(error["loc"]))
    kinds = [] if field is None else [
        kind for kind in (get_args(field.annotation) or (field.annotation,))
        if kind is not type(None)]
    if len(kinds) != 1 or kinds[0] not in _KINDS:
        return str(error["msg"]).removeprefix("Input should be ")
    assert field is not None
    bounds = {name: getattr(item, name) for item in field.metadata for name, _ in _BOUNDS
              if getattr(item, name, None) is not None}
    words = _KINDS[kinds[0]]
    if "ge" in bounds and "le" in bounds:
        return f"{words} from {bounds['ge']} to {bounds['le']}"
    limits = [f"{label} {bounds[name]}" for name, label in _BOUNDS if name in bounds]
    return " ".join([words, " and ".join(limits)]).strip()


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
        raise ConfigError(f"{source}: invalid value for '{key}': it must be "
                          f"{_expected(first)}, not {first['input']!r:.60}", fix) from None


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


_HEADER = re.compile(r"\s*\[([^\[\]'\"]+)\]\s*(?:#.*)?$")
_KEY_LINE = re.compile(r"(\s*)([A-Za-z0-9_-]+)\s*=")
_COMMENT = re.compile(r"\s+#[^\"']*$")


def _edit_line(text: str, parts: list[str], value: Any) -> str | None:
    """``text`` with only the line of the key at ``parts`` changed (set to ``value``, removed
    when None) or added, so the file's comments and layout stay; None when it cannot tell."""
    import tomli_w

    table, key = parts[:-1], parts[-1]
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    section: list[str] | None = []
    found = last = None  # the key's line; the last line of its table
    for index, line in enumerate(lines):
        header = _HEADER.match(line)
        if header or line.lstrip().startswith("["):
            section = [p.strip() for p in header.group(1).split(".")] if header else None
            if section == table:
                last = index
            continue
        match = _KEY_LINE.match(line)
        if section == table and match:
            last = index
            if match.group(2) == key:
                found = index
    if value is None:
        return None if found is None else "".join(lines[:found] + lines[found + 1:])
    dumped = tomli_w.dumps({key: value})
    if not dumped.startswith(f"{key} = ") or dumped.count("\n") != 1:
        return None  # a table, or a value over several lines: rewrite the whole file
    if found is not None:
        old = lines[found].rstrip("\n")
        comment = _COMMENT.search(old)
        indent = _KEY_LINE.match(old).group(1)  # type: ignore[union-attr]
        lines[found] = indent + dumped.rstrip("\n") + (comment.group(0) if comment else "") + "\n"
    elif last is not None:
        lines.insert(last + 1, dumped)
    elif not table:
        first = next((i for i, line in enumerate(lines) if line.lstrip().startswith("[")),
                     len(lines))
        lines.insert(first, dumped)
    else:
        lines.append(("\n" if lines else "") + f"[{'.'.join(table)}]\n" + dumped)
    return "".join(lines)


def _edited(path: Path, parts: list[str], value: Any, expected: dict[str, Any]) -> str:
    """The new text of the config file at ``path``: one line edited when that gives exactly
    ``expected`` (the file's other lines and comments kept), else ``expected`` written anew."""
    import tomli_w

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    new = _edit_line(text, parts, value)
    try:
        if new is not None and tomllib.loads(new) == expected:
            return new
    except tomllib.TOMLDecodeError:
        pass
    return tomli_w.dumps(expected)


def _read_for_edit(path: Path) -> dict[str, Any]:
    """The file ``config set``/``unset`` edits; one it cannot read is left exactly as it is."""
    try:
        return _read_toml(path)
    except ConfigError as err:
        raise ConfigError(err.message, f"{err.hint}, then run the command again (the file was "
                                       "not changed)") from None


def _value_errors(data: dict[str, Any], parts: list[str]) -> list[Any] | None:
    """Validate ``data``: None when valid, else the errors about the key at ``parts`` (an empty
    list when only other keys are wrong)."""
    try:
        Settings.model_validate(data)
    except ValidationError as err:
        return [e for e in err.errors()
                if [str(p) for p in e["loc"][: len(parts)]] == parts[: len(e["loc"])]]
    return None


def _bad_value(key: str, raw: str, error: Any) -> ConfigError:
    """``config set KEY RAW`` gave a value the setting does not take: blame the value."""
    loc = [str(p) for p in error["loc"]]
    if len(loc) < len(key.split(".")):
        name = ".".join(loc)
        return ConfigError(f"'{name}' is a setting, not a table",
                           f"set it directly: chatcli config set {name} VALUE")
    field = _field(tuple(loc))
    default = None if field is None else field.get_default()
    if default is not None and not isinstance(default, dict | list):
        hint = f"e.g. `chatcli config set {key} {_toml_text(default)}` (the default)"
    else:
        hint = f"`chatcli config unset {key}` goes back to the default"
    return ConfigError(f"{key} must be {_expected(error)}; you gave {raw!r:.60}", hint)


def _toml_text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def set_value(path: Path, key: str, raw: str) -> Any:
    """Set dotted ``key`` to ``raw`` in the TOML file at ``path`` (validated, atomic).

    ``raw`` is read as a TOML value (``9``, ``true``, ``["a"]``, ``"text"``) when the setting
    accepts that type, and as plain text otherwise. A value the setting does not take is blamed
    on the value; a file that cannot be read (bad syntax) is left as it is, naming the line.
    Only the key's line changes, so comments stay.
    """
    data = _read_for_edit(path)
    parts = key.split(".")
    if len(parts) > MAX_DEPTH:
        raise ConfigError(f"'{key[:40]}…' is nested more than {MAX_DEPTH} levels deep",
                          "no setting is nested that deep; see `chatcli config list`")
    cursor = data
    for part in parts[:-1]:
        nxt = cursor.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(f"'{part}' in '{key}' is a value, not a table")
        cursor = nxt
    cursor[parts[-1]] = _parse_value(raw)
    _reject_unknown_values(data, str(path))
    errors = _value_errors(data, parts)
    if errors and cursor[parts[-1]] != raw:
        cursor[parts[-1]] = raw  # e.g. `config set system 1`: the field wants text
        errors = _value_errors(data, parts)
    if errors:
        raise _bad_value(key, raw, errors[0])
    if errors is not None:  # valid value, but another key of the file is not
        _validate(data, str(path))
    _write(path, _edited(path, parts, cursor[parts[-1]], data))
    return cursor[parts[-1]]


def unset_value(path: Path, key: str) -> bool:
    """Remove dotted ``key`` from the TOML file at ``path``; returns False if it was not set."""
    data = _read_for_edit(path)
    parts = key.split(".")
    cursor: Any = data
    for part in parts[:-1]:
        cursor = cursor.get(part) if isinstance(cursor, dict) else None
    if not isinstance(cursor, dict) or parts[-1] not in cursor:
        return False
    del cursor[parts[-1]]
    _write(path, _edited(path, parts, None, data))
    return True
