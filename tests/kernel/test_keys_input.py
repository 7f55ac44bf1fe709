"""A pasted key with a line break, spaces or stray bytes is refused, and never echoed."""

from __future__ import annotations

import pytest
from chatcli import ConfigError
from chatcli._keys import key_file, list_keys, set_key


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
