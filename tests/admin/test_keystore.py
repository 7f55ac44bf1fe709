"""chatcli-admin's key store: keys are stored 0600 (the environment wins when looked up), a key
file others may read is repaired, and a pasted key with a line break, spaces or stray bytes is
refused and never echoed."""

from __future__ import annotations

import stat

import pytest
from chatcli import ConfigError
from chatcli._keys import KEY_FILE, lookup_key
from chatcli_admin.keystore import key_file, list_keys, remove_key, set_key


@pytest.mark.parametrize("bad", ["sk-abc\ndef", "sk-abc def", "sk-\udcff\udcfe", "sk-ab\x07c"])
def test_malformed_keys_are_refused_without_echoing_them(bad: str) -> None:
    with pytest.raises(ConfigError) as err:
        set_key("openai", bad)
    assert "sk-" not in str(err.value)
    assert not key_file().exists() and list_keys() == []


def test_surrounding_whitespace_is_trimmed() -> None:
    set_key("openai", "  sk-good-123456\n")
    assert list_keys() == ["openai"]
    assert 'openai = "sk-good-123456"' in key_file().read_text()


def test_keys_are_stored_0600_and_env_wins(monkeypatch) -> None:
    set_key("openai", "sk-test-abcdefghijkl")
    assert key_file().name == KEY_FILE  # the file the kernel reads (lookup_key below)
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
