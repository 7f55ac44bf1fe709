"""A top-level ``model`` named beside a ``provider`` belongs to that provider: a higher layer
that switches provider without naming a model does not inherit the other provider's model.
A model set on its own applies to whichever provider is used."""

from __future__ import annotations

import pytest
from chatcli import ConfigError, PluginHost, build_provider, load_settings, user_config_path
from chatcli_testing import ScriptedProvider, scripted_plugin


def write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_flag_switching_provider_drops_the_user_files_model(monkeypatch) -> None:
    write(user_config_path(), 'provider = "anthropic"\nmodel = "claude-x"\n')
    settings = load_settings({"provider": "ollama"})
    assert settings.provider == "ollama" and settings.model is None
    # the same provider again keeps the model
    assert load_settings({"provider": "anthropic"}).model == "claude-x"


def test_env_switching_provider_drops_the_project_model(isolated_dirs, monkeypatch) -> None:
    write(isolated_dirs / ".chatcli" / "config.toml", 'provider = "openai"\nmodel = "gpt-x"\n')
    monkeypatch.setenv("CHATCLI_PROVIDER", "ollama")
    assert load_settings().model is None
    monkeypatch.setenv("CHATCLI_MODEL", "llama-x")  # a model given with it stays
    assert load_settings().model == "llama-x"


def test_a_model_set_without_a_provider_is_kept(isolated_dirs) -> None:
    write(user_config_path(), 'model = "gpt-x"\n')
    write(isolated_dirs / ".chatcli" / "config.toml", 'provider = "openai"\n')
    assert load_settings().model == "gpt-x"


def test_switched_provider_uses_its_own_table_model() -> None:
    write(user_config_path(),
          'provider = "anthropic"\nmodel = "claude-x"\n\n[providers.scripted]\nmodel = "s-1"\n')
    host = PluginHost()
    host.register(scripted_plugin(ScriptedProvider()), "scripted")
    spec = host.providers()["scripted"]
    _provider, config = build_provider(spec, load_settings({"provider": "scripted"}))
    assert config.model == "s-1"


def test_a_model_set_on_its_own_survives_a_provider_flag(monkeypatch) -> None:
    write(user_config_path(), 'provider = "anthropic"\nmodel = "claude-x"\n')
    monkeypatch.setenv("CHATCLI_MODEL", "env-model")
    assert load_settings({"provider": "ollama"}).model == "env-model"


def test_a_bad_environment_value_names_the_variable_to_fix(monkeypatch) -> None:
    monkeypatch.setenv("CHATCLI_PROVIDERS__OPENAI__TIMEOUT", "-1")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "fix or unset CHATCLI_PROVIDERS__OPENAI__TIMEOUT" in str(err.value)
    assert "config set" not in str(err.value)


@pytest.mark.parametrize(("value", "expected"), [
    (True, True), (False, False), (1, True), (0, False), ("on", True), (" YES ", True),
    ("1", True), ("off", False), ("False", False), ("0", False),
    (2, None), ("maybe", None), ("", None), (None, None), (1.0, None), ([], None)])
def test_parse_bool_reads_toml_and_environment_booleans(value, expected) -> None:
    from chatcli import parse_bool

    assert parse_bool(value) is expected
