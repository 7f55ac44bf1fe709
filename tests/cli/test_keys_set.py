"""Where an API key may be stored: ``chatcli keys set NAME`` for a provider that is not
installed is refused with the closest name, unless ``--force`` asks to store it for a provider
installed later; a key typed on the command line — after ``keys set`` or as a ``config set``
value — is refused without being echoed or written."""

from __future__ import annotations

import pytest
from cli_support import CHATCLI, run_process

KEY = "sk-test-abcdefghijklmnop1234"
SECRET = "sk-audit-test-0123456789abcdef"


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


@pytest.mark.parametrize("argv", [
    ["keys", "set", "openai", "plain-secret-value-42"],  # the key after the name
    ["keys", "set", SECRET],                              # the key instead of the name
])
def test_a_key_on_the_command_line_is_refused_without_echoing_it(home, argv):
    done = run_process([CHATCLI, *argv], home, CHATCLI_PLUGINS="openai,admin")
    assert done.returncode == 2
    assert "takes no key on the command line" in done.stderr
    assert "plain-secret-value-42" not in done.stderr and SECRET not in done.stderr
    assert not (home / "config" / "keys.toml").exists()


def test_config_set_refuses_to_write_an_api_key_in_plain_text(home):
    done = run_process([CHATCLI, "config", "set", "providers.openai.api_key", SECRET], home,
                       CHATCLI_PLUGINS="openai,admin")
    assert done.returncode == 2
    assert "chatcli keys set openai" in done.stderr and SECRET not in done.stderr
    assert not (home / "config" / "config.toml").exists()
    listing = run_process([CHATCLI, "config", "list"], home, CHATCLI_PLUGINS="openai,admin")
    assert SECRET not in listing.stdout
