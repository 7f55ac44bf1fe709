"""chatcli-admin's commands (config, keys, models, plugins, trust) are imported only when they
run: ``chatcli --help`` lists them from their help lines (kept equal to the real commands'), and
each still works in full."""

from __future__ import annotations

import subprocess
import sys
from importlib import import_module

import click
import pytest
from chatcli_admin.plugin import COMMANDS, register_commands

MODULES = [target.partition(":")[0] for *_, target in COMMANDS]


def _real(target: str) -> click.Command:
    module, _, attribute = target.partition(":")
    return getattr(import_module(module), attribute)


@pytest.mark.parametrize(("name", "target"), [(row[0], row[4]) for row in COMMANDS])
def test_the_root_help_line_is_the_real_commands(name: str, target: str) -> None:
    group = click.Group("root")
    register_commands(cli=group)
    lazy, real = group.commands[name], _real(target)
    assert type(real) is not type(lazy) and lazy.name == real.name == name
    assert isinstance(lazy, click.Group) == isinstance(real, click.Group)
    for limit in (30, 45, 60, 80, 200):
        assert lazy.get_short_help_str(limit) == real.get_short_help_str(limit)


def _imported_by(*args: str) -> set[str]:
    code = ("import io, sys, contextlib\n"
            f"sys.argv = ['chatcli', *{list(args)!r}]\n"
            "from chatcli_cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            "    try:\n        main()\n    except SystemExit:\n        pass\n"
            f"print(sorted(m for m in {MODULES!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    return set(eval(done.stdout.strip().splitlines()[-1]))


def test_help_imports_no_admin_command_and_each_imports_only_itself(home) -> None:
    assert _imported_by("--help") == set()
    assert _imported_by("models", "--help") == {"chatcli_admin.models"}
    assert _imported_by("trust", "--help") == {"chatcli_admin.trust"}


def test_a_lazy_command_parses_runs_and_checks_utf8_like_the_real_one(cli) -> None:
    result = cli("models", "--help")
    assert result.code == 0 and "--remote" in result.out
    result = cli("trust", "--list", "x")
    assert result.code == 2 and "--list takes no PATH" in result.err
    result = cli("keys")
    assert result.code == 2 and "Usage: chatcli keys" in result.err
    result = cli("config", "set", "model", "gpt\udcff")
    assert result.code == 2 and "is not valid UTF-8" in result.err
    result = cli("models", "\udcff")
    assert result.code == 2 and "PROVIDER is not valid UTF-8" in result.err


def test_a_plugin_command_can_invoke_a_lazy_admin_command(cli) -> None:
    from chatcli import hookimpl

    class Relay:
        @hookimpl
        def register_commands(self, cli) -> None:
            @cli.command("relay")
            @click.pass_context
            def relay(ctx: click.Context) -> int:
                root = ctx.find_root()
                command = root.command.get_command(root, "trust")
                return ctx.invoke(command, path=None, yes=False, as_list=True, revoke=False)

    cli.host.register(Relay(), "relay")
    result = cli("relay")
    assert result.code == 0, result.err
    assert result.out == "no trusted projects; trust one with `chatcli trust` in its folder\n"
