"""Regression tests from the one-shot audit: real ``chatcli`` processes against the wire servers."""

from __future__ import annotations

import json
import subprocess

import pytest
from chatcli_testing import Fault, Reply
from cli_support import CHATCLI, process_env, run_process

SECRET = "sk-audit-test-0123456789abcdef"


def openai_env(server) -> dict[str, str]:
    """The variables that point chatcli's OpenAI provider at ``server``."""
    return {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.url, "CHATCLI_PLUGINS": "openai"}


def test_prompt_honours_the_configured_max_retries(home, openai_server):
    openai_server.script(Fault(status=500, message="the server broke"), Reply(text="late"))
    done = run_process([CHATCLI, "-p", "hi"], home, **openai_env(openai_server),
                       CHATCLI_PROVIDERS__OPENAI__MAX_RETRIES="0")
    assert done.returncode == 1
    assert "retrying" not in done.stderr
    assert len(openai_server.requests) == 1


def _plugin_distribution(home, body: str, name: str = "rogue") -> dict[str, str]:
    """A throwaway distribution on PYTHONPATH whose ``chatcli.plugins`` entry point is ``body``."""
    site = home / "site"
    (site / f"{name}_plugin").mkdir(parents=True)
    (site / f"{name}_plugin" / "__init__.py").write_text(body)
    info = site / f"{name}_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[chatcli.plugins]\n{name} = {name}_plugin\n")
    return {"PYTHONPATH": str(site)}


@pytest.mark.parametrize("body, reason", [
    ("import sys\nsys.exit('needs a licence file')\n", "SystemExit: needs a licence file"),
    ("assert False, 'wrong platform'\n", "AssertionError: wrong platform"),
])
def test_plugin_exiting_or_asserting_at_import_is_skipped(home, openai_server, body, reason):
    extra = _plugin_distribution(home, body)
    env = {**openai_env(openai_server), "CHATCLI_PLUGINS": "openai,rogue", **extra}
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
    extra = _plugin_distribution(home, HOOK_EXITS)
    openai_server.script(Reply(text="answered"))
    env = {**openai_env(openai_server), "CHATCLI_PLUGINS": "openai,rogue", **extra}
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
    env = {**_plugin_distribution(home, LEAKY_PROVIDER, "leaky"),
           "CHATCLI_PLUGINS": "leaky,sessions"}
    done = run_process([CHATCLI, "--provider", "leaky", "-p", "my question"], home, **env)
    assert done.returncode == 1
    assert done.stdout == "half an answer\n"
    assert done.stderr.count("\n") == 1 and "unexpected" not in done.stderr
    assert done.stderr.startswith("chatcli: error: the leaky provider failed: KeyError: 'choices'")
    listing = run_process([CHATCLI, "sessions", "list"], home, **env)
    row = listing.stdout.splitlines()[-1].split()
    assert row[-4:] == ["2", "leaky/m", "my", "question"], listing.stdout  # question, partial


def test_provider_whose_sdk_does_not_import_names_it_in_one_line(home):
    env = {**_plugin_distribution(home, LEAKY_PROVIDER, "leaky"), "CHATCLI_PLUGINS": "leaky",
           "LEAKY": "factory"}
    done = run_process([CHATCLI, "--provider", "leaky", "-p", "hi"], home, **env)
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(
        "chatcli: error: the Leaky provider cannot start: ModuleNotFoundError: "
        "No module named 'no_such_sdk_xyz' — reinstall the plugin")


def test_retry_after_too_long_to_wait_names_the_wait(home, anthropic_server):
    anthropic_server.script(Fault(status=429, retry_after=120, message="Rate limit reached"))
    done = run_process([CHATCLI, "-p", "hi"], home, ANTHROPIC_API_KEY=SECRET,
                       ANTHROPIC_BASE_URL=anthropic_server.url, CHATCLI_PLUGINS="anthropic")
    assert done.returncode == 1
    assert "retrying in" not in done.stderr and len(anthropic_server.requests) == 1
    assert done.stderr.count("\n") == 1
    assert "the service asks to wait 120s before retrying" in done.stderr


def test_json_mode_reports_usage_errors_as_json_too(home):
    done = run_process([CHATCLI, "--json"], home, input="bin\x00ary", CHATCLI_PLUGINS="openai")
    assert done.returncode == 2
    payload = json.loads(done.stdout)
    assert payload["type"] == "UsageError" and "binary data" in payload["error"]
    empty = run_process([CHATCLI, "-p", "", "--json"], home, CHATCLI_PLUGINS="openai")
    assert empty.returncode == 2 and json.loads(empty.stdout)["type"] == "UsageError"


def test_closed_stdout_is_a_usage_error_before_any_request(home, openai_server):
    env = process_env(home, **openai_env(openai_server))
    done = subprocess.run(["bash", "-c", f"'{CHATCLI}' -p hi >&-"], capture_output=False,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr == ("chatcli: error: stdout is closed, so the answer has nowhere to go — "
                           "redirect it instead, e.g. `> answer.txt` or `> /dev/null`\n")
    assert openai_server.requests == []


@pytest.mark.parametrize("argv", [
    ["keys", "set", "openai", "plain-secret-value-42"],  # the key after the name
    ["keys", "set", SECRET],                              # the key instead of the name
])
def test_a_key_on_the_command_line_is_refused_without_echoing_it(home, argv):
    done = run_process([CHATCLI, *argv], home, CHATCLI_PLUGINS="openai")
    assert done.returncode == 2
    assert "takes no key on the command line" in done.stderr
    assert "plain-secret-value-42" not in done.stderr and SECRET not in done.stderr
    assert not (home / "config" / "keys.toml").exists()


def test_config_set_refuses_to_write_an_api_key_in_plain_text(home):
    done = run_process([CHATCLI, "config", "set", "providers.openai.api_key", SECRET], home,
                       CHATCLI_PLUGINS="openai")
    assert done.returncode == 2
    assert "chatcli keys set openai" in done.stderr and SECRET not in done.stderr
    assert not (home / "config" / "config.toml").exists()
    listing = run_process([CHATCLI, "config", "list"], home, CHATCLI_PLUGINS="openai")
    assert SECRET not in listing.stdout


@pytest.mark.parametrize("name, why", [
    ("chatcli-kernel", "is chatcli itself"),
    ("click", "is not a chatcli plugin"),
])
def test_plugins_uninstall_refuses_chatcli_itself_and_non_plugins(home, name, why):
    # --dry-run: if the guard ever regresses, the test must not really uninstall anything
    done = run_process([CHATCLI, "plugins", "uninstall", name, "--dry-run"], home)
    assert done.returncode == 2
    assert why in done.stderr and "pip uninstall" not in done.stderr
    plugin = run_process([CHATCLI, "plugins", "uninstall", "openai", "--dry-run"], home)
    assert plugin.returncode == 0 and "chatcli-provider-openai" in plugin.stderr
