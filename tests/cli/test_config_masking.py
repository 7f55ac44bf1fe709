"""``chatcli config list`` / ``config get`` never print a secret planted in a configuration file:
a string under a name that looks like a secret, at any depth, shows as ``***``; so do key-shaped
values and URL passwords anywhere. Names of places (``api_key_env``…) and numbers
(``max_tokens``) are shown; ``config get --reveal KEY`` prints a value as it is."""

from __future__ import annotations

import pytest
import tomli_w
from cli_support import CHATCLI, run_process
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: (a TOML table path, key, value) planted in config.toml → the line shows ``KEY = ***``.
SECRETS = [
    (["providers", "openai"], "api_key", "planted-openai-value"),
    (["providers", "openai"], "apikey", "planted-apikey-value"),
    (["providers", "openai", "headers"], "Authorization", "Bearer planted-bearer"),
    (["providers", "openai", "headers"], "X-Api-Key", "planted-header-key"),
    (["providers", "anthropic", "headers"], "x-auth-token", "planted-auth-token"),
    (["providers", "openai", "headers"], "Cookie", "session=planted-cookie"),
    (["mcp", "servers", "gh", "env"], "GITHUB_TOKEN", "planted-github-token"),
    (["mcp", "servers", "db", "env"], "DB_PASSWORD", "planted-db-password"),
    (["mcp", "servers", "aws", "env"], "AWS_SECRET_ACCESS_KEY", "planted-aws-secret"),
    (["mcp", "servers", "x", "env"], "CLIENT_SECRET", "planted-client-secret"),
    (["mcp", "servers", "x", "env"], "SSH_PASSPHRASE", "planted-passphrase"),
    (["mcp", "servers", "x", "env"], "GOOGLE_CREDENTIALS", "planted-credentials"),
    (["mcp", "servers", "x", "env"], "NPM_PAT", "planted-npm-pat"),
    (["coder"], "password", "planted-coder-password"),
    (["coder"], "token", "planted-coder-token"),
    (["memory", "postgres"], "secret", "planted-memory-secret"),
    (["some_plugin", "deep", "deeper"], "private_key", "planted-private-key"),
    (["some_plugin"], "accessKey", "planted-camel-access-key"),
    (["some_plugin"], "oauth", "planted-oauth"),
]

#: Planted values whose name says nothing, but whose text is a secret: redacted in place.
SHAPED = [
    (["mcp", "servers", "x"], "url", "https://user:planted-url-password@example.com/mcp",
     "https://user:***@example.com/mcp"),
    (["some_plugin"], "note", "sk-plantedkeyshape0123456789", "***"),
    (["some_plugin"], "header_value", "Bearer planted0123456789", "***"),
]

#: Not secrets: shown as they are.
PLAIN = [
    (["providers", "openai"], "api_key_env", "MY_WORK_KEY"),
    (["providers", "openai"], "max_tokens_param", "max_completion_tokens"),
    ([], "max_tokens", 4096),
    (["coder"], "pass_env", ["NPM_TOKEN"]),
    (["some_plugin"], "token_file", "/home/me/.token"),
    (["some_plugin"], "password_command", "pass show work"),
    (["some_plugin"], "author", "Ada"),
    (["some_plugin"], "max_tokens", 12),
    (["mcp", "servers", "gh", "env"], "LOG_LEVEL", "debug"),
]


def plant(home, entries) -> None:
    data: dict = {}
    for path, key, value, *_ in entries:
        table = data
        for part in path:
            table = table.setdefault(part, {})
        table[key] = value
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(tomli_w.dumps(data))


def dotted(path: list[str], key: str) -> str:
    return ".".join([*path, key])


def test_config_list_masks_every_planted_secret(home):
    plant(home, SECRETS + SHAPED + PLAIN)
    done = run_process([CHATCLI, "config", "list"], home)
    assert done.returncode == 0, done.stderr
    lines = set(done.stdout.splitlines())
    for path, key, value in SECRETS:
        assert f"{dotted(path, key)} = ***" in lines, key
        assert value not in done.stdout
    for path, key, value, shown in SHAPED:
        assert f"{dotted(path, key)} = {shown}" in lines, key
        assert value not in done.stdout
    for path, key, value in PLAIN:
        shown = value if isinstance(value, str) else str(value).replace("'", '"')
        assert f"{dotted(path, key)} = {shown}" in lines, (key, done.stdout)
    assert "planted" not in done.stdout


@pytest.mark.parametrize(("path", "key", "value"), SECRETS)
def test_config_get_masks_a_secret_unless_revealed(home, path, key, value):
    plant(home, SECRETS)
    masked = run_process([CHATCLI, "config", "get", dotted(path, key)], home)
    assert (masked.returncode, masked.stdout) == (0, "***\n"), masked.stderr
    revealed = run_process([CHATCLI, "config", "get", "--reveal", dotted(path, key)], home)
    assert (revealed.returncode, revealed.stdout) == (0, f"{value}\n"), revealed.stderr


def test_config_get_of_a_table_masks_inside_it(home):
    plant(home, SECRETS + PLAIN)
    done = run_process([CHATCLI, "config", "get", "mcp"], home)
    assert done.returncode == 0, done.stderr
    assert '"GITHUB_TOKEN": "***"' in done.stdout and '"LOG_LEVEL": "debug"' in done.stdout
    assert "planted" not in done.stdout
    whole = run_process([CHATCLI, "config", "get", "mcp.servers.gh.env"], home)
    assert "planted" not in whole.stdout and "debug" in whole.stdout


def test_config_set_does_not_echo_a_secret_it_stored_in_a_table(home):
    done = run_process([CHATCLI, "config", "set", "providers.openai.headers",
                        '{"Authorization" = "Bearer set-by-hand-123", "X-Trace" = "on"}'], home)
    assert done.returncode == 0, done.stderr
    assert "set-by-hand" not in done.stdout and '"X-Trace": "on"' in done.stdout


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(min_size=1, max_size=40).filter(lambda v: "\x00" not in v),
       key=st.sampled_from(["api_key", "GITHUB_TOKEN", "password", "client_secret"]))
def test_no_secret_value_reaches_the_listing(home, value, key):
    plant(home, [(["mcp", "servers", "s", "env"], key, value)])
    done = run_process([CHATCLI, "config", "list"], home)
    assert done.returncode == 0, done.stderr
    assert f"mcp.servers.s.env.{key} = ***" in done.stdout.splitlines()


def test_the_repl_config_command_masks_them_too(home, monkeypatch):
    import io

    from chatcli import PluginHost, SessionOptions, load_settings
    from chatcli_provider_openai import plugin as openai_plugin
    from chatcli_repl import plugin as repl_plugin
    from chatcli_repl.app import ReplApp
    from chatcli_repl.commands import dispatch
    from rich.console import Console

    # (a session checks the provider's table: no planted provider options here)
    plant(home, [e for e in SECRETS + PLAIN if e[0][:1] != ["providers"] or e[1] == "api_key_env"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-key-123456")
    host = PluginHost()
    host.register(openai_plugin, "openai")
    host.register(repl_plugin, "repl")
    out = io.StringIO()
    app = ReplApp(host, load_settings(), Console(file=out, width=300), SessionOptions())
    with app.session.open():
        dispatch(app, "/config list")
        dispatch(app, "/config get mcp.servers.gh.env.GITHUB_TOKEN")
        dispatch(app, "/config get mcp.servers.gh.env")
    shown = out.getvalue()
    assert "planted" not in shown, shown
    assert "mcp.servers.gh.env.GITHUB_TOKEN = '***'" in shown
    assert "mcp.servers.gh.env.LOG_LEVEL = 'debug'" in shown
    assert "providers.openai.api_key_env = 'MY_WORK_KEY'" in shown
    assert "\n'***'\n" in shown and "'LOG_LEVEL': 'debug'" in shown
