"""``chatcli --remote URL``: the chat and ``-p`` against a real ``chatcli serve``.

The quick part reads SSE streams and server events as the client does (no server needed); the
slow part runs the real command line against a real server process (tests/remote/conftest.py's
``server``), the model behind it being the OpenAI wire server.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    Compacted,
    ConfigError,
    RateLimitError,
    Retrying,
    Role,
    TextDelta,
    ToolFinished,
    ToolStarted,
    UsageError,
)
from chatcli_remote.client import RemoteTarget, check_url
from chatcli_remote.client_events import (
    Output,
    Translator,
    approval_parts,
    error_from,
    mirror,
)
from chatcli_remote.client_sse import SseEvent, decode, split_lines
from chatcli_testing import Fault, Reply, ToolCall
from process_support import CHATCLI, process_env

# ---------------------------------------------------------------------- SSE, as the client reads it


def test_sse_frames_become_events_with_their_ids_and_json():
    lines = ["id: b1-1", "event: text", 'data: {"delta": "Hel"}', "",
             ": ping", "",
             "id: b1-2", "event: text", 'data: {"delta": "lo"}', ""]
    events = list(decode(lines))
    assert events == [SseEvent("b1-1", "text", {"delta": "Hel"}),
                      SseEvent("b1-2", "text", {"delta": "lo"})]


def test_sse_data_lines_join_and_an_unfinished_event_is_dropped():
    lines = ["event: output", 'data: {"text":', 'data: "two\\nlines"}', "",
             "event: text", 'data: {"delta": "cut"}']  # the stream ended mid-event
    assert list(decode(lines)) == [SseEvent("", "output", {"text": "two\nlines"})]


def test_sse_without_a_space_after_the_colon_and_without_an_event_name():
    assert list(decode(["data:{\"a\":1}", ""])) == [SseEvent("", "message", {"a": 1})]
    assert list(decode(["data: not json", ""])) == [SseEvent("", "message",
                                                             {"text": "not json"})]


@pytest.mark.parametrize("cut", [1, 2, 3, 7, 1000])
def test_sse_lines_split_only_at_cr_and_lf_however_the_stream_is_cut(cut):
    text = ('id: a-1\r\nevent: text\r\ndata: {"delta": "x\u2028y\x85z\x0c"}\r\n\r\n'
            'event: done\rdata: {}\r\r: ping\n\n')
    pieces = [text[i:i + cut] for i in range(0, len(text), cut)]
    assert list(decode(split_lines(pieces))) == [
        SseEvent("a-1", "text", {"delta": "x\u2028y\x85z\x0c"}),
        SseEvent("a-1", "done", {})]


# ---------------------------------------------------------------------- server events -> kernel's


def translate(*raw: tuple[str, dict], **callbacks) -> tuple[list[object], Translator]:
    translator = Translator(**callbacks)
    out: list[object] = []
    for number, (kind, data) in enumerate(raw, 1):
        out += translator.events(SseEvent(f"b-{number}", kind, data))
    return out, translator


def test_a_turns_events_become_the_kernels_own():
    lines: list[str] = []
    retries: list[Retrying] = []
    events, translator = translate(
        ("turn_started", {"turn": 1, "client": "", "kind": "message"}),
        ("user", {"text": "hi"}),
        ("retrying", {"reason": "rate limited", "delay": 1.5}),
        ("text", {"delta": "Let me look."}),
        ("tool_started", {"call_id": "c1", "name": "exec", "args": {"command": "ls"},
                          "activity": "exec ls"}),
        ("tool_output", {"call_id": "c1", "line": "a.txt"}),
        ("tool_finished", {"call_id": "c1", "name": "exec", "is_error": False,
                           "content": "a.txt"}),
        ("tool_finished", {"call_id": "c2", "name": "write", "is_error": True,
                           "content": "denied"}),
        ("compacted", {"line": "⟲ compacted: ~9,000 → ~2,000 tokens"}),
        ("usage", {"input_tokens": 12, "output_tokens": 5, "context_tokens": 40}),
        ("done", {"stop_reason": "end_turn", "model": "gpt-test", "provider": "openai"}),
        on_tool_output=lines.append, on_retry=retries.append)
    assert [type(e) for e in events] == [Retrying, TextDelta, ToolStarted, ToolFinished,
                                         ToolFinished, Compacted]
    assert isinstance(retries[0].error, RateLimitError) and retries[0].delay == 1.5
    started, finished, refused = events[2], events[3], events[4]
    assert isinstance(started, ToolStarted) and started.call.arguments == {"command": "ls"}
    assert isinstance(finished, ToolFinished) and finished.call is started.call
    assert finished.result.content == "a.txt" and not finished.result.is_error
    assert isinstance(refused, ToolFinished) and refused.call.name == "write"
    assert refused.result.is_error
    compacted = events[5]
    assert isinstance(compacted, Compacted) and "9,000" in compacted.report.line()
    assert lines == ["a.txt"]
    assert translator.usage.input_tokens == 12 and translator.context_tokens == 40
    assert translator.done == {"stop_reason": "end_turn", "model": "gpt-test",
                               "provider": "openai"}
    assert translator.last_id == "b-11"


def test_a_commands_output_questions_approvals_and_status_go_where_they_belong():
    asked: list[dict] = []
    menus: list[dict] = []
    status: list[list[str]] = []
    events, _ = translate(
        ("output", {"text": "spent $0.01\n", "ansi": False}),
        ("question", {"qid": "q1", "title": "Rewind to?", "options": ["a", "b"]}),
        ("approval", {"qid": "q2", "tool": "write", "risk": "write", "args": {}}),
        ("status", {"items": ["openai/gpt-test", "ctx 3%"]}),
        ("answered", {"qid": "q2", "by": "web"}),
        on_approval=asked.append, on_question=menus.append, on_status=status.append)
    assert events == [Output("spent $0.01\n", False)]
    assert [a["qid"] for a in asked] == ["q2"] and [m["qid"] for m in menus] == ["q1"]
    assert status == [["openai/gpt-test", "ctx 3%"]]


def test_an_approval_event_is_asked_as_the_kernels_question_with_the_worker_named():
    call, tool, verdict = approval_parts({
        "qid": "q1", "call_id": "c9", "tool": "exec", "risk": "execute",
        "args": {"command": "make"}, "reason": "runs a build", "label": "w2 (explore)",
        "rule": "exec(make:*)", "preview": "--- a\n+++ b\n", "options": ["once", "no"]})
    assert (call.id, call.name, call.arguments) == ("c9", "exec", {"command": "make"})
    assert tool.name == "exec" and tool.risk.value == "execute"
    assert verdict.reason == "w2 explore: runs a build"  # as chatcli-subagents words it
    assert verdict.rule == "exec(make:*)" and verdict.preview == "--- a\n+++ b\n"
    raw, unknown, plain = approval_parts({"tool": "write", "risk": "??", "args": "{not json"})
    assert raw.raw_arguments == "{not json" and unknown.risk.value == "execute"
    assert plain.reason == "" and plain.rule is None


def test_a_reset_while_following_a_turn_says_whether_it_still_runs():
    _, running = translate(("reset", {"snapshot": {"running": True}}))
    _, gone = translate(("reset", {"snapshot": {"running": False}}))
    assert not running.lost and gone.lost


def test_the_servers_error_line_keeps_its_exit_code_when_its_kind_is_named():
    assert error_from("no such model — pick another", "ModelNotFoundError").exit_code == 2
    plain = error_from("the model's service failed")
    assert str(plain) == "the model's service failed" and plain.exit_code == 1


def test_the_mirror_holds_the_servers_messages_with_their_tool_calls():
    conversation = mirror({"id": "s_1", "title": "t", "messages": [
        {"id": "m1", "role": "user", "text": "write it"},
        {"id": "m2", "role": "assistant", "text": "",
         "tool_calls": [{"call_id": "c1", "name": "write", "args": {"path": "a"}}]},
        {"id": "m3", "role": "tool",
         "tool_results": [{"call_id": "c1", "name": "write", "is_error": False,
                           "content": "ok"}]},
        {"id": "m4", "role": "assistant", "text": "done", "interrupted": True},
        {"role": "nobody", "text": "skipped"}]})
    messages = conversation.messages()
    assert [m.id for m in messages] == ["m1", "m2", "m3", "m4"]
    assert conversation.id == "s_1" and conversation.last(Role.USER).text == "write it"
    assert messages[1].tool_calls[0].id == "c1" and messages[2].tool_results[0].content == "ok"
    assert messages[3].interrupted


# ---------------------------------------------------------------------- the URL and the token


@pytest.mark.parametrize("url", ["http://127.0.0.1:8765", "http://localhost:1/",
                                 "http://[::1]:80", "https://chat.example.com",
                                 "https://10.0.0.2:443/prefix"])
def test_urls_a_token_may_go_to(url):
    assert check_url(url) == url.rstrip("/")


@pytest.mark.parametrize("url", ["http://chat.example.com", "http://10.0.0.2:8765",
                                 "ftp://127.0.0.1", "127.0.0.1:8765",
                                 "https://user:pw@example.com", "http://127.0.0.1/?token=x"])
def test_urls_a_token_must_not_go_to(url):
    with pytest.raises(UsageError) as caught:
        check_url(url)
    assert "\n" not in str(caught.value)


def test_the_token_comes_from_the_variable_then_the_key_file(monkeypatch, home):
    from chatcli_admin.keystore import set_key

    monkeypatch.delenv("CHATCLI_REMOTE_TOKEN", raising=False)
    with pytest.raises(ConfigError) as caught:
        RemoteTarget.from_option("http://127.0.0.1:9")
    assert caught.value.exit_code == 2 and "CHATCLI_REMOTE_TOKEN" in str(caught.value)
    set_key("remote", "ccs_stored_token_1234")
    assert RemoteTarget.from_option("http://127.0.0.1:9").token == "ccs_stored_token_1234"
    monkeypatch.setenv("CHATCLI_REMOTE_TOKEN", "ccs_from_env_5678")
    target = RemoteTarget.from_option("http://127.0.0.1:9/")
    assert target.token == "ccs_from_env_5678" and target.url == "http://127.0.0.1:9"
    assert "ccs_from_env" not in repr(target)


# ---------------------------------------------------------------------- the real command line


def client_env(home: Path, token: str, **extra: str) -> dict[str, str]:
    """A chatcli client's environment: its own folders (nothing of the server's), no key of a
    model service, the server's token."""
    client = home / "client"
    client.mkdir(exist_ok=True)
    return process_env(client, CHATCLI_REMOTE_TOKEN=token, CHATCLI_CACHE_DIR=str(client / "c"),
                       HOME=str(client), **extra)


def remote(home: Path, url: str, token: str, *args: str, stdin: str = "",
           **extra: str) -> subprocess.CompletedProcess[str]:
    """``chatcli --remote URL ARGS`` as a real process, in a folder of its own."""
    folder = home / "client" / "work"
    folder.mkdir(parents=True, exist_ok=True)
    return subprocess.run([str(CHATCLI), "--remote", url, *args], input=stdin,
                          capture_output=True, text=True, timeout=90,
                          env=client_env(home, token, **extra), cwd=folder)


@pytest.mark.slow
def test_p_against_the_server_prints_the_answer(home, server, token, wire):
    wire.script(Reply(text="Hello from the server."))
    done = remote(home, server.url, token, "-p", "hi there")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello from the server.\n"
    assert wire.requests[-1].json["messages"][-1]["content"] == "hi there"
    assert token not in done.stdout + done.stderr


@pytest.mark.slow
def test_p_json_names_the_servers_model(home, server, token, wire):
    import json

    wire.script(Reply(text="42", usage={"input_tokens": 9, "output_tokens": 1}))
    done = remote(home, server.url, token, "-p", "the answer?", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["text"] == "42" and payload["provider"] == "openai"
    assert payload["model"] == "gpt-test" and payload["stop_reason"] == "end_turn"
    assert payload["usage"]["input_tokens"] == 9


@pytest.mark.slow
def test_an_approval_is_answered_here_by_allow_or_denied(home, server, token, wire, root):
    write = ToolCall("write", {"path": "allowed.txt", "content": "yes\n"})
    wire.script(Reply(tool_calls=[write]), Reply(text="written"))
    done = remote(home, server.url, token, "--allow", "write", "-p", "write it")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "written\n"
    assert "tool write(" in done.stderr
    assert (root / "allowed.txt").read_text() == "yes\n"

    denied = ToolCall("write", {"path": "denied.txt", "content": "no\n"})
    wire.script(Reply(tool_calls=[denied]), Reply(text="not written"))
    done = remote(home, server.url, token, "-p", "write another")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "not written\n"
    assert "not run" in done.stderr or "failed" in done.stderr
    assert not (root / "denied.txt").exists()
    results = [r.json["messages"][-1] for r in wire.requests
               if r.json["messages"][-1]["role"] == "tool"]
    assert "denied" in results[-1]["content"].lower()  # what the model was told


@pytest.mark.slow
def test_c_continues_the_servers_latest_session(home, server, token, wire):
    wire.script(Reply(text="Noted: the code word is PLUM."))
    first = remote(home, server.url, token, "-p", "remember PLUM")
    assert first.returncode == 0, first.stderr
    wire.script(Reply(text="It was PLUM."))
    again = remote(home, server.url, token, "-c", "-p", "what was it?")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "It was PLUM.\n"
    asked = next(r for r in wire.requests  # (the server's memory makes side calls too)
                 if r.json["messages"][-1].get("content") == "what was it?")
    sent = [m.get("content") for m in asked.json["messages"]]
    assert "remember PLUM" in sent and "Noted: the code word is PLUM." in sent


@pytest.mark.slow
def test_resume_id_goes_on_with_that_session_and_an_unknown_one_is_a_usage_error(
        home, server, token, wire):
    import json

    wire.script(Reply(text="first session"), Reply(text="second session"),
                Reply(text="back in the first"))
    first = remote(home, server.url, token, "-p", "one", "--json")
    remote(home, server.url, token, "-p", "two")  # the most recent is another one now
    session_id = json.loads(first.stdout)["conversation_id"]
    again = remote(home, server.url, token, "--resume", session_id, "-p", "three")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "back in the first\n"
    asked = next(r for r in wire.requests if r.json["messages"][-1].get("content") == "three")
    sent = [m.get("content") for m in asked.json["messages"]]
    assert "one" in sent and "two" not in sent
    unknown = remote(home, server.url, token, "--resume", "s_nosuchsession", "-p", "hi")
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("chatcli: error: ") and unknown.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_model_failure_on_the_server_is_its_one_line_and_exit_code_1(home, server, token,
                                                                        wire):
    wire.script(Fault(status=400, message="this request is malformed somehow"))
    done = remote(home, server.url, token, "-p", "hi")
    assert done.returncode == 1
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chatcli: error: ")
    assert "malformed" in lines[0]


@pytest.mark.slow
def test_a_model_the_servers_service_does_not_know_exits_2_as_locally(home, server, token,
                                                                       wire):
    wire.script(Fault(status=404, message="The model `nope` does not exist"))
    done = remote(home, server.url, token, "-p", "hi")
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("chatcli: error: ") and "does not exist" in done.stderr


@pytest.mark.slow
def test_p_runs_a_slash_command_on_the_server(home, server, token, wire):
    wire.script(Reply(text="counted", usage={"input_tokens": 777, "output_tokens": 3}))
    assert remote(home, server.url, token, "-p", "count me").returncode == 0
    done = remote(home, server.url, token, "-c", "-p", "/cost")
    assert done.returncode == 0, done.stderr
    assert "provider/model" in done.stdout and "777" in done.stdout


@pytest.mark.slow
def test_model_switches_the_servers_session(home, server, token, wire):
    import json

    wire.script(Reply(text="from the other model"))
    done = remote(home, server.url, token, "-m", "gpt-other", "-p", "hi", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["model"] == "gpt-other"
    asked = next(r for r in wire.requests if r.json["messages"][-1].get("content") == "hi")
    assert asked.json["model"] == "gpt-other"


@pytest.mark.slow
def test_ctrl_c_in_p_stops_the_servers_turn_and_keeps_what_came(home, server, token, wire):
    import signal

    text = "Once upon a time " + "there was a long answer, " * 40
    wire.script(Reply(text=text, delay=0.05), Reply(text="next one"))
    folder = home / "client" / "work"
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([str(CHATCLI), "--remote", server.url, "-p", "tell a story"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=client_env(home, token), cwd=folder)
    assert proc.stdout is not None
    first = proc.stdout.read(8)  # blocks until the answer has started
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    output = (first + rest).decode()
    assert output.startswith("Once upo") and len(output) < len(text)
    assert "Traceback" not in err.decode() and "interrupted" in err.decode()
    # the server's turn ended (no 409 for the next message) and kept the partial answer
    again = remote(home, server.url, token, "-c", "-p", "go on")
    assert again.returncode == 0, again.stderr
    assert again.stdout == "next one\n"
    asked = next(r for r in wire.requests if r.json["messages"][-1].get("content") == "go on")
    kept = [m for m in asked.json["messages"] if m["role"] == "assistant"]
    assert kept and kept[-1]["content"].startswith("Once upo")


@pytest.mark.slow
def test_https_with_a_certificate_the_client_is_told_to_trust(home, env, root, token, wire):
    from remote_support import ServeProcess, self_signed

    cert, key = self_signed(home)
    server = ServeProcess(home, env, root, ("--cert", str(cert), "--key", str(key)),
                          scheme="https").start()
    try:
        untrusted = remote(home, server.url, token, "-p", "hi")
        assert untrusted.returncode == 1
        assert "SSL_CERT_FILE" in untrusted.stderr and untrusted.stderr.count("\n") == 1
        wire.script(Reply(text="over TLS"))
        done = remote(home, server.url, token, "-p", "hi", SSL_CERT_FILE=str(cert))
        assert done.returncode == 0, done.stderr
        assert done.stdout == "over TLS\n"
    finally:
        server.stop()


@pytest.mark.slow
def test_a_server_killed_mid_turn_ends_p_with_one_line_and_what_came(home, env, root, token,
                                                                      wire):
    from remote_support import ServeProcess

    server = ServeProcess(home, env, root).start()  # (not the fixture's: this one is killed)
    text = "Once upon a time " + "there was a long answer, " * 40
    wire.script(Reply(text=text, delay=0.05))
    folder = home / "client" / "work"
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([str(CHATCLI), "--remote", server.url, "-p", "tell a story"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=client_env(home, token), cwd=folder)
    assert proc.stdout is not None
    first = proc.stdout.read(8)  # blocks until the answer has started
    server.kill()
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, err
    assert (first + rest).decode().startswith("Once upo")
    lines = err.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chatcli: error: ")
    assert "chatcli server" in lines[0] and "Traceback" not in err.decode()


@pytest.mark.slow
def test_c_after_a_server_restart_opens_the_saved_session(home, env, root, token, wire):
    from remote_support import ServeProcess

    server = ServeProcess(home, env, root).start()
    try:
        wire.script(Reply(text="Noted: APPLE."))
        assert remote(home, server.url, token, "-p", "remember APPLE").returncode == 0
    finally:
        assert server.stop() == 0
    server.start()  # a new server process: no session is live, the saved one is on disk
    try:
        wire.script(Reply(text="It was APPLE."))
        again = remote(home, server.url, token, "-c", "-p", "what was it?")
        assert again.returncode == 0, again.stderr
        assert again.stdout == "It was APPLE.\n"
        asked = next(r for r in wire.requests
                     if r.json["messages"][-1].get("content") == "what was it?")
        assert "remember APPLE" in [m.get("content") for m in asked.json["messages"]]
    finally:
        server.stop()


@pytest.mark.slow
def test_a_wrong_token_is_one_line_and_a_usage_exit(home, server, token, wire):
    done = remote(home, server.url, "ccs_not_a_token_0000", "-p", "hi")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("chatcli: error: ")
    assert "refused the token" in lines[0] and "ccs_not_a_token_0000" not in lines[0]
    assert not wire.requests


@pytest.mark.slow
def test_plain_http_to_another_machine_and_a_missing_token_are_refused(home, server, wire):
    done = remote(home, "http://192.0.2.7:8765", "x" * 20, "-p", "hi")
    assert done.returncode == 2 and "unencrypted" in done.stderr
    env = client_env(home, "")
    env.pop("CHATCLI_REMOTE_TOKEN")
    done = subprocess.run([str(CHATCLI), "--remote", server.url, "-p", "hi"],
                          capture_output=True, text=True, timeout=60, env=env, input="")
    assert done.returncode == 2 and "no token" in done.stderr


@pytest.mark.slow
def test_a_server_that_is_not_there_is_one_line(home, wire):
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = remote(home, f"http://127.0.0.1:{port}", "ccs_whatever_1234", "-p", "hi")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "cannot reach the chatcli server" in done.stderr


# ---------------------------------------------------------------------- the chat, in a terminal


def chat(home: Path, url: str, token: str, *args: str) -> Any:
    """``chatcli --remote URL`` in a tmux terminal, once its input line is there."""
    from repl.terminal import Terminal, have_tmux

    if not have_tmux():
        pytest.skip("tmux is not installed: the chat is driven in a real terminal")
    env = client_env(home, token, TERM="xterm-256color")
    keep = ("CHATCLI_CONFIG_DIR", "CHATCLI_DATA_DIR", "CHATCLI_CACHE_DIR", "CHATCLI_REMOTE_TOKEN",
            "HOME", "PATH", "TERM")
    folder = home / "client" / "work"
    folder.mkdir(parents=True, exist_ok=True)
    terminal = Terminal(" ".join([str(CHATCLI), "--remote", url, *args]),
                        {k: env[k] for k in keep}, cwd=folder)
    try:
        terminal.wait_for("›", timeout=30)
    except BaseException:
        terminal.close()
        raise
    return terminal


@pytest.mark.terminal
def test_the_chat_against_the_server_answers_and_runs_commands_there(home, server, token, wire):
    wire.script(Reply(text="Hello from afar.", usage={"input_tokens": 1200, "output_tokens": 34}))
    terminal = chat(home, server.url, token)
    try:
        greeting = terminal.screen().splitlines()[0]  # the server's model and address
        assert "openai/gpt-test" in greeting and f"on {server.url}" in greeting
        terminal.type("say hello")
        terminal.wait_for("Hello from afar.", timeout=30)
        terminal.wait_for(lambda s: "1,200 in" in s, timeout=30)  # the turn's footer
        terminal.type("/cost")
        # the server's spend table: the turn above, counted there
        screen = terminal.wait_for(lambda s: "provider/model" in s.split("› /cost", 1)[-1],
                                   timeout=30)
        table = screen.split("› /cost", 1)[-1]
        assert "openai/gpt-test" in table and "1,200" in table
        assert wire.requests[0].json["messages"][-1]["content"] == "say hello"
        terminal.type("/exit")
        terminal.wait_for("EXIT=0", timeout=30)
    finally:
        terminal.close()


@pytest.mark.terminal
def test_the_chats_approval_menu_answers_the_servers_question(home, server, token, wire, root):
    write = ToolCall("write", {"path": "menu.txt", "content": "from the menu\n"})
    wire.script(Reply(text="I will write it.", tool_calls=[write]), Reply(text="wrote it"))
    terminal = chat(home, server.url, token)
    try:
        terminal.type("write menu.txt")
        terminal.wait_for("1. yes, once", timeout=30)
        time.sleep(0.4)  # (keys within 250 ms of the question are taken as typed before it)
        terminal.send("Enter")  # the first option: yes, once
        terminal.wait_for("wrote it", timeout=30)
        assert (root / "menu.txt").read_text() == "from the menu\n"
    finally:
        terminal.close()


@pytest.mark.terminal
def test_ctrl_c_in_the_chat_stops_the_servers_turn(home, server, token, wire):
    wire.script(Fault(stall=30), Reply(text="second answer"))
    terminal = chat(home, server.url, token)
    try:
        terminal.type("first question")
        terminal.wait_for("thinking…", timeout=30)
        terminal.send("C-c")
        terminal.wait_for("⏹ stopped before any answer arrived", timeout=15)
        terminal.type("/retry")
        terminal.wait_for("second answer", timeout=30)
    finally:
        terminal.close()


@pytest.mark.terminal
def test_the_chat_resumes_the_servers_session_with_its_recap(home, server, token, wire):
    wire.script(Reply(text="The code word is PLUM."), Reply(text="Still PLUM."))
    assert remote(home, server.url, token, "-p", "pick a code word").returncode == 0
    terminal = chat(home, server.url, token, "-c")
    try:
        screen = terminal.wait_for("The code word is PLUM.", timeout=30)
        assert "resumed 2 messages" in screen
        assert "› pick a code word" in screen and "The code word is PLUM." in screen
        terminal.type("and now?")
        terminal.wait_for("Still PLUM.", timeout=30)
    finally:
        terminal.close()
