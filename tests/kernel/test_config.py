"""Settings layers, validation errors and the TOML editing helpers."""

from __future__ import annotations

import stat

import pytest
from chatcli import ConfigError
from chatcli._config import get_value, load_settings, set_value, unset_value, user_config_path
from chatcli._keys import key_file, list_keys, lookup_key, remove_key, set_key
from hypothesis import given
from hypothesis import strategies as st


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_precedence_flags_over_env_over_project_over_user(isolated_dirs, monkeypatch) -> None:
    write(user_config_path(), 'provider = "user"\nmodel = "u-model"\nmax_turns = 3\n')
    write(isolated_dirs / ".chatcli" / "config.toml", 'provider = "project"\nmodel = "p-model"\n')
    monkeypatch.setenv("CHATCLI_MODEL", "env-model")
    settings = load_settings({"provider": "flag", "model": None})
    assert settings.provider == "flag"
    assert settings.model == "env-model"
    assert settings.max_turns == 3


def test_project_file_found_from_a_subfolder(isolated_dirs, monkeypatch) -> None:
    write(isolated_dirs / ".chatcli" / "config.toml", "max_turns = 7\n")
    sub = isolated_dirs / "a" / "b"
    sub.mkdir(parents=True)
    assert load_settings(cwd=sub).max_turns == 7


def test_nested_env_variables_reach_provider_tables(monkeypatch) -> None:
    monkeypatch.setenv("CHATCLI_PROVIDERS__OPENAI__BASE_URL", "http://x/v1")
    monkeypatch.setenv("CHATCLI_PROVIDERS__OPENAI__MAX_RETRIES", "1")
    table = load_settings().provider_settings("openai")
    assert table.base_url == "http://x/v1" and table.max_retries == 1


def test_invalid_value_names_file_key_and_fix() -> None:
    write(user_config_path(), 'max_turns = "lots"\n')
    with pytest.raises(ConfigError) as err:
        load_settings()
    text = str(err.value)
    assert str(user_config_path()) in text and "max_turns" in text
    assert "chatcli config set" in text and "\n" not in text


def test_broken_toml_is_one_clear_line() -> None:
    write(user_config_path(), "provider = [unclosed\n")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "invalid TOML" in str(err.value) and err.value.exit_code == 2


def test_a_misspelt_setting_in_a_file_is_named_with_the_closest_one(isolated_dirs) -> None:
    write(isolated_dirs / ".chatcli" / "config.toml", 'modle = "gpt-x"\n')
    from chatcli import trust_project

    trust_project(isolated_dirs)  # an untrusted project's keys are ignored (and named), not read
    with pytest.raises(ConfigError) as err:
        load_settings()
    text = str(err.value)
    assert "config.toml" in text and "'modle'" in text and "did you mean 'model'" in text


def test_a_plugin_table_in_a_file_is_kept_for_the_plugin() -> None:
    write(user_config_path(), "[repl]\nplain = true\n")
    assert load_settings().plugin_table("repl") == {"plain": True}


def test_invalid_env_value_names_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("CHATCLI_TEMPERATURE", "hot")
    with pytest.raises(ConfigError, match="environment"):
        load_settings()


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


def test_keys_are_stored_0600_and_env_wins(monkeypatch) -> None:
    set_key("openai", "sk-test-abcdefghijkl")
    mode = stat.S_IMODE(key_file().stat().st_mode)
    assert mode == 0o600
    assert list_keys() == ["openai"]
    assert lookup_key("openai", ["OPENAI_API_KEY"]) == ("sk-test-abcdefghijkl", "keys.toml")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")
    assert lookup_key("openai", ["OPENAI_API_KEY"]) == ("sk-from-env-123456", "OPENAI_API_KEY")
    assert remove_key("openai") and not remove_key("openai")
    assert list_keys() == []


def test_group_readable_key_file_is_repaired() -> None:
    set_key("x", "secret-value-1")
    key_file().chmod(0o644)
    lookup_key("x", [])
    assert stat.S_IMODE(key_file().stat().st_mode) == 0o600
