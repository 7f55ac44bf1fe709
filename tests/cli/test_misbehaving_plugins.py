"""Plugins that misbehave — print while imported, return the wrong types, raise odd exceptions —
leave every command working and ``--json`` parseable, and are reported."""

from __future__ import annotations

import json

import pytest
from chatcli_testing import Reply
from cli_support import CHATCLI, openai_env, plugin_distribution, run_process

NOISY = '''
print("hello from a noisy plugin")
from chatcli import hookimpl

@hookimpl
def prompt_sections():
    return None
'''

WRONG_TYPES = '''
from chatcli import PromptSection, hookimpl

@hookimpl
def register_providers(register):
    register({"name": "not-a-spec"})
    return ["a registration hook returns nothing"]

@hookimpl
def prompt_sections():
    return PromptSection(name="alone", text="a section instead of a list")

@hookimpl
def authorize_tool_call():
    return True

@hookimpl
def register_commands(cli):
    return 42
'''

ODD_EXCEPTIONS = '''
from chatcli import hookimpl

class Halt(BaseException):
    pass

@hookimpl
def configure():
    raise Halt("configure halted")

@hookimpl
def register_commands(cli):
    raise Halt("commands halted")

@hookimpl
def session_start():
    raise SystemExit("start exited")

@hookimpl
def before_request():
    raise Halt("request halted")

@hookimpl
def session_end():
    raise Halt("end halted")
'''

CASES = {
    "noisy": (NOISY, ["plugin 'rogue' misbehaved while importing: wrote 26 characters to stdout"]),
    "wrong-types": (WRONG_TYPES, [
        "plugin 'rogue' failed registering a provider: got dict {'name': 'not-a-spec'}, "
        "expected ProviderSpec",
        "plugin 'rogue' failed in hook register_providers: returned list",
        "plugin 'rogue' failed in hook prompt_sections: returned PromptSection",
        "expected list[PromptSection] or None",
        "plugin 'rogue' failed in hook register_commands: returned int 42, expected None",
    ]),
    "odd-exceptions": (ODD_EXCEPTIONS, [
        "plugin 'rogue' failed in hook configure: Halt: configure halted",
        "plugin 'rogue' failed in hook register_commands: Halt: commands halted",
        "plugin 'rogue' failed in hook session_start: SystemExit: start exited",
        "plugin 'rogue' failed in hook before_request: Halt: request halted",
        "plugin 'rogue' failed in hook session_end: Halt: end halted",
    ]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_command_still_works_and_the_plugin_is_reported(case, home, openai_server):
    body, reports = CASES[case]
    env = {**openai_env(openai_server), **plugin_distribution(home, "rogue", body),
           "CHATCLI_PLUGINS": "openai,sessions,rogue"}
    openai_server.script(Reply(text="still answering"))

    answered = run_process([CHATCLI, "-p", "hi", "--provider", "openai", "--json"], home, **env)
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout)["text"] == "still answering"  # stdout is only the JSON
    stderr = " ".join(answered.stderr.split())
    for report in reports:
        assert report in stderr, (report, answered.stderr)
    assert "Traceback" not in answered.stderr

    for command in (["--help"], ["models"], ["plugins", "list"], ["config", "list"],
                    ["keys", "list"], ["sessions", "list"]):
        done = run_process([CHATCLI, *command], home, **env)
        assert done.returncode == 0, (command, done.stderr)
        assert "hello from a noisy plugin" not in done.stdout
        assert "Traceback" not in done.stderr
    listing = run_process([CHATCLI, "plugins", "list"], home, **env)
    row = next(line for line in listing.stdout.splitlines() if line.startswith("rogue"))
    assert ("misbehaving" if case == "noisy" else "failed") in row
    version = run_process([CHATCLI, "--version"], home, **env)
    assert version.returncode == 0 and version.stdout.startswith("chatcli ")
