"""The kernel's messages in Brazilian Portuguese: settings and TOML errors with their fixes,
provider choice, a plugin's failure line; English as it was; and the language read from the
user's settings file even when that file is broken (English then, never a loop)."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import (
    ConfigError,
    PluginHost,
    Settings,
    UsageError,
    forget_language,
    language,
    load_settings,
)
from chatcli._config import validate_setting
from chatcli._providers import find_provider
from chatcli._tomlfile import read_toml


def test_settings_errors_in_both_languages(home: Path, chatcli_language) -> None:
    with pytest.raises(ConfigError, match=r"^max_turns must be a whole number from 1 to 500; "
                                          r"you gave '0'"):
        validate_setting({}, "max_turns", "0", "config.toml")
    chatcli_language("pt_BR")
    with pytest.raises(ConfigError) as caught:
        validate_setting({}, "max_turns", "0", "config.toml")
    assert str(caught.value) == ("max_turns deve ser um número inteiro de 1 a 500; o valor dado "
                                 "foi '0' — por exemplo, `chatcli config set max_turns 20` "
                                 "(o padrão)")
    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "config.toml").write_text("max_turn = 3\n")
    with pytest.raises(ConfigError, match="configuração desconhecida 'max_turn' — você quis "
                                          "dizer 'max_turns'"):
        load_settings(cwd=home)
    with pytest.raises(UsageError, match=r"^provedor desconhecido 'nope'"):
        find_provider(PluginHost(), "nope")


def test_a_broken_toml_file_in_portuguese(tmp_path: Path, chatcli_language) -> None:
    broken = tmp_path / "x.toml"
    broken.write_text("a = 1 2\n")
    chatcli_language("pt_BR")
    with pytest.raises(ConfigError, match=r"x.toml, linha 1, coluna 7: TOML inválido: .* — "
                                          r"corrija a linha 1 do arquivo em um editor"):
        read_toml(broken)


def test_the_setting_chooses_the_language_and_a_broken_file_means_english(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHATCLI_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    user = home / "config" / "config.toml"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text('language = "pt_BR"\n')
    forget_language()
    try:
        assert language() == "pt_BR"
        assert Settings.model_fields["max_turns"].description  # (made at import: any language)
        user.write_text("language = 1 2\n")
        forget_language()
        assert language() == "en"
        with pytest.raises(ConfigError, match=r"invalid TOML: .* — fix line 1 of the file"):
            read_toml(user)
    finally:
        monkeypatch.setenv("CHATCLI_LANG", "en")
        forget_language()
