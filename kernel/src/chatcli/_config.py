"""Settings: defaults < user file < project file < ``CHATCLI_*`` variables < command-line flags.

The user file is ``config.toml`` in :func:`chatcli.config_dir`; the project file is
``.chatcli/config.toml`` in the nearest folder that has one. Every layer is validated; a bad value
raises :class:`chatcli.ConfigError` naming the file, the key and the fix. The project file's
layer holds only what a project may set (:func:`chatcli._layers.layers`, :mod:`chatcli._trust`).

Environment variables: ``CHATCLI_PROVIDER``, ``CHATCLI_MODEL``, ... map to top-level keys, and a
double underscore reaches into tables: ``CHATCLI_PROVIDERS__OPENAI__BASE_URL``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.fields import FieldInfo

from chatcli._errors import ConfigError, did_you_mean
from chatcli._i18n import translation
from chatcli._layers import ENV_SOURCE, MAX_DEPTH, layers, merge_layers, origin_of
from chatcli._tomlfile import toml_value
from chatcli._types import _new_dict, _new_list

__all__ = ["ModelSettings", "ProviderSettings", "Settings", "load_settings", "origin_of",
           "toml_value", "unknown_setting", "validate_setting"]
_, ngettext = translation(__name__)

class ProviderSettings(BaseModel):
    """Per-provider settings, under ``[providers.NAME]``."""

    model_config = ConfigDict(extra="allow")

    model: str | None = Field(None, description=_("Default model for this provider."))
    base_url: str | None = Field(None, description=_("Override the service URL."))
    api_key_env: str | None = Field(None, description=_("Variable to read the API key from."))
    timeout: float = Field(120.0, gt=0, description=_("Seconds to wait for a response."))
    max_retries: int = Field(3, ge=0, le=10, description=_("Retries on 429/5xx/network errors."))
    tool_calls: Literal["auto", "native", "text"] = Field(
        "auto", description=_("How tools are offered: native (the API's tool calls), text "
                              "(described in the prompt, for servers without tool support), "
                              "auto (what the provider supports)."))
    tools: bool | Literal["auto"] = Field(
        "auto", description=_("Whether the model is offered tools at all: true; false (a lean "
                              "request: no tools, only the essential prompt sections); auto (the "
                              "provider's uses_tools capability: off for the offline model)."))
    context_window: int | None = Field(
        None, ge=1_000, le=10_000_000,
        description=_("Tokens the model's context holds (overrides what the provider says)."))


class ModelSettings(BaseModel):
    """One entry of the model table, ``[models."PATTERN"]``: what a model's context holds and
    what its tokens cost (USD per million), for the models the providers do not describe.

    ``PATTERN`` is ``provider/model`` (``openai/gpt-5.4-mini``) or a bare model name, and may
    hold ``*``/``?`` globs (``"openai/gpt-5*"``); the entry with the most literal characters
    that matches wins. Prices need ``input`` and ``output``; the cache prices left out follow
    from ``input`` (reads 0.1×, writes 1.25×, one-hour writes 2×).
    """

    model_config = ConfigDict(extra="forbid")

    context_window: int | None = Field(
        None, ge=1_000, le=10_000_000, description=_("Tokens the model's context holds."))
    input: float | None = Field(None, ge=0, description=_("USD per million fresh input tokens."))
    output: float | None = Field(None, ge=0, description=_("USD per million output tokens."))
    cache_read: float | None = Field(
        None, ge=0, description=_("USD per million cached tokens read."))
    cache_write: float | None = Field(
        None, ge=0, description=_("USD per million tokens written to the cache (5 minutes)."))
    cache_write_1h: float | None = Field(
        None, ge=0, description=_("USD per million tokens written to the cache for an hour."))


def model_pattern_score(pattern: str, provider: str, model: str) -> int | None:
    """How well ``pattern`` of the model table names ``provider``'s ``model``: its count of
    literal characters (more for an exact name) when it matches, else None.

    A pattern with a ``/`` is read against ``provider/model``, and also against a model id that
    itself holds a vendor (OpenRouter's ``openai/gpt-5.4-mini``); one without, against the
    model name alone.
    """
    from fnmatch import fnmatchcase

    names = [f"{provider}/{model}", model] if "/" in pattern else [model]
    if not any(fnmatchcase(name, pattern) for name in names if "/" in name or "/" not in pattern):
        return None
    return sum(ch not in "*?[]" for ch in pattern) + (1_000 if pattern in names else 0)


class Settings(BaseModel):
    """chatcli's effective settings. Unknown top-level tables belong to plugins and are kept."""

    model_config = ConfigDict(extra="allow", validate_assignment=True)

    provider: str | None = Field(None, description=_("Provider to use (see `chatcli models`)."))
    model: str | None = Field(None, description=_("Model to use with that provider."))
    system: str | None = Field(None, description=_("Extra system prompt text."))
    language: str | None = Field(
        None, pattern=r"^[a-zA-Z]{2,3}([_-]([a-zA-Z]{2}|[0-9]{3}))?$",
        description=_("chatcli's language (pt_BR, en) when CHATCLI_LANG and the locale "
                      "(LC_ALL, LC_MESSAGES, LANG) name none."))
    answer_language: str = Field(
        "auto", pattern=r"^(auto|off|[a-zA-Z]{2,3}([_-]([a-zA-Z]{2}|[0-9]{3}))?)$",
        description=_("The language the model is asked to answer in: auto (the user's), off, "
                      "or a language code."))
    max_turns: int = Field(20, ge=1, le=500, description=_("Model calls allowed in one turn."))
    max_tokens: int | None = Field(None, gt=0, description=_("Limit on output tokens per call."))
    temperature: float | None = Field(None, ge=0, le=2, description=_("Sampling temperature."))
    markdown: bool = Field(True, description=_("Render answers as markdown on a terminal."))
    max_checkpoints: int = Field(20, ge=1, le=1000, description=_("Rewind checkpoints kept."))
    response_timeout: float = Field(
        120.0, gt=0, le=86_400,
        description=_("Seconds an answer may take to start (retries included), and the longest "
                      "silence in the middle of one."))
    tool_output_max: int = Field(
        30_000, ge=1_000, le=1_000_000,
        description=_("Characters one tool result may send to the model (head and tail kept)."))
    turn_tool_output_max: int = Field(
        150_000, ge=1_000, le=10_000_000,
        description=_("Characters all tool results of one turn may send to the model."))
    max_repeated_calls: int = Field(
        3, ge=2, le=100,
        description=_("A turn stops when the model makes the same tool calls this many times "
                      "in a row."))
    allowed_dirs: list[str] = Field(
        default_factory=_new_list, json_schema_extra={"kind": _('a list of folders (["~/notes"])')},
        description=_("Folders outside the workspace that tools may read and write (from a "
                      "project's config only inside the project, and only once it is trusted)."))
    max_calls_per_step: int = Field(
        16, ge=1, le=256, description=_("Tool calls one model answer may make (more are refused)."))
    compact_threshold: float = Field(
        0.75, ge=0, le=1,
        description=_("Compact the chat's view when it fills this share of the context window "
                      "(0: never by itself)."))
    agent_compact_threshold: float = Field(
        0.6, ge=0, le=1,
        description=_("The same for agent runs, checked before every step (0: never)."))
    compact_keep_recent: int = Field(
        8, ge=0, le=200, description=_("Newest messages a compaction keeps verbatim."))
    compact_timeout: float = Field(
        600.0, gt=0, le=86_400,
        description=_("Seconds a model-written summary may take before compaction falls back."))
    context_window: int | None = Field(
        None, ge=1_000, le=10_000_000,
        description=_("Tokens the model's context holds (default: what the provider says, "
                      "else 128,000)."))
    providers: dict[str, ProviderSettings] = Field(default_factory=_new_dict)
    models: dict[str, ModelSettings] = Field(
        default_factory=_new_dict,
        description=_('The model table: [models."provider/model"] context_window, input, '
                      'output… (glob patterns allowed).'))

    def provider_settings(self, name: str) -> ProviderSettings:
        """The ``[providers.NAME]`` table, or defaults when absent."""
        return self.providers.get(name) or ProviderSettings()

    def model_settings(self, provider: str, model: str, having: str | None = None
                       ) -> tuple[str, ModelSettings] | None:
        """The ``[models."PATTERN"]`` entry that best names ``provider/model`` (an exact name
        first, else the pattern with the most literal characters), with its pattern; or None.
        ``having`` considers only the entries that set that field (``"context_window"``)."""
        best: tuple[int, str] | None = None
        for pattern, entry in self.models.items():
            if having is not None and getattr(entry, having, None) is None:
                continue
            score = model_pattern_score(pattern, provider, model)
            if score is not None and (best is None or score > best[0]):
                best = (score, pattern)
        return (best[1], self.models[best[1]]) if best else None

    def plugin_table(self, name: str) -> dict[str, Any]:
        """A plugin's own top-level table (``[NAME]``), or an empty dict."""
        value = (self.model_extra or {}).get(name)
        return value if isinstance(value, dict) else {}


def unknown_setting(key: str, where: str = "") -> ConfigError:
    """The error for a top-level ``key`` that is no setting, suggesting the closest one."""
    hint = did_you_mean(key, Settings.model_fields, _("see `chatcli config list`"))
    message = _("unknown setting '{key}'").format(key=key)
    return ConfigError(f"{where}: {message}" if where else message, hint)


def _reject_unknown_values(data: dict[str, Any], source: str) -> None:
    """A top-level key that is neither a setting nor a table is a typo (plugins own tables)."""
    for key, value in data.items():
        if key not in Settings.model_fields and not isinstance(value, dict):
            raise unknown_setting(key, source)


_KINDS = (int, float, bool, str)
_BOUNDS = ("gt", "ge", "lt", "le")


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
    extra = field.json_schema_extra if field is not None else None
    if isinstance(extra, dict) and isinstance(extra.get("kind"), str):
        return str(extra["kind"])
    kinds = [] if field is None else [
        kind for kind in (get_args(field.annotation) or (field.annotation,))
        if kind is not type(None)]
    if len(kinds) != 1 or kinds[0] not in _KINDS:
        return str(error["msg"]).removeprefix("Input should be ")
    assert field is not None
    bounds = {name: getattr(item, name) for item in field.metadata for name in _BOUNDS
              if getattr(item, name, None) is not None}
    words = {int: _("a whole number"), float: _("a number"), bool: _("true or false"),
             str: _("text")}[kinds[0]]
    if "ge" in bounds and "le" in bounds:
        return _("{kind} from {low} to {high}").format(kind=words, low=bounds["ge"],
                                                       high=bounds["le"])
    labels = {"gt": _("above"), "ge": _("at least"), "lt": _("below"), "le": _("at most")}
    limits = [f"{labels[name]} {bounds[name]}" for name in _BOUNDS if name in bounds]
    return " ".join([words, " {} ".format(_("and")).join(limits)]).strip()


def _unknown_entry_key(error: Any, where: str) -> ConfigError | None:
    """A key a closed table (a ``[models."PATTERN"]`` entry) does not have, named with the
    closest one; None for any other error."""
    if error.get("type") != "extra_forbidden":
        return None
    loc = [str(p) for p in error["loc"]]
    fields = list(ModelSettings.model_fields)
    return ConfigError(where + _("unknown setting '{key}'").format(key=".".join(loc)), did_you_mean(
        loc[-1], fields, _("a model entry takes {keys}").format(keys=", ".join(fields))))


def _validate(data: dict[str, Any], source: str) -> Settings:
    if source not in (ENV_SOURCE, "command line", "configuration"):
        _reject_unknown_values(data, source)  # a file: every key in it was written by someone
    try:
        return Settings.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        unknown = _unknown_entry_key(first, f"{source}: ")
        if unknown is not None:
            raise unknown from None
        if source == ENV_SOURCE:
            variable = "CHATCLI_" + "__".join(str(p).upper() for p in first["loc"])
            fix = _("fix or unset {variable}").format(variable=variable)
        else:
            fix = _("fix it with `chatcli config set {key} VALUE` or edit the file").format(key=key)
        raise ConfigError(_("{source}: invalid value for '{key}': it must be {kind}, not "
                            "{value!r:.60}").format(source=source, key=key, kind=_expected(first),
                                                    value=first["input"]), fix) from None


def load_settings(flags: dict[str, Any] | None = None, *, cwd: Path | None = None,
                  environ: dict[str, str] | None = None) -> Settings:
    """Build the effective :class:`Settings` from every layer (flags win).

    ``flags`` holds only options given on the command line (None values are ignored).
    """
    try:
        found = layers(flags, cwd, environ)
        for source, layer in found:
            _validate(layer, source)  # name the layer that holds the bad value
        return _validate(merge_layers(found), "configuration")
    except RecursionError:
        raise ConfigError(_("the configuration is nested too deeply to read"),
                          _("flatten the tables in your config files (`chatcli config path`)")
                          ) from None


# ------------------------------------------------------------------------------ editing


def validate_setting(data: dict[str, Any], key: str, raw: str, source: str) -> Any:
    """Put the value of the text ``raw`` at dotted ``key`` of ``data`` (a settings file's
    table, read from ``source``; changed in place) and validate it: the value stored is
    returned. What chatcli-config-edit's ``set_value`` checks before it writes the file.

    ``raw`` is read as a TOML value (``9``, ``true``, ``["a"]``) when the setting takes that
    type, else as plain text. Raises :class:`~chatcli.ConfigError`: a value the setting does not
    take blames the value (``max_turns must be a whole number from 1 to 500; you gave 'x'``); a
    typo of a setting names the closest one; another bad key of the file names ``source``.
    """
    parts = key.split(".")
    if len(parts) > MAX_DEPTH:
        raise ConfigError(_("'{key}…' is nested more than {depth} levels deep").format(
            key=key[:40], depth=MAX_DEPTH), _("no setting is nested that deep; see `chatcli "
                                              "config list`"))
    cursor = data
    for part in parts[:-1]:
        nxt = cursor.setdefault(part, {})
        if not isinstance(nxt, dict):
            raise ConfigError(_("'{part}' in '{key}' is a value, not a table").format(
                part=part, key=key))
        cursor = nxt
    cursor[parts[-1]] = toml_value(raw)
    _reject_unknown_values(data, source)
    errors = _value_errors(data, parts)
    if errors and cursor[parts[-1]] != raw:
        cursor[parts[-1]] = raw  # e.g. `config set system 1`: the field wants text
        errors = _value_errors(data, parts)
    if errors:
        raise _bad_value(key, raw, errors[0])
    if errors is not None:  # valid value, but another key of the file is not
        _validate(data, source)
    return cursor[parts[-1]]


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
    unknown = _unknown_entry_key(error, "")
    if unknown is not None:
        return unknown
    loc = [str(p) for p in error["loc"]]
    if len(loc) < len(key.split(".")):
        name = ".".join(loc)
        return ConfigError(_("'{name}' is a setting, not a table").format(name=name),
                           _("set it directly: chatcli config set {name} VALUE").format(name=name))
    field = _field(tuple(loc))
    default = None if field is None else field.get_default()
    if default is not None and not isinstance(default, dict | list):
        text = ("true" if default else "false") if isinstance(default, bool) else str(default)
        hint = _("e.g. `chatcli config set {key} {value}` (the default)").format(key=key,
                                                                                value=text)
    else:
        hint = _("`chatcli config unset {key}` goes back to the default").format(key=key)
    return ConfigError(_("{key} must be {kind}; you gave {value!r:.60}").format(
        key=key, kind=_expected(error), value=raw), hint)
