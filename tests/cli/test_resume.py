"""``chatcli -c`` and ``--resume`` in a real one-shot process with the sessions store: the
conversation goes on with the provider that answered it unless a flag names another, or with
another provider when its own lost its key; an unknown session is one error line."""

from __future__ import annotations

import json

import pytest
from chatcli_testing import Reply
from cli_support import CHATCLI, run_process

SECRET = "sk-proc-test-0123456789abcdef"


def test_continue_resumes_the_last_session(home, openai_server):
    pytest.importorskip("chatcli_sessions")
    openai_server.script(Reply(text="first answer"), Reply(text="second answer"))
    env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": openai_server.url,
           "CHATCLI_PLUGINS": "openai,sessions,print"}
    assert run_process([CHATCLI, "-p", "q1"], home, **env).returncode == 0
    done = run_process([CHATCLI, "-c", "-p", "q2"], home, **env)
    assert done.returncode == 0, done.stderr
    sent = [m["content"] for m in openai_server.requests[1].json["messages"]]
    assert sent[-3:] == ["q1", "first answer", "q2"]
    missing = run_process([CHATCLI, "--resume", "no-such-session", "-p", "q3"], home, **env)
    assert missing.returncode == 2
    assert missing.stderr.startswith("chatcli: error: ") and missing.stderr.count("\n") == 1


def test_a_resumed_session_goes_on_with_its_provider_unless_one_is_named(
    home, openai_server, anthropic_server
):
    pytest.importorskip("chatcli_sessions")
    openai_server.script(Reply(text="from openai"), Reply(text="openai again"))
    anthropic_server.script(Reply(text="from anthropic"))
    env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": openai_server.url,
           "ANTHROPIC_API_KEY": SECRET, "ANTHROPIC_BASE_URL": anthropic_server.url,
           "CHATCLI_PLUGINS": "openai,anthropic,sessions,print"}
    first = run_process([CHATCLI, "--provider", "openai", "-p", "q1"], home, **env)
    assert first.returncode == 0, first.stderr
    # anthropic has the higher priority, but the session was answered by openai
    resumed = run_process([CHATCLI, "-c", "-p", "q2"], home, **env)
    assert resumed.stdout == "openai again\n" and len(anthropic_server.requests) == 0
    switched = run_process([CHATCLI, "-c", "--provider", "anthropic", "-p", "q3"], home, **env)
    assert switched.stdout == "from anthropic\n"
    assert len(openai_server.requests) == 2 and len(anthropic_server.requests) == 1


def test_a_resumed_session_whose_provider_lost_its_key_goes_on_with_another(
    home, openai_server, anthropic_server
):
    pytest.importorskip("chatcli_sessions")
    anthropic_server.script(Reply(text="from anthropic"))
    openai_server.script(Reply(text="openai takes over"))
    both = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": openai_server.url,
            "ANTHROPIC_BASE_URL": anthropic_server.url,
            "CHATCLI_PLUGINS": "openai,anthropic,sessions,print"}
    first = run_process([CHATCLI, "--provider", "anthropic", "-p", "q1"], home,
                        ANTHROPIC_API_KEY=SECRET, **both)
    assert first.returncode == 0, first.stderr
    resumed = run_process([CHATCLI, "-c", "-p", "q2", "--json"], home, **both)  # no Anthropic key
    assert resumed.returncode == 0, resumed.stderr
    answer = json.loads(resumed.stdout)
    assert answer["provider"] == "openai" and answer["text"] == "openai takes over"
    sent = [m["content"] for m in openai_server.requests[0].json["messages"]]
    assert sent[-3:] == ["q1", "from anthropic", "q2"]
