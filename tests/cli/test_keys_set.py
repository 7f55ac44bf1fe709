"""``chatcli keys set NAME`` for a provider that is not installed: refused with the closest
name, unless ``--force`` asks to store it for a provider installed later."""

from __future__ import annotations

KEY = "sk-test-abcdefghijklmnop1234"


def test_keys_set_refuses_a_provider_that_is_not_installed(cli, home):
    result = cli("keys", "set", "nosuch", stdin=KEY)
    assert result.code == 2
    assert result.err == ("chatcli: error: no installed provider is named 'nosuch' — installed: "
                          "scripted; for a provider you will install later: chatcli keys set "
                          "nosuch --force\n")
    assert not (home / "config" / "keys.toml").exists()
    typo = cli("keys", "set", "scriptd", stdin=KEY)
    assert typo.code == 2
    assert "did you mean 'scripted'? (--force stores it anyway)" in typo.err


def test_keys_set_force_stores_a_key_for_a_provider_installed_later(cli, home):
    result = cli("keys", "set", "nosuch", "--force", stdin=KEY)
    assert result.code == 0, result.err
    assert KEY in (home / "config" / "keys.toml").read_text()
    assert "nosuch" in cli("keys", "list").out
