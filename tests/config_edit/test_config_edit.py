"""chatcli-config-edit: set, get and unset keep the file's other keys, a bad value leaves the
file as it was, any text set for a text setting is stored as typed (moved from the kernel's
config tests)."""

from __future__ import annotations

import pytest
from chatcli import ConfigError, load_settings, user_config_path
from chatcli_config_edit import get_value, set_value, unset_value
from hypothesis import given
from hypothesis import strategies as st


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_set_get_unset_round_trip_keeps_other_keys() -> None:
    path = user_config_path()
    write(path, '# my settings\nsystem = "be brief"\n')
    assert set_value(path, "max_turns", "9") == 9
    assert set_value(path, "providers.openai.model", "gpt-x") == "gpt-x"
    settings = load_settings()
    assert get_value(settings, "max_turns") == 9
    assert get_value(settings, "providers.openai.model") == "gpt-x"
    assert settings.system == "be brief"
    assert unset_value(path, "max_turns") and not unset_value(path, "max_turns")
    assert load_settings().max_turns == 20
    with pytest.raises(ConfigError):
        get_value(settings, "no.such.key")


def test_set_rejects_invalid_value_and_leaves_file_untouched() -> None:
    path = user_config_path()
    write(path, "max_turns = 4\n")
    with pytest.raises(ConfigError):
        set_value(path, "max_turns", "0")
    assert path.read_text() == "max_turns = 4\n"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40))
def test_any_text_set_for_a_text_setting_is_stored_as_typed(value: str) -> None:
    import tempfile
    import tomllib
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.toml"
        set_value(path, "system", value)
        stored = tomllib.loads(path.read_text())["system"]
    try:
        as_toml = tomllib.loads(f"v = {value}")["v"]
    except tomllib.TOMLDecodeError:
        as_toml = None
    # verbatim, unless the user typed a quoted TOML string, which is unquoted
    assert stored == value or (isinstance(as_toml, str) and stored == as_toml)


def test_only_the_keys_line_changes_and_comments_stay() -> None:
    path = user_config_path()
    write(path, '# mine\nmax_turns = 4  # low on purpose\n\n[providers.openai]\nmodel = "a"\n')
    set_value(path, "max_turns", "9")
    set_value(path, "providers.openai.timeout", "30")
    assert path.read_text() == ('# mine\nmax_turns = 9  # low on purpose\n\n[providers.openai]\n'
                                'model = "a"\ntimeout = 30\n')
    assert unset_value(path, "providers.openai.model")
    assert path.read_text() == ('# mine\nmax_turns = 9  # low on purpose\n\n[providers.openai]\n'
                                'timeout = 30\n')


@pytest.mark.parametrize(("key", "raw", "message"), [
    ("max_turns", "many", "max_turns must be a whole number from 1 to 500; you gave 'many'"),
    ("max_turns", "0", "max_turns must be a whole number from 1 to 500; you gave '0'"),
    ("max_turn", "3", "unknown setting 'max_turn'"),
    ("system.x", "1", "'system' is a setting, not a table"),
    ("models.ollama/*.ouput", "2", "did you mean 'output'?"),
    (".".join(["a"] * 70), "1", "nested more than 64 levels deep"),
])
def test_a_value_the_setting_does_not_take_is_blamed_and_nothing_is_written(
        key: str, raw: str, message: str) -> None:
    path = user_config_path()
    write(path, "max_turns = 4\n")
    with pytest.raises(ConfigError) as info:
        set_value(path, key, raw)
    assert message in str(info.value)
    assert path.read_text() == "max_turns = 4\n"


def test_a_file_that_cannot_be_read_is_left_as_it_is() -> None:
    path = user_config_path()
    write(path, "max_turns = 4\nsystem = = 1\n")
    with pytest.raises(ConfigError) as info:
        set_value(path, "max_turns", "3")
    assert "line 2" in str(info.value) and "the file was not changed" in str(info.value)
    assert path.read_text() == "max_turns = 4\nsystem = = 1\n"
