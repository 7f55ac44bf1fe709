"""A plugin that raises anything at import — ``KeyboardInterrupt`` and other ``BaseException``
subclasses included — is reported as failed and skipped, in every command (``--help`` too), while
the user's real Ctrl+C during that import still ends chatcli with 130. A plugin whose import takes
a second or more is named once with its time and the setting that skips it, whether it is imported
at start-up or later, on the first call of one of its hooks."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest
from chatcli_testing import Reply
from cli_support import CHATCLI, openai_env, plugin_distribution, process_env, run_process

#: What a plugin does at import → the reason ``plugins list`` and the warning give.
RAISED_AT_IMPORT = [
    ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    ("raise KeyboardInterrupt('stop here')\n", "KeyboardInterrupt: stop here"),
    ("class Stop(KeyboardInterrupt):\n    pass\nraise Stop()\n", "Stop"),
    ("raise SystemExit\n", "SystemExit"),
    ("raise SystemExit(0)\n", "SystemExit: 0"),
    ("import sys\nsys.exit(130)\n", "SystemExit: 130"),
    ("class Halt(BaseException):\n    pass\nraise Halt('halted')\n", "Halt: halted"),
    ("raise GeneratorExit\n", "GeneratorExit"),
    ("def deep():\n    raise KeyboardInterrupt\ndeep()\n", "KeyboardInterrupt"),
]

COMMANDS = (["--help"], ["models"], ["config", "list"])


@pytest.mark.parametrize("body, reason", RAISED_AT_IMPORT, ids=[r for _, r in RAISED_AT_IMPORT])
def test_whatever_a_plugin_raises_at_import_is_isolated(home, openai_server, body, reason):
    env = {**openai_env(openai_server), **plugin_distribution(home, "rogue", body),
           "CHATCLI_PLUGINS": "openai,sessions,rogue,admin,print"}
    warning = (f"chatcli: warning: plugin 'rogue' failed to import: {reason} "
               "(disable it with CHATCLI_DISABLE_PLUGINS=rogue)")
    openai_server.script(Reply(text="still answering"))

    answered = run_process([CHATCLI, "-p", "hi", "--provider", "openai"], home, **env)
    assert (answered.returncode, answered.stdout) == (0, "still answering\n"), answered.stderr
    assert answered.stderr.splitlines() == [warning]

    for command in COMMANDS:
        done = run_process([CHATCLI, *command], home, **env)
        assert done.returncode == 0, (command, done.returncode, done.stderr)
        assert done.stdout, command
        assert warning in done.stderr.splitlines(), (command, done.stderr)
        assert "Traceback" not in done.stderr

    listing = run_process([CHATCLI, "plugins", "list"], home, **env)
    assert listing.returncode == 0, listing.stderr
    row = next(line for line in listing.stdout.splitlines() if line.startswith("rogue"))
    assert "failed" in row and f"to import: {reason}" in row


SLEEPS_AT_IMPORT = '''
import os, pathlib, time
pathlib.Path(os.environ["ROGUE_MARK"]).write_text("importing")
time.sleep(float(os.environ["ROGUE_NAP"]))
from chatcli import hookimpl

@hookimpl
def prompt_sections():
    return None

@hookimpl
def before_request():
    return None
'''


@pytest.mark.parametrize("command", [["--help"], ["-p", "hi"], ["plugins", "list"]])
def test_the_users_ctrl_c_during_a_plugin_import_still_ends_chatcli(home, command):
    mark = home / "importing"
    env = process_env(home, **plugin_distribution(home, "rogue", SLEEPS_AT_IMPORT),
                      CHATCLI_PLUGINS="rogue,print", ROGUE_MARK=str(mark), ROGUE_NAP="30")
    proc = subprocess.Popen(  # SIGINT as a terminal leaves it (the runner may ignore it)
        [str(CHATCLI), *command], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env, cwd=home / "work",
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 30
    while not mark.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert mark.exists(), proc.communicate(timeout=30)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "failed to import" not in err


def test_a_slow_import_is_named_once_with_its_time_and_the_way_to_skip_it(home, openai_server):
    env = {**openai_env(openai_server), **plugin_distribution(home, "sluggish", SLEEPS_AT_IMPORT),
           "CHATCLI_PLUGINS": "openai,sluggish,admin,print", "ROGUE_MARK": str(home / "mark"),
           "ROGUE_NAP": "1.2"}
    openai_server.script(Reply(text="first"), Reply(text="second"))

    def slow_lines(stderr: str) -> list[str]:
        return [line for line in stderr.splitlines() if "to import" in line]

    # The first start-up imports it at once (its hooks are not known yet) ...
    first = run_process([CHATCLI, "-p", "hi"], home, **env)
    assert (first.returncode, first.stdout) == (0, "first\n"), first.stderr
    [line] = slow_lines(first.stderr)
    assert line.startswith("chatcli: warning: plugin 'sluggish' took 1.")
    assert line.endswith(" s to import; CHATCLI_DISABLE_PLUGINS=sluggish skips it"), line
    # ... later ones on the first call of one of its hooks, in the middle of the turn.
    second = run_process([CHATCLI, "-p", "hi"], home, **env)
    assert (second.returncode, second.stdout) == (0, "second\n"), second.stderr
    assert len(slow_lines(second.stderr)) == 1, second.stderr
    # --help calls none of its hooks: not imported, not named.
    helped = run_process([CHATCLI, "--help"], home, **env)
    assert helped.returncode == 0 and helped.stderr == ""
    # The setting it names does skip it.
    skipped = run_process([CHATCLI, "plugins", "list"], home,
                          **{**env, "CHATCLI_PLUGINS": "openai,sluggish,admin",
                             "CHATCLI_DISABLE_PLUGINS": "sluggish"})
    assert skipped.returncode == 0 and skipped.stderr == ""
    assert "disabled" in next(line for line in skipped.stdout.splitlines()
                              if line.startswith("sluggish"))


def test_a_quick_import_is_not_named(home, openai_server):
    env = {**openai_env(openai_server), **plugin_distribution(home, "quick", SLEEPS_AT_IMPORT),
           "CHATCLI_PLUGINS": "openai,quick,print", "ROGUE_MARK": str(home / "mark"),
           "ROGUE_NAP": "0.3"}
    openai_server.script(Reply(text="fine"))
    done = run_process([CHATCLI, "-p", "hi"], home, **env)
    assert (done.returncode, done.stdout, done.stderr) == (0, "fine\n", "")
    assert os.path.exists(home / "mark")  # it was imported
