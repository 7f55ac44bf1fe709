"""``[otel]`` and the variables: when telemetry is on, and what any table gives (a configuration
or a one-line :class:`chatcli.ConfigError` that repeats no value it was given)."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli import ConfigError
from chatcli_otel.config import DEFAULT_TIMEOUT, OtelConfig, header_values, read_config
from hypothesis import example, given
from hypothesis import strategies as st

ENDPOINT = "http://collector:4318"


@pytest.mark.parametrize(("table", "environ", "enabled"), [
    ({}, {}, False),
    ({}, {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, True),
    ({}, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ENDPOINT + "/v1/traces"}, True),
    ({}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, False),
    ({"endpoint": ENDPOINT}, {}, True),
    ({"enabled": True}, {}, True),  # the OTLP default, localhost:4318
    ({"enabled": False}, {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, False),
    ({"endpoint": ENDPOINT}, {"OTEL_SDK_DISABLED": "true"}, False),
    ({"enabled": "on"}, {}, True),
])
def test_on_only_when_configured(table: dict[str, Any], environ: dict[str, str],
                                 enabled: bool) -> None:
    assert read_config(table, environ).enabled is enabled


def test_the_defaults_capture_no_content() -> None:
    config = read_config({"endpoint": ENDPOINT + "/"}, {})
    assert config == OtelConfig(enabled=True, endpoint=ENDPOINT, headers=(),
                                capture_content=False, timeout=DEFAULT_TIMEOUT, metrics=True)


def test_headers_are_kept_in_order() -> None:
    config = read_config({"headers": {"x-b": "2", "authorization": "Bearer t"}}, {})
    assert config.headers == (("authorization", "Bearer t"), ("x-b", "2"))


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6)
_keys = st.sampled_from(["enabled", "endpoint", "headers", "capture_content", "timeout",
                         "metrics"]) | st.text(max_size=12)


@given(st.dictionaries(_keys, _values, max_size=4))
@example({"endpoint": "ftp://user:s3cretvalue@host"})
@example({"timeout": float("nan")})
@example({"headers": {"authorization": 5}})
@example({"\n": None})
def test_any_table_is_a_configuration_or_a_one_line_error(table: dict[str, Any]) -> None:
    try:
        config = read_config(table, {})
    except ConfigError as err:
        text = str(err)
        assert "\n" not in text and text.startswith("[otel] ")
        for value in table.values():
            if isinstance(value, str) and len(value) >= 6:
                assert value not in text
        return
    assert isinstance(config, OtelConfig)
    assert 0 < config.timeout <= 60
    assert config.endpoint is None or config.endpoint.startswith(("http://", "https://"))


def test_every_header_value_is_known_as_a_secret() -> None:
    config = read_config({"headers": {"x-api": "cfg-header-secret-1"}}, {})
    environ = {"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20env-token-42,x-empty=",
               "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-trace=trace-secret-7"}
    values = header_values(config, environ)
    assert set(values) == {"cfg-header-secret-1", "Bearer%20env-token-42",
                           "Bearer env-token-42", "trace-secret-7"}
