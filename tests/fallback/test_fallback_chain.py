"""A fallback chain through the real ``chatcli`` and the real SDKs against the wire servers:
it moves on after a rate limit or a server error, skips an entry while it cools down, comes
back to it after its cooldown, stops on an error that is the user's to fix, never switches once
text arrived, and names an unknown provider's closest name."""

from __future__ import annotations

import json

import pytest
from chatcli_testing import Fault, Reply
from fallback_support import (
    ANTHROPIC_KEY,
    OPENAI_KEY,
    run_chatcli,
    run_inprocess,
    server_env,
    state,
    wait_for_cooldown,
    write_config,
)

CHAIN = """
provider = "fallback"

[fallback]
chain = ["anthropic/claude-test", "openai/gpt-test"]
cooldown = {cooldown}
cooldown_factor = 1.5
"""


def test_a_cooling_entry_is_skipped_by_the_next_process(fb_home, anthropic_server,
                                                        openai_server):
    write_config(fb_home, CHAIN.format(cooldown=120))
    env = server_env(anthropic_server, openai_server)
    anthropic_server.script(Fault(status=429, message="slow down"), "never asked")
    openai_server.script("gpt one", "gpt two")

    first = run_chatcli(fb_home, "-p", "hi", env=env)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "gpt one\n"
    assert "anthropic/claude-test failed: " in first.stderr and "429" in first.stderr
    assert "answered by openai/gpt-test (via fallback)" in first.stderr
    assert len(anthropic_server.requests) == 1 and len(openai_server.requests) == 1
    assert openai_server.requests[0].json["model"] == "gpt-test"
    path = fb_home / "data" / "fallback" / "state.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert ANTHROPIC_KEY not in path.read_text() and OPENAI_KEY not in path.read_text()

    second = run_chatcli(fb_home, "-p", "hi", "--json", env=env)
    payload = json.loads(second.stdout)
    assert second.returncode == 0 and payload["text"] == "gpt two"
    assert len(anthropic_server.requests) == 1, "a cooling entry was asked"
    assert (payload["provider"], payload["model"], payload["via"]) == (
        "openai", "gpt-test", "fallback")
    assert [(f["provider"], f["model"], f["type"]) for f in payload["failed"]] == [
        ("anthropic", "claude-test", "skipped")]
    assert "cooling down" in payload["failed"][0]["error"]
    for done in (first, second):
        assert ANTHROPIC_KEY not in done.stdout + done.stderr
        assert OPENAI_KEY not in done.stdout + done.stderr


@pytest.mark.slow
def test_rate_limit_then_server_error_move_on_and_the_chain_comes_back(
        fb_home, anthropic_server, openai_server, capsys, monkeypatch):
    import anthropic  # noqa: F401 - imported before the runs, so each takes milliseconds
    import openai  # noqa: F401

    write_config(fb_home, CHAIN.format(cooldown=4))
    env = server_env(anthropic_server, openai_server)
    anthropic_server.script(Fault(status=429, message="slow down"),
                            Fault(status=500, message="the server broke"),
                            Reply(text="claude is back"))
    openai_server.script("gpt one", "gpt two", "gpt three")

    def ask() -> tuple[int, str, str]:
        return run_inprocess(capsys, monkeypatch, "-p", "hi", env=env)

    assert ask()[:2] == (0, "gpt one\n")
    assert ask()[:2] == (0, "gpt two\n")  # cooling: not asked
    assert len(anthropic_server.requests) == 1

    wait_for_cooldown(fb_home, "anthropic/claude-test")
    code, out, err = ask()
    assert (code, out) == (0, "gpt three\n") and "the server broke" in err
    assert len(anthropic_server.requests) == 2
    health = state(fb_home)["entries"]["anthropic/claude-test"]
    assert health["errors"] == 2
    # the second failure in a row cools down longer: 4 s × 1.5
    assert health["cooldown_until"] - health["last_failure"] == pytest.approx(6.0)

    wait_for_cooldown(fb_home, "anthropic/claude-test")
    code, out, err = ask()
    assert (code, out, err) == (0, "claude is back\n", "")
    assert len(anthropic_server.requests) == 3 and len(openai_server.requests) == 3
    assert state(fb_home)["entries"]["anthropic/claude-test"]["errors"] == 0


def test_an_auth_error_stops_the_chain_with_the_users_fix(fb_home, anthropic_server,
                                                          openai_server):
    write_config(fb_home, CHAIN.format(cooldown=30))
    anthropic_server.script(Fault(status=401, message="invalid x-api-key"))
    done = run_chatcli(fb_home, "-p", "hi", env=server_env(anthropic_server, openai_server))
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("chatcli: error: ")
    assert "chatcli keys set anthropic" in lines[0] or "ANTHROPIC_API_KEY" in lines[0]
    assert ANTHROPIC_KEY not in done.stderr
    assert openai_server.requests == []


def test_also_on_lets_an_auth_error_move_on(fb_home, anthropic_server, openai_server):
    write_config(fb_home, CHAIN.format(cooldown=30) + 'also_on = ["auth"]\n')
    anthropic_server.script(Fault(status=401, message="invalid x-api-key"))
    openai_server.script("gpt answers")
    done = run_chatcli(fb_home, "-p", "hi", "--json",
                       env=server_env(anthropic_server, openai_server))
    payload = json.loads(done.stdout)
    assert done.returncode == 0 and payload["text"] == "gpt answers"
    assert [f["type"] for f in payload["failed"]] == ["AuthError"]


def test_a_stream_cut_after_text_is_not_retried_elsewhere(fb_home, anthropic_server,
                                                          openai_server):
    write_config(fb_home, CHAIN.format(cooldown=30))
    anthropic_server.script(Fault(cut_after=3, reply=Reply(text="the first part of it",
                                                            chunk_size=4)))
    done = run_chatcli(fb_home, "-p", "hi", "--json",
                       env=server_env(anthropic_server, openai_server))
    payload = json.loads(done.stdout)
    assert done.returncode == 1
    assert payload["text"] == "the first pa"
    assert payload["stop_reason"] == "error" and payload["type"] == "StreamCutError"
    assert openai_server.requests == [], "the answer switched provider mid-stream"
    assert state(fb_home)["entries"]["anthropic/claude-test"]["errors"] == 1


def test_every_entry_failing_is_one_error_naming_each(fb_home, anthropic_server, openai_server):
    write_config(fb_home, CHAIN.format(cooldown=30))
    anthropic_server.script(Fault(status=529, message="overloaded"))
    openai_server.script(Fault(status=503, message="unavailable"))
    done = run_chatcli(fb_home, "-p", "hi", env=server_env(anthropic_server, openai_server))
    assert done.returncode == 1
    assert "retrying" not in done.stderr  # the chain already tried every entry
    line = done.stderr.splitlines()[-1]
    assert line.startswith("chatcli: error: every entry of the fallback chain failed")
    assert "anthropic/claude-test" in line and "openai/gpt-test" in line
    assert len(anthropic_server.requests) == 1 and len(openai_server.requests) == 1


def test_an_unknown_provider_is_a_config_error_naming_the_closest(fb_home):
    write_config(fb_home, '[fallback]\nchain = ["antropic/claude-x", "openai/gpt-x"]\n')
    done = run_chatcli(fb_home, "--provider", "fallback", "-p", "hi")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "unknown provider 'antropic'" in done.stderr
    assert "did you mean 'anthropic'?" in done.stderr


def test_the_chain_on_the_command_line(fb_home, anthropic_server, openai_server):
    anthropic_server.script(Fault(status=429, message="slow down"))
    openai_server.script("from the command line")
    done = run_chatcli(fb_home, "--provider", "fallback", "--model",
                       "anthropic/claude-cli,openai/gpt-cli", "-p", "hi", "--json",
                       env=server_env(anthropic_server, openai_server))
    payload = json.loads(done.stdout)
    assert payload["text"] == "from the command line"
    assert payload["model"] == "gpt-cli"
    assert anthropic_server.requests[0].json["model"] == "claude-cli"
    # no chain is configured: its entries' health is listed as (other)
    shown = run_chatcli(fb_home, "providers", "status").stdout
    row = next(line for line in shown.splitlines() if "anthropic/claude-cli" in line)
    assert row.startswith("(other)") and "cooling down" in row


def test_no_chain_configured_says_how_to_set_one(fb_home):
    done = run_chatcli(fb_home, "--provider", "fallback", "-p", "hi")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "no fallback chain is configured" in done.stderr
    assert "fallback.chain" in done.stderr


def test_continue_goes_on_with_the_chain(fb_home, anthropic_server, openai_server):
    write_config(fb_home, CHAIN.format(cooldown=120).replace('provider = "fallback"\n', ""))
    env = server_env(anthropic_server, openai_server)
    anthropic_server.script(Fault(status=429, message="slow down"))
    openai_server.script("first answer", "second answer")
    first = run_chatcli(fb_home, "--provider", "fallback", "-p", "one", "--json", env=env)
    assert json.loads(first.stdout)["provider"] == "openai"
    again = run_chatcli(fb_home, "-c", "-p", "two", "--json", env=env)
    payload = json.loads(again.stdout)
    assert again.returncode == 0, again.stderr
    # the chain answers again (anthropic still cooling: skipped), not openai on its own
    assert (payload["text"], payload["via"]) == ("second answer", "fallback")
    assert [f["type"] for f in payload["failed"]] == ["skipped"]
    assert [m["role"] for m in openai_server.requests[-1].json["messages"]][-3:] == [
        "user", "assistant", "user"]


def test_a_session_switches_to_the_chain(fb_home, anthropic_server, openai_server, monkeypatch):
    from chatcli import Message, PluginHost, Session, load_settings

    write_config(fb_home, CHAIN.format(cooldown=120).replace('provider = "fallback"\n', ""))
    for name, value in server_env(anthropic_server, openai_server).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CHATCLI_PLUGINS", "fallback,openai,anthropic,print")
    host = PluginHost(warn=lambda line: None)
    host.load_entry_points()
    session = Session(host, load_settings({"provider": "openai"})).open()
    openai_server.script("plain openai", "via the chain")
    anthropic_server.script(Fault(status=500, message="down"))
    list(session.run(Message.user("one")))
    session.switch("fallback")  # what /switch fallback does
    assert session.provider_name == "fallback" and session.model == "chain"
    finished = list(session.run(Message.user("two")))[-1]
    assert finished.text == "via the chain" and finished.answered_by == "openai"
    assert [f.kind for f in finished.failed] == ["ServerError"]
    session.close()


def test_a_silent_entry_times_out_and_the_chain_moves_on(fb_home, anthropic_server,
                                                         openai_server):
    write_config(fb_home, CHAIN.format(cooldown=30) + "timeout = 1\n")
    anthropic_server.script(Fault(stall=30))
    openai_server.script("gpt was awake")
    done = run_chatcli(fb_home, "-p", "hi", "--json",
                       env=server_env(anthropic_server, openai_server))
    payload = json.loads(done.stdout)
    assert done.returncode == 0, done.stderr
    assert payload["text"] == "gpt was awake"
    assert [f["type"] for f in payload["failed"]] == ["ProviderTimeoutError"]


def test_the_chain_from_a_variable(fb_home, anthropic_server, openai_server):
    anthropic_server.script(Fault(status=503, message="unavailable"))
    openai_server.script("from the variable's chain")
    env = server_env(anthropic_server, openai_server) | {
        "CHATCLI_FALLBACK__CHAIN": "anthropic/claude-env, openai/gpt-env",
        "CHATCLI_FALLBACK__COOLDOWN": "60"}
    done = run_chatcli(fb_home, "--provider", "fallback", "-p", "hi", "--json", env=env)
    payload = json.loads(done.stdout)
    assert payload["text"] == "from the variable's chain" and payload["model"] == "gpt-env"
    health = state(fb_home)["entries"]["anthropic/claude-env"]
    assert health["cooldown_until"] - health["last_failure"] == pytest.approx(60)
