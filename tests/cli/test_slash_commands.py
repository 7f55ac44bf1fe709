"""``chatcli -p "/name …"`` runs a plugin's slash command, with the one-shot run as its chat."""

from __future__ import annotations

import json

from chatcli_testing import Reply
from cli_support import CHATCLI, openai_env, plugin_distribution, run_process

COMMANDS = '''
from chatcli import SlashCommand, hookimpl

def shout(app, argument):
    finished = app.ask(f"Please answer loudly: {argument}")
    app.console.print(f"[shout] stop={finished.stop_reason.value} model={app.session.model}",
                      markup=False)

def choose(app, argument):
    app.console.print(f"picked {app.pick('Which one?', ['a', 'b'])}")

def broken(app, argument):
    raise KeyError("bug in a plugin")

@hookimpl
def register_slash_commands(register):
    register(SlashCommand(name="shout", help="answer loudly", run=shout, aliases=["yell"]))
    register(SlashCommand(name="choose", help="a menu", run=choose))
    register(SlashCommand(name="broken", help="a bug", run=broken))
'''


def run(home, server, prompt, *flags):
    env = {**openai_env(server), **plugin_distribution(home, "shouter", COMMANDS),
           "CHATCLI_PLUGINS": "openai,shouter,print"}
    return run_process([CHATCLI, "-p", prompt, "--provider", "openai", "--model", "m", *flags],
                       home, **env)


def test_a_slash_command_runs_a_turn_shown_like_an_answer(home, openai_server):
    openai_server.script(Reply(text="HELLO THERE"))
    done = run(home, openai_server, "/yell hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "HELLO THERE\n[shout] stop=end_turn model=m\n"
    sent = openai_server.requests[0].json["messages"][-1]["content"]
    assert sent == "Please answer loudly: hello"


def test_a_menu_cannot_be_shown_so_the_command_is_told_no_choice(home, openai_server):
    done = run(home, openai_server, "/choose")
    assert done.returncode == 0
    assert done.stdout == "picked None\n"
    assert "needs a choice" in done.stderr and openai_server.requests == []


def test_a_failing_command_is_one_line_and_a_path_is_a_message(home, openai_server):
    done = run(home, openai_server, "/broken")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "/broken failed: KeyError" in done.stderr and "Traceback" not in done.stderr
    openai_server.script(Reply(text="a path, not a command"))
    path = run(home, openai_server, "/usr/lib/libx.so: cannot open", "--json")
    assert json.loads(path.stdout)["text"] == "a path, not a command"
    unknown = run(home, openai_server, "/nosuch thing")
    assert unknown.returncode == 0  # not a registered command: sent to the model as it is
