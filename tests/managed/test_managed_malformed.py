"""A managed file that is broken is one line naming it (exit 2), never a run without policy;
any TOML value under a managed key is either taken or such a line (hypothesis)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from managed_support import World, one_line_error

BROKEN = [
    "max_turns = \n",            # not TOML
    "[policy\nproviders = []\n",  # an unclosed table
    'max_turns = "many"\n',      # a value the setting does not take
    "[policy]\nproviders = \"openai\"\n",  # a list that is not one
    "[permissions]\ndisabled_modes = [\"sometimes\"]\n",
    b"max_turns = 5 # \xff\n",   # not UTF-8
]
BROKEN_IDS = ["syntax", "table", "type", "policy list", "mode", "bytes"]


#: a process per file: the quick selection keeps two (not TOML, a wrong value), the others are slow
@pytest.mark.parametrize("text", [
    pytest.param(text, id=name, marks=() if name in ("syntax", "type") else pytest.mark.slow)
    for text, name in zip(BROKEN, BROKEN_IDS, strict=True)])
def test_a_broken_managed_file_is_one_line_naming_it(world: World, text: str | bytes) -> None:
    if isinstance(text, bytes):
        world.managed.write_bytes(text)
    else:
        world.write_managed(text)
    one_line_error(world.chatcli("-p", "hi", "--provider", "openai"), world)


def test_a_managed_file_named_but_missing_is_an_error(world: World) -> None:
    world.managed.unlink()
    error = one_line_error(world.chatcli("config", "list"), world)
    assert "cannot be read" in error


def test_a_managed_file_that_is_a_folder_is_an_error(world: World) -> None:
    world.managed.unlink()
    world.managed.mkdir()
    one_line_error(world.chatcli("config", "list"), world)


# ------------------------------------------------------------------ any value (in process)

KEYS = [("max_turns",), ("provider",), ("coder", "sandbox"), ("cost", "limit"),
        ("permissions", "deny"), ("permissions", "disabled_modes"), ("policy", "providers"),
        ("policy", "base_urls"), ("policy", "plugins"), ("policy", "refused_plugins"),
        ("mcp", "allowed_servers")]

_scalars = (st.text(max_size=20) | st.integers(-10**6, 10**6) | st.booleans()
            | st.floats(allow_nan=False, allow_infinity=False, width=32))
VALUES = _scalars | st.lists(_scalars, max_size=4) | st.dictionaries(
    st.text(min_size=1, max_size=5), _scalars, max_size=3)


def _nest(key: tuple[str, ...], value: Any) -> dict[str, Any]:
    for part in reversed(key):
        value = {part: value}
    return value


@pytest.fixture
def managed_file(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = home / "managed.toml"
    path.write_text("")
    monkeypatch.setenv("CHATCLI_MANAGED_CONFIG", str(path))
    return path


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(KEYS), value=VALUES, lower=VALUES)
def test_any_value_is_taken_or_one_line_naming_the_file(managed_file: Path, key: tuple[str, ...],
                                                       value: Any, lower: Any) -> None:
    from chatcli import ConfigError, check_managed, load_settings, managed_list
    from chatcli_agent.permissions.managed import disabled_modes

    managed_file.write_text(tomli_w.dumps(_nest(key, value)))
    try:
        load_settings()
        for name in ("policy.providers", "policy.base_urls", "policy.plugins",
                     "policy.refused_plugins", "mcp.allowed_servers", "permissions.deny",
                     "permissions.disabled_modes"):
            managed_list(name)
        disabled_modes({"disabled_modes": value} if key[-1] == "disabled_modes" else {})
    except ConfigError as err:
        assert str(managed_file) in str(err) or key[-1] == "disabled_modes", str(err)
        assert "\n" not in str(err)
        return
    try:  # a lower layer: taken, or refused naming the managed file
        check_managed("a layer", _nest(key, lower))
    except ConfigError as err:
        assert str(managed_file) in str(err) and "\n" not in str(err)
        assert ".".join(key) in str(err)
