"""``chatcli models|keys|config|plugins`` (in-process, with a scripted provider installed)."""

from __future__ import annotations

import stat
import sys

from chatcli import ProviderSpec, hookimpl
from chatcli_testing import ScriptedProvider, scripted_plugin
from cli_support import TtyInput

SECRET = "sk-test-abcdefghijklmnop1234"


class KeyedPlugin:
    """A provider that needs a key (EXAMPLE_API_KEY)."""

    @hookimpl
    def register_providers(self, register):
        register(ProviderSpec(name="example", display_name="Example AI", default_model="ex-1",
                              env_keys=["EXAMPLE_API_KEY"], factory=lambda c: None,
                              models=["ex-1", "ex-large"]))


def test_models_lists_providers_and_key_status(cli, monkeypatch):
    cli.host.register(KeyedPlugin(), "example")
    result = cli("models")
    assert result.code == 0
    lines = result.out.splitlines()
    example = next(x for x in lines if " example " in f" {x} ")
    assert "Example AI" in example and "ex-1" in example and "missing" in example
    scripted = next(x for x in lines if "scripted" in x)
    assert "not needed" in scripted and scripted.startswith("*")
    assert "ex-large" in result.out

    monkeypatch.setenv("EXAMPLE_API_KEY", SECRET)
    result = cli("models")
    example = next(x for x in result.out.splitlines() if " example " in f" {x} ")
    assert "EXAMPLE_API_KEY" in example
    assert SECRET not in result.out + result.err


def test_keys_set_list_remove_round_trip(cli, home):
    cli.host.register(KeyedPlugin(), "example")
    result = cli("keys", "set", "example", stdin=SECRET + "\n")
    assert result.code == 0
    assert SECRET not in result.out + result.err
    key_file = home / "config" / "keys.toml"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert SECRET in key_file.read_text()

    listing = cli("keys", "list")
    assert "example" in listing.out and "keys.toml" in listing.out
    assert SECRET not in listing.out + listing.err
    models = cli("models")
    assert "keys.toml" in next(x for x in models.out.splitlines() if "example" in x)

    removed = cli("keys", "remove", "example")
    assert removed.code == 0
    assert SECRET not in key_file.read_text()
    again = cli("keys", "remove", "example")
    assert again.code == 2 and "no stored key" in again.err


def test_keys_set_on_a_terminal_prompts_without_echo(cli, home, monkeypatch):
    import click

    asked = {}

    def fake_prompt(text, **kwargs):
        asked.update(kwargs, text=text)
        return SECRET

    monkeypatch.setattr(click, "prompt", fake_prompt)
    cli.host.register(KeyedPlugin(), "example")
    result = cli("keys", "set", "example", stdin=TtyInput(""))
    assert result.code == 0 and asked["hide_input"] is True
    assert SECRET in (home / "config" / "keys.toml").read_text()
    assert SECRET not in result.out + result.err


def test_keys_set_rejects_empty_key_and_typos(cli):
    cli.host.register(KeyedPlugin(), "example")
    empty = cli("keys", "set", "example", stdin="\n")
    assert empty.code == 2 and "empty key" in empty.err
    typo = cli("keys", "set", "exampel", stdin=SECRET)
    assert typo.code == 2 and "did you mean 'example'" in typo.err


def test_config_set_get_unset_round_trip(cli, home):
    assert cli("config", "set", "max_turns", "7").code == 0
    assert cli("config", "get", "max_turns").out == "7\n"
    assert cli("config", "set", "providers.scripted.model", "big-model").code == 0
    assert cli("config", "get", "providers.scripted.model").out == "big-model\n"
    text = (home / "config" / "config.toml").read_text()
    assert "max_turns = 7" in text and 'model = "big-model"' in text
    listing = cli("config", "list").out
    assert "max_turns = 7" in listing and "providers.scripted.model = big-model" in listing
    assert cli("config", "unset", "max_turns").code == 0
    assert cli("config", "get", "max_turns").out == "20\n"


def test_config_set_model_changes_the_request(cli):
    cli("config", "set", "providers.scripted.model", "configured-model")
    cli.script()
    cli("-p", "hi")
    assert cli.provider.requests[0].model == "configured-model"


def test_config_set_rejects_invalid_values_and_unknown_keys(cli, home):
    bad = cli("config", "set", "max_turns", "lots")
    assert bad.code == 2 and "max_turns" in bad.err and bad.err.count("\n") == 1
    assert not (home / "config" / "config.toml").exists()
    typo = cli("config", "set", "modle", "x")
    assert typo.code == 2 and "did you mean 'model'" in typo.err
    unknown = cli("config", "get", "nothing.here")
    assert unknown.code == 2 and "unknown setting" in unknown.err


def test_config_project_file_wins_over_user_file(cli, home):
    cli("config", "set", "model", "user-model")
    result = cli("config", "set", "model", "project-model", "--project")
    assert result.code == 0
    assert (home / "work" / ".chatcli" / "config.toml").exists()
    assert cli("config", "get", "model").out == "user-model\n"  # until the project is trusted
    assert cli("trust", "--yes").code == 0
    assert cli("config", "get", "model").out == "project-model\n"
    assert cli("config", "path").out == f"{home / 'config' / 'config.toml'}\n"
    assert cli("config", "path", "--project").out == (
        f"{home / 'work' / '.chatcli' / 'config.toml'}\n")


def test_plugins_list_shows_loaded_plugins_with_hooks(cli):
    result = cli("plugins", "list")
    assert result.code == 0
    row = next(x for x in result.out.splitlines() if x.startswith("scripted"))
    assert "loaded" in row and "register_providers" in row
    row = next(x for x in result.out.splitlines() if x.startswith("tools"))
    assert "loaded" in row and "register_tools" in row


def test_plugins_list_reports_a_plugin_with_unknown_hook(cli):
    class Wrong:
        @hookimpl
        def register_providerz(self, register):
            """A misspelt hook."""

    cli.host.register(Wrong(), "wrong")
    result = cli("plugins", "list")
    row = next(x for x in result.out.splitlines() if x.startswith("wrong"))
    assert "failed" in row and "register_providerz" in row


def test_plugins_install_uses_chatcli_own_python(cli):
    result = cli("plugins", "install", "chatcli-example", "--dry-run")
    assert result.code == 0
    command = result.err.strip().removeprefix("$ ").split()
    assert sys.executable in command and "install" in command
    assert command[-1] == "chatcli-example"
    result = cli("plugins", "uninstall", "chatcli-example", "--dry-run")
    assert "uninstall" in result.err
    result = cli("plugins", "install", "-e", "./my-plugin", "--dry-run")
    assert result.err.strip().endswith("-e ./my-plugin")


def test_plugins_new_renders_the_template(cli, home):
    try:
        import chatcli_admin.scaffold  # noqa: F401
    except ImportError:
        result = cli("plugins", "new", "chatcli-demo", "--kind", "tool")
        assert result.code == 2 and "scaffold" in result.err
        return
    result = cli("plugins", "new", "demo", "--kind", "tool", "--dir", str(home / "out"))
    assert result.code == 0, result.err
    created = result.out.splitlines()[0].removeprefix("created ")
    assert (home / "out").exists() and created.startswith(str(home / "out"))


def test_plugins_new_rejects_unknown_kind(cli):
    result = cli("plugins", "new", "demo", "--kind", "spaceship")
    assert result.code == 2 and "spaceship" in result.err


def test_second_provider_plugin_does_not_replace_first(cli):
    cli.host.register(scripted_plugin(ScriptedProvider(), name="other"), "other")
    names = [x[2:].split()[0] for x in cli("models").out.splitlines()[1:] if x.strip()]
    assert {"scripted", "other"} <= set(names)
