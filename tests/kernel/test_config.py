"""Settings layers and validation errors (editing: tests/config_edit; keys: tests/admin)."""

from __future__ import annotations

import pytest
from chatcli import ConfigError, load_settings, user_config_path


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
    from chatcli_workspace import trust_project

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
