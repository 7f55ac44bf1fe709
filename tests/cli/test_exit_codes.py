"""Mistakes of the user are usage errors (exit 2) that say what to do: an unknown model, two
ways of choosing the session, a plugin selection without any provider, a subcommand used wrong
(its ``--help`` is named)."""

from __future__ import annotations

import json

import pytest
from chatcli_testing import Fault, Reply
from cli_support import CHATCLI, openai_env, run_bytes, run_process


def test_a_model_the_service_does_not_know_is_a_usage_error(tmp_path, openai_server):
    openai_server.script(Fault(status=404, message="The model `gpt-nope` does not exist"))
    done = run_process([CHATCLI, "-p", "hi", "-m", "gpt-nope"], tmp_path,
                       **openai_env(openai_server), CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 2
    assert done.stderr.startswith("chatcli: error: OpenAI does not know model 'gpt-nope'")
    assert "pick a model from `chatcli models`" in done.stderr and done.stderr.count("\n") == 1


def test_an_unknown_model_in_process_with_json_exits_2(cli):
    cli.script(Fault(status=404, message="no such model"))
    result = cli("-p", "hi", "-m", "nope", "--json")
    assert result.code == 2
    assert json.loads(result.out)["type"] == "ModelNotFoundError"


def test_continue_and_resume_together_are_refused_before_anything_runs(cli):
    cli.script(Reply(text="never sent"))
    for args in (["-c", "--resume", "s_1", "-p", "hi"], ["--resume", "s_1", "-c"]):
        result = cli(*args)
        assert result.code == 2
        assert result.err == ("chatcli: error: -c and --resume both choose the session to go on "
                              "with — give one: -c for the most recent session, --resume ID for "
                              "another\n")
    assert cli.provider.requests == []


def test_a_plugin_selection_without_providers_says_so(tmp_path):
    done = run_process([CHATCLI, "-p", "hi"], tmp_path, CHATCLI_PLUGINS="sessions,print")
    assert done.returncode == 2
    assert done.stderr.startswith("chatcli: error: no provider is loaded: CHATCLI_PLUGINS or "
                                  "CHATCLI_DISABLE_PLUGINS leaves out ")
    assert "openai" in done.stderr and "add a provider plugin's name to CHATCLI_PLUGINS" in (
        done.stderr)
    assert "pip install" not in done.stderr and done.stderr.count("\n") == 1


#: Selections that leave out the plugin answering the command: (argv, environment, stdin).
LEFT_OUT = [
    (["-p", "hi"], {"CHATCLI_PLUGINS": "openai"}, "", "print"),
    (["-p", "hi"], {"CHATCLI_DISABLE_PLUGINS": "print"}, "", "print"),
    (["--json", "-p", "/help"], {"CHATCLI_PLUGINS": "openai,repl"}, "", "print"),
    ([], {"CHATCLI_PLUGINS": "openai,repl"}, "piped question", "print"),
]


#: a process per selection (one loads every plugin): the quick selection keeps the first
LEFT_OUT_PARAMS = [pytest.param(*case, marks=() if index == 0 else pytest.mark.slow)
                   for index, case in enumerate(LEFT_OUT)]


@pytest.mark.parametrize("argv, env, stdin, name", LEFT_OUT_PARAMS)
def test_a_selection_without_the_front_end_names_it_and_asks_nothing(tmp_path, openai_server,
                                                                      argv, env, stdin, name):
    """chatcli-print is installed here: the fix is the selection, not `pip install`."""
    done = run_process([CHATCLI, *argv], tmp_path, input=stdin, **openai_env(openai_server),
                       **env)
    line = (f"answering a prompt needs chatcli-{name}, which CHATCLI_PLUGINS or "
            f"CHATCLI_DISABLE_PLUGINS leaves out — add {name} to CHATCLI_PLUGINS (or take it "
            "out of the other)")
    assert done.returncode == 2 and done.stderr == f"chatcli: error: {line}\n"
    if "--json" in argv:
        assert json.loads(done.stdout) == {"error": line, "type": "UsageError"}
    else:
        assert done.stdout == ""
    assert openai_server.requests == []


def test_usage_errors_point_at_the_subcommand_help(tmp_path):
    done = run_bytes(tmp_path, ["plugins", "new", "x", "--dest", "y"])
    assert done.returncode == 2
    assert "see `chatcli plugins new --help`" in done.stderr.decode()
