"""chatcli as a real process: the console script, real pipes, signals and the OpenAI wire."""

from __future__ import annotations

import json
import signal
import stat
import subprocess
import sys

import chatcli
from chatcli_testing import Fault, Reply, ToolCall
from cli_support import CHATCLI, PYTHON, SCRIPTED_APP, process_env, run_process

SDKS = ("openai", "anthropic", "ollama", "xllamacpp", "mcp", "httpx2")
SECRET = "sk-proc-test-0123456789abcdef"


def imported_modules(stderr: str) -> set[str]:
    """Top-level module names from ``-X importtime`` output."""
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name and name != "imported package":
                names.add(name.split(".")[0])
    return names


def script_env(*items) -> str:
    """``CLI_TEST_SCRIPT`` for scripted_app.py."""
    out = []
    for item in items:
        if isinstance(item, Reply):
            out.append({"reply": {k: v for k, v in vars(item).items()
                                  if k != "tool_calls" and v is not None}})
        elif isinstance(item, Fault):
            out.append({"fault": {k: v for k, v in vars(item).items()
                                  if v is not None and k != "reply"}})
        else:
            out.append(item)
    return json.dumps(out)


def test_version_answers_without_importing_click(home):
    done = run_process([CHATCLI, "--version"], home, PYTHONPROFILEIMPORTTIME="1")
    assert done.returncode == 0
    assert done.stdout == f"chatcli {chatcli.__version__}\n"
    modules = imported_modules(done.stderr)
    assert "chatcli" in modules
    assert "click" not in modules and "pluggy" not in modules and "stevedore" not in modules


def test_help_imports_no_provider_sdk(home):
    done = run_process([CHATCLI, "--help"], home, PYTHONPROFILEIMPORTTIME="1")
    assert done.returncode == 0
    assert "Usage: chatcli" in done.stdout and "models" in done.stdout
    modules = imported_modules(done.stderr)
    assert "click" in modules  # the measurement works
    assert not modules & set(SDKS), sorted(modules & set(SDKS))


def test_prompt_against_the_openai_wire(home, openai_server):
    openai_server.script(Reply(text="Hello from the wire.",
                               usage={"input_tokens": 7, "output_tokens": 5,
                                      "cache_read_tokens": 2}))
    done = run_process([CHATCLI, "-p", "hi", "--json"], home, OPENAI_API_KEY=SECRET,
                       OPENAI_BASE_URL=openai_server.url, CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["text"] == "Hello from the wire."
    assert payload["provider"] == "openai"
    assert payload["usage"]["cache_read_tokens"] == 2
    assert openai_server.requests[0].json["messages"][-1]["content"] == "hi"


def test_provider_401_is_one_line_without_the_key(home, openai_server):
    openai_server.script(Fault(status=401, message=f"Incorrect API key provided: {SECRET}"))
    done = run_process([CHATCLI, "-p", "hi"], home, OPENAI_API_KEY=SECRET,
                       OPENAI_BASE_URL=openai_server.url, CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("chatcli: error: ") and done.stderr.count("\n") == 1
    assert SECRET not in done.stderr and "Traceback" not in done.stderr


def test_rate_limit_retry_status_then_answer_over_the_wire(home, openai_server):
    openai_server.script(Fault(status=429, retry_after=0.1), Reply(text="after the wait"))
    done = run_process([CHATCLI, "-p", "hi", "--raw"], home, OPENAI_API_KEY=SECRET,
                       OPENAI_BASE_URL=openai_server.url, CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "after the wait\n"
    assert "chatcli: rate limited, retrying in 0.1s" in done.stderr


def test_unknown_provider_exit_2_in_a_real_process(home):
    done = run_process([CHATCLI, "-p", "hi", "--provider", "nosuch"], home,
                       CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 2
    assert done.stderr.startswith("chatcli: error: unknown provider 'nosuch'")
    assert "Traceback" not in done.stderr


def test_malformed_config_in_a_real_process(home):
    (home / "config" / "config.toml").write_text("temperature = 9\n")
    done = run_process([CHATCLI, "-p", "hi"], home, CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 2
    assert str(home / "config" / "config.toml") in done.stderr
    assert "'temperature'" in done.stderr and done.stderr.count("\n") == 1


def test_keys_through_a_real_pipe(home):
    done = run_process([CHATCLI, "keys", "set", "openai"], home, input=SECRET + "\n",
                       CHATCLI_PLUGINS="openai,admin")
    assert done.returncode == 0, done.stderr
    key_file = home / "config" / "keys.toml"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    listed = run_process([CHATCLI, "keys", "list"], home, CHATCLI_PLUGINS="openai,admin")
    models = run_process([CHATCLI, "models"], home, CHATCLI_PLUGINS="openai,admin")
    for output in (done, listed, models):
        assert SECRET not in output.stdout + output.stderr
    assert "keys.toml" in next(x for x in models.stdout.splitlines() if " openai " in x)
    assert run_process([CHATCLI, "keys", "remove", "openai"], home,
                       CHATCLI_PLUGINS="openai,admin").returncode == 0
    assert SECRET not in key_file.read_text()


def test_plugins_selection_and_listing(home):
    done = run_process([CHATCLI, "plugins", "list"], home, CHATCLI_PLUGINS="openai,admin")
    assert done.returncode == 0
    rows = {line.split()[0]: line for line in done.stdout.splitlines()[1:]}
    assert "loaded" in rows["openai"] and "register_providers" in rows["openai"]
    assert "disabled" in rows.get("anthropic", "disabled")


def test_stdin_pipe_through_a_real_process(home):
    done = run_process([PYTHON, SCRIPTED_APP, "-p", "review", "--json"], home,
                       input="+added line\n", CLI_TEST_SCRIPT=script_env(Reply(text="fine")))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "fine"


def test_tool_denied_and_allowed_in_a_real_process(home):
    script = json.dumps([{"tool": "write_note", "args": {"path": "n.txt", "text": "hi"}},
                         {"reply": {"text": "done"}}])
    denied = run_process([PYTHON, SCRIPTED_APP, "-p", "note"], home, CLI_TEST_SCRIPT=script)
    assert denied.returncode == 0 and "--allow" in denied.stderr
    assert not (home / "work" / "n.txt").exists()
    allowed = run_process([PYTHON, SCRIPTED_APP, "-p", "note", "--allow", "write"], home,
                          CLI_TEST_SCRIPT=script)
    assert allowed.returncode == 0, allowed.stderr
    assert (home / "work" / "n.txt").read_text() == "hi"
    assert ToolCall  # the script format mirrors chatcli_testing.ToolCall


def test_sigint_keeps_the_partial_answer_and_exits_130(home):
    text = "Once upon a time " + "and then " * 200
    proc = subprocess.Popen(
        [str(PYTHON), str(SCRIPTED_APP), "-p", "tell a story"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=process_env(home, CLI_TEST_SCRIPT=script_env(Reply(text=text, delay=0.05))),
        cwd=home / "work",
    )
    assert proc.stdout is not None
    first = proc.stdout.read(8)  # blocks until the answer has started
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    output = (first + rest).decode()
    assert proc.returncode == 130, err
    assert output.startswith("Once upo")
    assert len(output) < len(text)
    assert "Traceback" not in err.decode() and "interrupted" in err.decode()


def test_help_lists_plugin_commands_of_installed_plugins(home):
    done = run_process([CHATCLI, "--help"], home)
    assert done.returncode == 0
    assert sys.executable  # the venv's chatcli ran
    for name in ("models", "keys", "config", "plugins"):
        assert f"  {name} " in done.stdout


def _broken_distribution(root) -> dict[str, str]:
    """A distribution on PYTHONPATH whose ``chatcli.plugins`` entry point fails to import."""
    site = root / "site"
    info = site / "chatcli_broken-0.0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: chatcli-broken\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\nbroken = chatcli_broken_mod\n")
    (site / "chatcli_broken_mod.py").write_text("raise ImportError('needs libfoo')\n")
    return {"PYTHONPATH": str(site)}


def test_plugin_failing_to_import_is_listed_and_prompt_still_works(home, openai_server):
    extra = _broken_distribution(home)
    listing = run_process([CHATCLI, "plugins", "list"], home, **extra)
    assert listing.returncode == 0, listing.stderr
    row = next(x for x in listing.stdout.splitlines() if x.startswith("broken"))
    assert "failed" in row and "needs libfoo" in row
    assert "plugin 'broken' failed to import" in listing.stderr
    assert "Traceback" not in listing.stderr

    openai_server.script(Reply(text="works anyway"))
    done = run_process([CHATCLI, "-p", "hi", "--provider", "openai"], home, **extra,
                       OPENAI_API_KEY=SECRET, OPENAI_BASE_URL=openai_server.url)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "works anyway\n"


def test_plugins_list_shows_versions(home):
    done = run_process([CHATCLI, "plugins", "list"], home, CHATCLI_PLUGINS="openai,admin")
    row = next(x for x in done.stdout.splitlines() if x.startswith("openai"))
    assert row.split()[1][0].isdigit()


def test_a_full_disk_is_one_line_naming_it(home, openai_server):
    openai_server.script(Reply(text="an answer with nowhere to go"))
    env = process_env(home, OPENAI_API_KEY=SECRET, OPENAI_BASE_URL=openai_server.url,
                      CHATCLI_PLUGINS="openai,print")
    with open("/dev/full", "w") as full:
        done = subprocess.run([CHATCLI, "-p", "hi", "--raw"], env=env, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60, input="")
    assert done.returncode == 1
    assert done.stderr == ("chatcli: error: cannot write: No space left on device — free some "
                           "space, or send the output to another disk\n")


def test_python_m_chatcli_cli_is_the_chatcli_command(home):
    module = run_process([PYTHON, "-m", "chatcli_cli", "--version"], home)
    script = run_process([CHATCLI, "--version"], home)
    assert module.returncode == 0 and module.stdout == script.stdout
    assert module.stdout.startswith("chatcli ")


def test_a_missing_api_key_is_a_set_up_error_with_exit_code_2(home):
    done = run_process([CHATCLI, "-p", "hi", "--provider", "openai"], home,
                       CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 2
    assert done.stderr == ("chatcli: error: no API key for OpenAI — run `chatcli keys set "
                           "openai` or export OPENAI_API_KEY\n")
