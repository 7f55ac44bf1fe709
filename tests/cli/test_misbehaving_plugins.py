"""Plugins that misbehave — print, exit or fail an assert while imported, return the wrong types,
raise odd exceptions or call ``sys.exit`` in a hook — leave every command working and ``--json``
parseable, and are reported. A provider plugin with a bug (an exception it does not map) or an
SDK that does not import ends the prompt with one error line, keeping the partial answer."""

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
           "CHATCLI_PLUGINS": "openai,sessions,rogue,admin,print"}
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


@pytest.mark.parametrize("body, reason", [
    ("import sys\nsys.exit('needs a licence file')\n", "SystemExit: needs a licence file"),
    ("assert False, 'wrong platform'\n", "AssertionError: wrong platform"),
])
def test_plugin_exiting_or_asserting_at_import_is_skipped(home, openai_server, body, reason):
    extra = plugin_distribution(home, "rogue", body)
    env = {**openai_env(openai_server), "CHATCLI_PLUGINS": "openai,rogue,admin,print", **extra}
    openai_server.script(Reply(text="still works"))
    done = run_process([CHATCLI, "-p", "hi"], home, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "still works\n"
    assert f"plugin 'rogue' failed to import: {reason}" in done.stderr
    listing = run_process([CHATCLI, "plugins", "list"], home, **env)
    assert listing.returncode == 0, listing.stderr
    row = next(line for line in listing.stdout.splitlines() if line.startswith("rogue"))
    assert "failed" in row and reason in row


HOOK_EXITS = """\
import sys
from chatcli import hookimpl

@hookimpl
def session_start(conversation, settings):
    sys.exit(5)

@hookimpl
def register_commands(cli):
    raise SystemExit(3)
"""


def test_plugin_calling_sys_exit_in_a_hook_is_isolated(home, openai_server):
    extra = plugin_distribution(home, "rogue", HOOK_EXITS)
    openai_server.script(Reply(text="answered"))
    env = {**openai_env(openai_server), "CHATCLI_PLUGINS": "openai,rogue,print", **extra}
    done = run_process([CHATCLI, "-p", "hi"], home, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "answered\n"
    assert "plugin 'rogue' failed in hook session_start: SystemExit: 5" in done.stderr
    assert "plugin 'rogue' failed in hook register_commands: SystemExit: 3" in done.stderr


LEAKY_PROVIDER = """\
import os
from chatcli import ProviderSpec, StopEvent, StopReason, TextDelta, hookimpl


class Leaky:
    def __init__(self, config):
        if os.environ.get("LEAKY") == "factory":
            import no_such_sdk_xyz  # noqa: F401  (the SDK is not installed)

    def stream(self, request):
        yield TextDelta(text="half an answer")
        raise KeyError("choices")  # a provider bug: an unmapped SDK error


@hookimpl
def register_providers(register):
    register(ProviderSpec(name="leaky", display_name="Leaky", default_model="m", factory=Leaky,
                          requires_key=False))
"""


def test_unmapped_provider_error_keeps_the_partial_answer(home):
    env = {**plugin_distribution(home, "leaky", LEAKY_PROVIDER),
           "CHATCLI_PLUGINS": "leaky,sessions,print"}
    done = run_process([CHATCLI, "--provider", "leaky", "-p", "my question"], home, **env)
    assert done.returncode == 1
    assert done.stdout == "half an answer\n"
    assert done.stderr.count("\n") == 1 and "unexpected" not in done.stderr
    assert done.stderr.startswith("chatcli: error: the leaky provider failed: KeyError: 'choices'")
    listing = run_process([CHATCLI, "sessions", "list"], home, **env)
    row = listing.stdout.splitlines()[-1].split()
    assert row[-4:] == ["2", "leaky/m", "my", "question"], listing.stdout  # question, partial


def test_provider_whose_sdk_does_not_import_names_it_in_one_line(home):
    env = {**plugin_distribution(home, "leaky", LEAKY_PROVIDER), "CHATCLI_PLUGINS": "leaky,print",
           "LEAKY": "factory"}
    done = run_process([CHATCLI, "--provider", "leaky", "-p", "hi"], home, **env)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(
        "chatcli: error: the Leaky provider cannot start: ModuleNotFoundError: "
        "No module named 'no_such_sdk_xyz' — reinstall the plugin")
