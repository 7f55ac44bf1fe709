"""Plugins add options to ``chatcli``/``chatcli -p`` (``register_cli_options``): the help lists
them, their values reach the session, clashes are reported, and the kernel's front end names no
plugin's option (chatcli-agent owns ``--allow`` and ``--permission-mode``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import chatcli
import chatcli_cli
import click
import pytest
from chatcli import PluginHost, hookimpl
from chatcli_agent.permissions import cli_options
from chatcli_cli.root import run
from chatcli_print import plugin as print_plugin
from chatcli_testing import Reply, ScriptedProvider, scripted_plugin

#: The front end: the kernel's command-line helpers and chatcli-cli (the root command).
FRONT_END = (Path(chatcli.__file__).parent / "_cli", Path(chatcli_cli.__file__).parent)


class Recorder:
    """Keeps the options of every session that starts."""

    def __init__(self) -> None:
        self.options: list[chatcli.SessionOptions] = []

    @hookimpl
    def session_start(self, session) -> None:
        self.options.append(session.options)


def _max_cost(_ctx, _param, value):
    if value is not None and value <= 0:
        raise click.BadParameter("must be more than 0")
    return value


class CostOptions:
    """A plugin owning ``--max-cost`` (a value of its own) and ``--dry`` (a flag)."""

    @hookimpl
    def register_cli_options(self, register) -> None:
        register(click.Option(["--max-cost"], type=float, metavar="USD", callback=_max_cost,
                              help="Stop once the run cost USD."))
        register(click.Option(["--dry"], is_flag=True, help="Pretend."))


class Clashing:
    """Registers what is taken (a kernel flag, a kernel name, the agent's flag) and junk."""

    @hookimpl
    def register_cli_options(self, register) -> None:
        register(click.Option(["-m", "--mine"], help="takes -m"))
        register(click.Option(["--other", "model"], help="takes the name model"))
        register(click.Option(["--allow"], help="takes --allow"))
        register("--not-an-option")
        register(click.Option(["--fine"], help="A free flag."))


#: The root command's --json and --raw travel in ``extra`` too (for chatcli-print).
NOT_JSON_NOT_RAW = {"as_json": False, "raw": False}


def _host(*plugins: object, provider: ScriptedProvider | None = None) -> PluginHost:
    host = PluginHost()
    host.register(scripted_plugin(provider or ScriptedProvider([Reply(text="ok")])), "scripted")
    host.register(print_plugin, "print")
    for index, plugin in enumerate(plugins):
        host.register(plugin, f"p{index}")
    return host


def _run(capsys, *argv: str, host: PluginHost) -> tuple[int, str, str]:
    capsys.readouterr()
    code = run(list(argv), host=host)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_lists_a_plugins_options_where_the_kernels_run_options_end(home, capsys) -> None:
    # pluggy calls the plugin registered last first: its options come first
    code, out, _ = _run(capsys, "--help", host=_host(cli_options, CostOptions()))
    assert code == 0
    flags = re.findall(r"^  (-\w, )?(--[\w-]+)", out, re.M)
    order = [flag for _, flag in flags]
    assert order[order.index("--raw") + 1:order.index("--continue")] == [
        "--max-cost", "--dry", "--allow", "--permission-mode"]
    assert "Stop once the run cost USD." in out
    assert "[default|accept-edits|plan|auto]" in out


def test_values_reach_the_session_by_name_and_fields_fill_the_options(home, capsys) -> None:
    recorder = Recorder()
    host = _host(CostOptions(), cli_options, recorder)
    code, out, err = _run(capsys, "-p", "hi", "--max-cost", "0.5", "--allow", "write,exec(ls)",
                          "--permission-mode", "plan", host=host)
    assert code == 0, err
    assert out == "ok\n"
    options = recorder.options[-1]
    assert dict(options.extra) == {"max_cost": 0.5, "dry": False, **NOT_JSON_NOT_RAW}
    assert options.allow == frozenset({"write", "exec(ls)"})
    assert options.permission_mode == "plan"


def test_options_not_given_are_their_defaults(home, capsys) -> None:
    recorder = Recorder()
    code, _, err = _run(capsys, "-p", "hi", host=_host(CostOptions(), cli_options, recorder))
    assert code == 0, err
    options = recorder.options[-1]
    assert dict(options.extra) == {"max_cost": None, "dry": False, **NOT_JSON_NOT_RAW}
    assert options.allow == frozenset() and options.permission_mode is None


@pytest.mark.parametrize(("argv", "said"), [
    (("--max-cost", "-1"), "Invalid value for '--max-cost': must be more than 0"),
    (("--max-cost", "lots"), "'lots' is not a valid float"),
    (("--allow", "teleport"), "'teleport' is neither a risk class"),
    (("--permission-mode", "yolo"), "'yolo' is not one of 'default', 'accept-edits'"),
])
def test_a_bad_value_is_a_usage_error_also_as_json(home, capsys, argv, said) -> None:
    host = _host(CostOptions(), cli_options)
    code, out, err = _run(capsys, "-p", "hi", *argv, host=host)
    assert code == 2 and out == ""
    assert err.startswith("chatcli: error: ") and said in err and err.count("\n") == 1
    code, out, _ = _run(capsys, "--json", "-p", "hi", *argv, host=host)
    assert code == 2
    assert said in json.loads(out)["error"] and json.loads(out)["type"] == "UsageError"


def test_taken_names_and_junk_are_reported_and_left_out(home, capsys) -> None:
    recorder = Recorder()
    host = _host(Clashing(), cli_options, recorder)  # the agent's hook runs first
    code, out, err = _run(capsys, "--help", host=host)
    assert code == 0
    assert "--fine" in out and "--mine" not in out and "--other" not in out
    assert out.count("--allow") == 1 and "Pre-approve tool risk classes" in out
    for line in ("registered the option '-m', which another option has (ignored)",
                 "registered the option 'model', which another option has (ignored)",
                 "registered the option '--allow', which another option has (ignored)",
                 "as a command-line option, expected click.Option (ignored)"):
        assert line in err
    code, _, err = _run(capsys, "-p", "hi", "-m", "m1", "--fine", "x", host=host)
    assert code == 0, err
    assert recorder.options[-1].model == "m1"
    assert dict(recorder.options[-1].extra) == {"fine": "x", **NOT_JSON_NOT_RAW}


def test_without_the_agent_there_is_no_allow_or_mode(home, capsys) -> None:
    for flag, value in (("--allow", "write"), ("--permission-mode", "plan")):
        code, _, err = _run(capsys, "-p", "hi", flag, value, host=_host())
        assert code == 2
        assert err.startswith(f"chatcli: error: No such option '{flag}'")
    _, out, _ = _run(capsys, "--help", host=_host())
    assert "--allow" not in out and "--permission-mode" not in out


def test_a_sub_command_runs_with_plugin_options_registered(home, capsys) -> None:
    class Command:
        @hookimpl
        def register_commands(self, cli) -> None:
            @cli.command("hello")
            def hello() -> None:
                click.echo("hello there")

    code, out, err = _run(capsys, "hello", host=_host(CostOptions(), cli_options, Command()))
    assert (code, out) == (0, "hello there\n"), err


def test_the_kernels_front_end_names_no_plugin_option() -> None:
    words = re.compile(r"mcp__|permission.mode|accept-edits|PERMISSION_MODES|RISK_CLASSES|"
                       r"--allow\b|\bexec\(")
    found = [f"{path.name}:{number}: {line.strip()}"
             for folder in FRONT_END for path in sorted(folder.glob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if words.search(line)]
    assert found == []


def test_the_agents_option_offers_the_policys_modes() -> None:
    from chatcli_agent.permissions.policy import MODES

    assert cli_options.MODES == MODES


class Counting:
    """Counts how often chatcli asks for its options."""

    def __init__(self) -> None:
        self.asked = 0

    @hookimpl
    def register_cli_options(self, register) -> None:
        self.asked += 1
        register(click.Option(["--counted"], is_flag=True, help="Counted."))


@pytest.mark.parametrize(("argv", "asked"), [
    (("models",), 0),
    (("config", "path"), 0),
    (("--help",), 1),
    (("-p", "hi"), 1),
    (("--counted", "-p", "hi"), 1),
])
def test_a_sub_command_run_does_not_ask_for_root_options(home, capsys, argv, asked) -> None:
    from chatcli_admin import plugin as admin  # models, config

    counting = Counting()
    code, _, err = _run(capsys, *argv, host=_host(counting, admin))
    assert code == 0, err
    assert counting.asked == asked


def test_a_root_option_before_a_sub_command_is_still_known(home, capsys) -> None:
    from chatcli_admin import plugin as admin  # config

    code, out, err = _run(capsys, "--counted", "config", "path", host=_host(Counting(), admin))
    assert code == 0, err
    assert out.strip().endswith("config.toml")
