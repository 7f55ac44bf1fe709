"""How a real ``chatcli -p`` process ends: a reader that closes the pipe early is a normal end, a
stdout closed from the start is a usage error before any request, and with ``--json`` every
failure — usage errors included — is exactly one JSON object on stdout (plus one line on
stderr) with the right exit code."""

from __future__ import annotations

import json
import subprocess

import pytest
from chatcli_testing import Fault, Reply
from cli_support import CHATCLI, openai_env, process_env, run_process

LINE = "a line of the long answer\n"


def test_a_reader_closing_the_pipe_early_is_a_normal_end(tmp_path, openai_server):
    pytest.importorskip("chatcli_sessions")
    openai_server.script(Reply(text=LINE * 20_000, chunk_size=400), Reply(text="more"))
    env = process_env(tmp_path, **openai_env(openai_server),
                      CHATCLI_PLUGINS="openai,sessions,print")
    errors = tmp_path / "stderr.txt"
    script = (f'"{CHATCLI}" -p "tell me a lot" 2>"{errors}" | head -1; '
              'echo "chatcli=${PIPESTATUS[0]}"')
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)
    assert done.stdout == LINE + "chatcli=0\n"
    assert errors.read_text() == ""
    # the answer was stopped, not lost: the session kept what had arrived
    again = run_process([CHATCLI, "-c", "-p", "go on"], tmp_path, **openai_env(openai_server),
                        CHATCLI_PLUGINS="openai,sessions,print")
    assert again.returncode == 0, again.stderr
    kept = openai_server.requests[1].json["messages"][-2]
    assert kept["role"] == "assistant" and kept["content"].startswith(LINE * 10)


def test_json_after_a_cut_stream_carries_the_partial_text(tmp_path, openai_server):
    answer = "The partial answer that the service cut."
    openai_server.script(Fault(cut_after=3, reply=Reply(text=answer, chunk_size=4)))
    done = run_process([CHATCLI, "-p", "hi", "--json"], tmp_path, **openai_env(openai_server),
                       CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 1
    assert done.stdout.count("\n") == 1
    payload = json.loads(done.stdout)
    assert payload["type"] == "StreamCutError" and payload["stop_reason"] == "error"
    assert payload["text"] == answer[:12]
    assert payload["error"] in done.stderr and done.stderr.count("\n") == 1


BAD_CONFIG = "max_turns = 'many'\n"


@pytest.mark.parametrize(("args", "fault", "code", "kind"), [
    (["-p", "hi", "--json", "--allow", "teleport"], None, 2, "UsageError"),
    (["--allow", "teleport", "--json", "-p", "hi"], None, 2, "UsageError"),  # before --json
    (["--json", "--no-such-flag"], None, 2, "UsageError"),
    (["--json", "-c", "--resume", "s_1", "-p", "hi"], None, 2, "UsageError"),
    (["--json", "-p", "hi", "--provider", "nope"], None, 2, "UsageError"),
    (["--json", "-p", "hi"], BAD_CONFIG, 2, "ConfigError"),
    (["--json", "-p", "hi"], Fault(status=401, message="bad key"), 1, "AuthError"),
    (["--json", "-p", "hi", "-m", "gpt-nope"],
     Fault(status=404, message="The model `gpt-nope` does not exist"), 2, "ModelNotFoundError"),
])
def test_every_json_failure_is_one_object_and_one_line(tmp_path, openai_server, args, fault,
                                                       code, kind):
    if isinstance(fault, str):
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "config.toml").write_text(fault)
    elif fault is not None:
        openai_server.script(fault)
    done = run_process([CHATCLI, *args], tmp_path, **openai_env(openai_server),
                       CHATCLI_PLUGINS="openai,print")
    assert done.returncode == code, done.stderr
    assert done.stdout.count("\n") == 1, done.stdout
    payload = json.loads(done.stdout)
    assert payload["type"] == kind
    assert done.stderr.startswith("chatcli: error: ") and done.stderr.count("\n") == 1
    assert payload["error"] in done.stderr


def test_json_mode_reports_usage_errors_as_json_too(home):
    done = run_process([CHATCLI, "--json"], home, input="bin\x00ary",
                       CHATCLI_PLUGINS="openai,print")
    assert done.returncode == 2
    payload = json.loads(done.stdout)
    assert payload["type"] == "UsageError" and "binary data" in payload["error"]
    empty = run_process([CHATCLI, "-p", "", "--json"], home, CHATCLI_PLUGINS="openai,print")
    assert empty.returncode == 2 and json.loads(empty.stdout)["type"] == "UsageError"


def test_closed_stdout_is_a_usage_error_before_any_request(home, openai_server):
    env = process_env(home, **openai_env(openai_server), CHATCLI_PLUGINS="openai,print")
    done = subprocess.run(["bash", "-c", f"'{CHATCLI}' -p hi >&-"], capture_output=False,
                          stderr=subprocess.PIPE, text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr == ("chatcli: error: stdout is closed, so the answer has nowhere to go — "
                           "redirect it instead, e.g. `> answer.txt` or `> /dev/null`\n")
    assert openai_server.requests == []
