"""Every way a user or a repository could loosen a managed value is one line naming the managed
file (exit 2), and the managed value stays in force: the user file, the project file (trusted
and not), ``CHATCLI_*`` variables, flags and ``chatcli config set``."""

from __future__ import annotations

import pytest
from managed_support import World, one_line_error

#: (the managed file, the key, a loosening TOML line (in its table), the variable doing the same
#: and its value, the value `config get` shows while the managed file is in force)
CASES = {
    "min number": ("max_turns = 5\n", "max_turns", "max_turns = 50", ("CHATCLI_MAX_TURNS", "50"),
                   "5"),
    "fixed provider": ('provider = "openai"\n', "provider", 'provider = "anthropic"',
                       ("CHATCLI_PROVIDER", "anthropic"), "openai"),
    "sandbox required": ('[coder]\nsandbox = "bwrap"\n', "coder.sandbox", 'sandbox = "off"',
                         ("CHATCLI_CODER__SANDBOX", "off"), "bwrap"),
    "spend limit": ("[cost]\nlimit = 2.0\n", "cost.limit", "limit = 20.0",
                    ("CHATCLI_COST__LIMIT", "20"), "2.0"),
    "allowed MCP servers": ('[mcp]\nallowed_servers = ["time"]\n', "mcp.allowed_servers",
                            'allowed_servers = ["time", "evil"]',
                            ("CHATCLI_MCP__ALLOWED_SERVERS", '["evil"]'), '["time"]'),
    "allowed providers": ('[policy]\nproviders = ["openai"]\n', "policy.providers",
                          'providers = ["openai", "anthropic"]',
                          ("CHATCLI_POLICY__PROVIDERS", '["anthropic"]'), '["openai"]'),
    "refused plugins": ('[policy]\nrefused_plugins = ["repomap"]\n', "policy.refused_plugins",
                        "refused_plugins = []", ("CHATCLI_POLICY__REFUSED_PLUGINS", "[]"), None),
}


#: a process per case: the quick selection keeps one (``min number``), the others are slow
PARAMS = [pytest.param(case, marks=() if case == "min number" else pytest.mark.slow)
          for case in sorted(CASES)]


def _in_table(key: str, line: str) -> str:
    """The loosening line in the key's table (``[coder]``), as a file would hold it."""
    table = key.rsplit(".", 1)[0] if "." in key else ""
    return f"[{table}]\n{line}\n" if table else f"{line}\n"


def _effective(world: World, key: str) -> str:
    done = world.chatcli("config", "get", key)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("case", PARAMS)
def test_the_user_file_cannot_loosen_it(world: World, case: str) -> None:
    managed, key, line, _variable, shown = CASES[case]
    world.write_managed(managed)
    if shown is not None:
        assert _effective(world, key) == shown  # in force with nothing below
    world.write_user(_in_table(key, line))
    error = one_line_error(world.chatcli("config", "list"), world)
    assert str(world.user_config) in error and key in error


@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
@pytest.mark.parametrize("case", PARAMS)
def test_the_project_file_cannot_loosen_it_trusted_or_not(world: World, case: str,
                                                          trusted: bool) -> None:
    managed, key, line, _variable, _shown = CASES[case]
    world.write_project(_in_table(key, line))
    if trusted:
        world.trust()  # (before the managed file: `chatcli trust` itself reads no settings)
    world.write_managed(managed)
    error = one_line_error(world.chatcli("config", "list"), world)
    assert str(world.project_config) in error and key in error


@pytest.mark.parametrize("case", PARAMS)
def test_a_chatcli_variable_cannot_loosen_it(world: World, case: str) -> None:
    managed, key, _line, (variable, value), _shown = CASES[case]
    world.write_managed(managed)
    error = one_line_error(world.chatcli("config", "list", **{variable: value}), world)
    assert variable in error and key in error


@pytest.mark.parametrize("case", PARAMS)
def test_config_set_refuses_to_write_it(world: World, case: str) -> None:
    managed, key, line, _variable, shown = CASES[case]
    world.write_managed(managed)
    raw = line.split(" = ", 1)[1].strip('"')
    before = world.user_config.read_text()
    error = one_line_error(world.chatcli("config", "set", key, raw), world)
    assert "config set" in error
    assert world.user_config.read_text() == before  # nothing written
    if shown is not None:
        assert _effective(world, key) == shown


def test_a_lower_min_value_is_taken_and_an_equal_fixed_one_is_fine(world: World) -> None:
    world.write_managed('max_turns = 5\nprovider = "openai"\n[cost]\nlimit = 2.0\n')
    world.write_user('max_turns = 3\nprovider = "openai"\n[cost]\nlimit = 1.5\n')
    assert _effective(world, "max_turns") == "3"
    assert _effective(world, "cost.limit") == "1.5"
    assert world.chatcli("config", "set", "max_turns", "2").returncode == 0
    assert _effective(world, "max_turns") == "2"
    assert world.chatcli("config", "get", "max_turns", CHATCLI_MAX_TURNS="4").stdout == "4\n"


def test_a_flag_cannot_loosen_a_fixed_provider(world: World) -> None:
    world.write_managed('provider = "openai"\n')
    error = one_line_error(world.chatcli("-p", "hi", "--provider", "anthropic"), world)
    assert "command line" in error and "provider" in error


def test_deny_rules_keep_their_items_whatever_the_layers_below_say(world: World) -> None:
    world.write_managed('[permissions]\ndeny = ["exec(curl:*)"]\n')
    world.write_user('[permissions]\ndeny = ["read(secrets/**)"]\n')
    world.write_project('[permissions]\ndeny = []\n')
    assert _effective(world, "permissions.deny") == '["read(secrets/**)", "exec(curl:*)"]'
    done = world.chatcli("config", "get", "permissions.deny", CHATCLI_PERMISSIONS__DENY="[]")
    assert done.stdout.strip() == '["exec(curl:*)"]'


def test_config_list_marks_the_managed_values(world: World) -> None:
    world.write_managed('max_turns = 5\n[permissions]\ndeny = ["exec(curl:*)"]\n'
                        '[policy]\nproviders = ["openai"]\n')
    world.write_user("max_tokens = 100\n")
    done = world.chatcli("config", "list")
    assert done.returncode == 0, done.stderr
    lines = {line.split(" = ")[0]: line for line in done.stdout.splitlines()}
    mark = f"# managed ({world.managed})"
    for key in ("max_turns", "permissions.deny", "policy.providers"):
        assert lines[key].endswith(mark), lines[key]
    for key in ("max_tokens", "markdown"):
        assert "managed" not in lines[key]
