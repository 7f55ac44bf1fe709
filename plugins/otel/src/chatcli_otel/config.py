"""Whether telemetry is on, and where it goes: the ``[otel]`` table and the OpenTelemetry
variables. Standard library only (this module is read for every session, telemetry on or off).

Telemetry is on when ``[otel] enabled = true``, or when it is not set and an endpoint is
configured: ``[otel] endpoint`` or one of ``OTEL_EXPORTER_OTLP_ENDPOINT`` /
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``. ``[otel] enabled = false`` and ``OTEL_SDK_DISABLED=true``
turn it off whatever else says. The endpoint and the headers are never taken from a project's
config (see :func:`chatcli_otel.plugin.register_setting_rules`) and never written anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chatcli import translation

__all__ = ["ENDPOINT_VARIABLES", "OtelConfig", "header_values", "read_config"]

#: The variables whose presence turns telemetry on (the exporters read them themselves).
ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")

#: The variables holding request headers (``key=value,key2=value2``, values URL-encoded).
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
                    "OTEL_EXPORTER_OTLP_METRICS_HEADERS")

#: Seconds the end of a session may wait for the last spans and metrics to leave.
DEFAULT_TIMEOUT = 2.0

_, ngettext = translation(__name__)

_KEYS = ("enabled", "endpoint", "headers", "capture_content", "timeout", "metrics")


@dataclass(frozen=True)
class OtelConfig:
    """What the ``[otel]`` table and the environment say.

    :param enabled: whether spans and metrics are made and exported.
    :param endpoint: the collector's OTLP/HTTP base URL from ``[otel] endpoint`` (``/v1/traces``
        and ``/v1/metrics`` are added), or None to let the exporters read the ``OTEL_*``
        variables (their default is ``http://localhost:4318``).
    :param headers: extra request headers from ``[otel] headers`` (with
        ``OTEL_EXPORTER_OTLP_HEADERS``, which the exporters read, for tokens).
    :param capture_content: put prompts, answers and tool arguments and results in spans.
    :param timeout: seconds an export, and the flush at the end of a session, may take.
    :param metrics: export metrics as well as traces.
    """

    enabled: bool = False
    endpoint: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    capture_content: bool = False
    timeout: float = DEFAULT_TIMEOUT
    metrics: bool = True


def _flag(table: Mapping[str, Any], key: str, default: bool | None) -> bool | None:
    from chatcli import ConfigError, parse_bool

    if key not in table:
        return default
    value = parse_bool(table[key])
    if value is None:
        raise ConfigError(
            _("[otel] {key} must be true or false, not {value!r}").format(key=key,
                                                                          value=table[key]),
            _("set [otel] {key} = true (or false) in config.toml").format(key=key))
    return value


def read_config(table: Mapping[str, Any], environ: Mapping[str, str] | None = None
                ) -> OtelConfig:
    """The configuration from the ``[otel]`` ``table`` and ``environ`` (the process's).

    Raises :class:`chatcli.ConfigError` naming the key and the fix for a wrong value. Nothing
    in the message repeats the endpoint or a header (they may hold credentials).
    """
    from chatcli import ConfigError

    env = os.environ if environ is None else environ
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(_("[otel] has no setting {key!r}").format(key=unknown[0][:40]),
                          _("the [otel] settings are {keys}").format(keys=", ".join(_KEYS)))
    endpoint = table.get("endpoint")
    if endpoint is not None and (not isinstance(endpoint, str)
                                 or not endpoint.startswith(("http://", "https://"))):
        raise ConfigError(_("[otel] endpoint must be an http:// or https:// URL (the collector's "
                            "OTLP/HTTP address)"), _('set [otel] endpoint = "http://HOST:4318"'))
    headers = table.get("headers", {})
    if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()):
        raise ConfigError(_("[otel] headers must be a table of text values"),
                          _('[otel.headers] then a line like authorization = "Bearer …"'))
    timeout = table.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 60:
        raise ConfigError(_("[otel] timeout must be a number of seconds between 0 and 60"),
                          _("set [otel] timeout = {seconds:g}").format(seconds=DEFAULT_TIMEOUT))
    configured = bool(endpoint) or any(env.get(name, "").strip() for name in ENDPOINT_VARIABLES)
    enabled = _flag(table, "enabled", None)
    if enabled is None:
        enabled = configured
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        enabled = False
    return OtelConfig(
        enabled=enabled,
        endpoint=endpoint.rstrip("/") if isinstance(endpoint, str) else None,
        headers=tuple(sorted(headers.items())),
        capture_content=bool(_flag(table, "capture_content", False)),
        timeout=float(timeout),
        metrics=bool(_flag(table, "metrics", True)),
    )


def header_values(config: OtelConfig, environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of every header telemetry sends (``[otel] headers`` and the ``OTEL_*_HEADERS``
    variables): tokens, mostly, for :func:`chatcli.register_secret` (the variables' names do
    not say KEY or TOKEN, so :func:`chatcli.redact` would not know them otherwise)."""
    from urllib.parse import unquote

    env = os.environ if environ is None else environ
    values = [value for _name, value in config.headers]
    for variable in HEADER_VARIABLES:
        for pair in env.get(variable, "").split(","):
            _name, equals, value = pair.partition("=")
            if equals and value.strip():
                values.extend({value.strip(), unquote(value.strip())})
    return values
