"""``chatcli serve`` as a real process: tokens, the API, SSE streams, approvals from another
client, the limits, TLS, the OpenAPI document, and faults (a client killed mid-stream, the
server killed mid-turn)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from chatcli_testing import Fault, OpenAIServer, Reply, ToolCall
from process_support import CHATCLI
from remote_support import (
    FAKE_KEY,
    Frame,
    ServeProcess,
    create_token,
    frames,
    self_signed,
    until,
)

pytestmark = pytest.mark.slow


def _open(client: httpx.Client, **body: Any) -> str:
    answer = client.post("/api/sessions", json=body)
    assert answer.status_code == 201, answer.text
    sid = answer.json()["id"]
    assert isinstance(sid, str)
    return sid


def _turn(client: httpx.Client, sid: str, text: str) -> list[Frame]:
    with client.stream("POST", f"/api/sessions/{sid}/messages", json={"text": text}) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        assert r.headers["cache-control"] == "no-store"
        assert r.headers["x-accel-buffering"] == "no"
        return until(frames(r.iter_lines()))


def _text(events: list[Frame]) -> str:
    return "".join(str(f.data["delta"]) for f in events if f.event == "text")


def _error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"type", "message"}
    message = body["error"]["message"]
    assert "\n" not in message
    return str(message)


# ---------------------------------------------------------------------- tokens and start-up


def test_tokens_are_created_once_listed_without_secrets_and_revoked(
        env: dict[str, str], root: Path, home: Path) -> None:
    secret, done = create_token(env, "laptop", root, "--expires", "30d")
    assert secret.startswith("ccs_") and len(secret) == 4 + 43
    assert secret not in done.stderr and "only time" in done.stderr
    path = home / "config" / "serve-tokens.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert secret not in path.read_text() and secret[4:] not in path.read_text()
    stored = json.loads(path.read_text())["tokens"]
    assert [t["name"] for t in stored] == ["laptop"]
    assert stored[0]["root"] == str(root.resolve()) and stored[0]["expires"] > stored[0]["created"]
    assert len(stored[0]["sha256"]) == 64 and stored[0]["revoked"] is False

    listing = subprocess.run([str(CHATCLI), "serve", "token", "list"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert listing.returncode == 0 and "laptop" in listing.stdout and "active" in listing.stdout
    assert secret not in listing.stdout and stored[0]["sha256"] not in listing.stdout

    again = subprocess.run([str(CHATCLI), "serve", "token", "create", "--name", "laptop",
                            "--root", str(root)], env=env, capture_output=True, text=True,
                           timeout=60)
    assert again.returncode == 2 and "exists already" in again.stderr

    assert "warning" not in done.stderr
    (root / "src").mkdir()
    _, inside = create_token(env, "src", root / "src")
    assert f"inside the project {root.resolve()}" in inside.stderr
    assert f"give --root {root.resolve()}" in inside.stderr

    revoked = subprocess.run([str(CHATCLI), "serve", "token", "revoke", "laptop"], env=env,
                             capture_output=True, text=True, timeout=60)
    assert revoked.returncode == 0 and stored[0]["id"] in revoked.stdout
    assert [t["revoked"] for t in json.loads(path.read_text())["tokens"]] == [True, False]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_server_refuses_to_start_without_a_token_or_tls_off_loopback(
        env: dict[str, str], root: Path) -> None:
    run = subprocess.run([str(CHATCLI), "serve", "--port", "0"], env=env, cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    assert "chatcli serve token create --name NAME --root DIR" in run.stderr

    create_token(env, "t", root)
    run = subprocess.run([str(CHATCLI), "serve", "--host", "0.0.0.0", "--port", "0"], env=env,
                         cwd=root, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--cert" in run.stderr and run.stderr.count("\n") == 1

    config = root.parent.parent / "config" / "config.toml"
    config.write_text("[serve]\nmax_request_bytes = \"big\"\n")
    run = subprocess.run([str(CHATCLI), "serve", "--port", "0"], env=env, cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stderr.count("\n") == 1
    assert "[serve] max_request_bytes must be a positive whole number" in run.stderr
    config.unlink()

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        run = subprocess.run([str(CHATCLI), "serve", "--port", port], env=env, cwd=root,
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "--port" in run.stderr and run.stderr.count("\n") == 1


# ---------------------------------------------------------------------- the API


def test_sessions_are_created_listed_exported_and_deleted(
        server: ServeProcess, token: str, wire: OpenAIServer, root: Path) -> None:
    assert f"listening on http://127.0.0.1:{server.port}" in server.log("stdout")
    wire.script(Reply(text="Paris is the capital."))
    with server.client(token) as client:
        sid = _open(client)
        events = _turn(client, sid, "capital of France?")
        kinds = [f.event for f in events]
        assert kinds[0] == "turn_started" and kinds[-1] == "done"
        assert kinds.index("user") < kinds.index("text") < kinds.index("usage")
        assert _text(events) == "Paris is the capital."
        assert events[-1].data["stop_reason"] == "end_turn"
        seqs = [int(str(f.id).rsplit("-", 1)[1]) for f in events]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)

        listed = client.get("/api/sessions").json()["sessions"]
        assert [s["id"] for s in listed] == [sid]
        assert listed[0]["project"] == str(root.resolve()) and listed[0]["live"] is True

        snapshot = client.get(f"/api/sessions/{sid}").json()
        assert snapshot["id"] == sid and snapshot["running"] is False
        assert "Paris is the capital." in json.dumps(snapshot["messages"])

        md = client.get(f"/api/sessions/{sid}/export", params={"format": "md"})
        assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
        assert "Paris is the capital." in md.text and "capital of France?" in md.text
        exported = client.get(f"/api/sessions/{sid}/export", params={"format": "json"})
        assert "Paris is the capital." in json.dumps(exported.json())
        _error(client.get(f"/api/sessions/{sid}/export", params={"format": "pdf"}), 400)

        commands = client.get("/api/commands").json()["commands"]
        assert {"name", "description"} <= set(commands[0])

        assert client.delete(f"/api/sessions/{sid}").status_code == 204
        _error(client.get(f"/api/sessions/{sid}"), 404)
        assert client.get("/api/sessions").json()["sessions"] == []


def test_a_provider_error_ends_the_turn_with_one_line_and_no_key(
        server: ServeProcess, token: str, wire: OpenAIServer) -> None:
    wire.script(Fault(status=401, message=f"Incorrect API key provided: {FAKE_KEY}"))
    with server.client(token) as client:
        sid = _open(client)
        done = _turn(client, sid, "hello")[-1]
        assert done.event == "done" and done.data["stop_reason"] == "error"
        line = str(done.data["error_line"])
        assert "\n" not in line and line
        assert not client.get(f"/api/sessions/{sid}").json()["running"]
    # the server fixture then checks that no body or header ever held the key


def _watch(server: ServeProcess, token: str, sid: str, out: list[Frame],
           ready: threading.Event, **headers: str) -> None:
    with server.client(token) as client, client.stream(
            "GET", f"/api/sessions/{sid}/events", headers=headers) as r:
        assert r.status_code == 200
        ready.set()
        out.extend(until(frames(r.iter_lines())))


def test_two_watchers_see_identical_events_and_last_event_id_replays(
        server: ServeProcess, token: str, wire: OpenAIServer) -> None:
    wire.script(Reply(text="one two three four five", chunk_size=3))
    with server.client(token) as client:
        sid = _open(client)
        seen: list[list[Frame]] = [[], []]
        readies = [threading.Event(), threading.Event()]
        watchers = [threading.Thread(target=_watch, args=(server, token, sid, seen[i],
                                                           readies[i])) for i in (0, 1)]
        for thread in watchers:
            thread.start()
        for ready in readies:
            assert ready.wait(30)
        posted = _turn(client, sid, "count")
        for thread in watchers:
            thread.join(60)
        ids = [(f.id, f.event) for f in posted]
        assert [(f.id, f.event) for f in seen[0] if f.event != "reset"][-len(ids):] == ids
        assert [(f.id, f.event) for f in seen[0]] == [(f.id, f.event) for f in seen[1]]

        middle = posted[2]
        rest = [(f.id, f.event) for f in posted[3:]]
        for headers, params in (({"Last-Event-ID": str(middle.id)}, {}),
                                ({}, {"after": str(middle.id)})):
            with client.stream("GET", f"/api/sessions/{sid}/events", headers=headers,
                               params=params) as r:
                replay = until(frames(r.iter_lines()))
            assert [(f.id, f.event) for f in replay] == rest

        with client.stream("GET", f"/api/sessions/{sid}/events",
                           headers={"Last-Event-ID": "0zz-5"}) as r:
            first = next(frames(r.iter_lines()))
        assert first.event == "reset" and first.data["snapshot"]["id"] == sid


def test_a_second_message_while_a_turn_runs_is_409_and_cancel_stops_it(
        server: ServeProcess, token: str, wire: OpenAIServer) -> None:
    wire.script(Reply(text="slow answer here", chunk_size=2, pauses={1: 30}))
    with server.client(token) as client:
        sid = _open(client)
        with client.stream("POST", f"/api/sessions/{sid}/messages",
                           json={"text": "go"}) as r:
            stream = frames(r.iter_lines())
            for frame in stream:
                if frame.event == "text":
                    break
            busy = client.post(f"/api/sessions/{sid}/messages", json={"text": "again"})
            assert busy.json()["error"]["type"] == "TurnBusy"
            assert "cancel" in _error(busy, 409)
            assert client.get(f"/api/sessions/{sid}").json()["running"] is True
            assert client.post(f"/api/sessions/{sid}/cancel").status_code == 204
            rest = until(stream)
        assert rest[-1].data["stop_reason"] != "end_turn"
        assert client.get(f"/api/sessions/{sid}").json()["running"] is False


def test_an_approval_is_answered_by_a_second_client(
        server: ServeProcess, token: str, wire: OpenAIServer, root: Path) -> None:
    wire.script(Reply(tool_calls=[ToolCall("write", {"path": "notes.txt", "content": "hi\n"})]),
                Reply(text="written."))
    with server.client(token) as asker, server.client(token) as other:
        sid = _open(asker)
        with asker.stream("POST", f"/api/sessions/{sid}/messages",
                          json={"text": "write it"}) as r:
            stream = frames(r.iter_lines())
            approval = until(stream, "approval")[-1]
            assert approval.data["tool"] == "write"
            assert "once" in approval.data["options"]
            qid = approval.data["qid"]
            answer = other.post(f"/api/sessions/{sid}/questions/{qid}",
                                json={"allow": True, "scope": "once"})
            assert answer.status_code == 204, answer.text
            _error(other.post(f"/api/sessions/{sid}/questions/{qid}",
                              json={"allow": False}), 409)
            rest = until(stream)
        kinds = [f.event for f in rest]
        assert "answered" in kinds and "tool_finished" in kinds
        assert "+hi" in str(approval.data["preview"])  # the diff the user is asked about
        started = next(f for f in rest if f.event == "tool_started")
        assert "+hi" in str(started.data["preview"]) and started.data["name"] == "write"
        finished = next(f for f in rest if f.event == "tool_finished")
        assert finished.data["is_error"] is False and finished.data["added"] == 1
        assert _text(rest) == "written."
    assert (root / "notes.txt").read_text() == "hi\n"


def test_a_slash_command_streams_its_output_until_done(
        server: ServeProcess, token: str, wire: OpenAIServer) -> None:
    wire.script(Reply(text="hello", usage={"input_tokens": 1200, "output_tokens": 30}))
    with server.client(token) as client:
        sid = _open(client)
        _turn(client, sid, "hi")
        with client.stream("POST", f"/api/sessions/{sid}/commands",
                           json={"line": "/cost", "width": 80, "color": False}) as r:
            assert r.status_code == 200
            events = until(frames(r.iter_lines()))
        assert events[0].event == "turn_started" and events[0].data["kind"] == "command"
        output = "".join(str(f.data["text"]) for f in events if f.event == "output")
        assert "1,200" in output or "1200" in output, output
        assert all(f.data["ansi"] is False for f in events if f.event == "output")
        _error(client.post(f"/api/sessions/{sid}/commands", json={"line": "cost"}), 400)
        _error(client.post(f"/api/sessions/{sid}/commands", json={"line": "/cost",
                                                                  "width": 5}), 400)
        _error(client.get("/api/sessions/no-such-session"), 404)
        _error(client.get("/api/sessions/..%2f..%2fetc"), 404)


def test_a_commands_menu_is_answered_by_another_client(
        server: ServeProcess, token: str, wire: OpenAIServer) -> None:
    wire.script(Reply(text="first answer"), Reply(text="second answer"))
    with server.client(token) as client, server.client(token) as other:
        sid = _open(client)
        _turn(client, sid, "first question")
        _turn(client, sid, "second question")
        with client.stream("POST", f"/api/sessions/{sid}/commands",
                           json={"line": "/rewind"}) as r:
            stream = frames(r.iter_lines())
            question = until(stream, "question")[-1]
            assert len(question.data["options"]) == 2
            qid = question.data["qid"]
            pick = next(i for i, label in enumerate(question.data["options"])
                        if "second question" in label)
            _error(other.post(f"/api/sessions/{sid}/questions/{qid}", json={"choice": "1"}), 400)
            answered = other.post(f"/api/sessions/{sid}/questions/{qid}", json={"choice": pick})
            assert answered.status_code == 204, answered.text
            rest = until(stream)
        assert {"qid": qid, "by": "tests", "choice": pick}.items() <= next(
            f.data for f in rest if f.event == "answered").items()
        assert "log" in [f.event for f in rest]
        messages = json.dumps(client.get(f"/api/sessions/{sid}").json()["messages"])
        assert "first answer" in messages and "second question" not in messages


def test_sigint_stops_the_server_cleanly_while_a_watcher_streams(
        home: Path, env: dict[str, str], root: Path, token: str) -> None:
    server = ServeProcess(home, env, root).start()
    with server.client(token) as client:
        sid = _open(client)
        ready, ended = threading.Event(), threading.Event()

        def watch() -> None:  # the stream ends (cut: the client reconnects with its last id)
            with contextlib.suppress(httpx.RemoteProtocolError), server.client(token) as watcher, \
                    watcher.stream("GET", f"/api/sessions/{sid}/events") as r:
                ready.set()
                for _ in r.iter_lines():
                    pass
            ended.set()

        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        assert ready.wait(30)
        assert server.process is not None
        server.process.send_signal(signal.SIGINT)
        assert server.process.wait(30) == 0
        thread.join(30)
    assert ended.is_set()
    assert "Traceback" not in server.log()


# ---------------------------------------------------------------------- refusals and limits


def test_wrong_missing_and_revoked_tokens_are_401(
        server: ServeProcess, token: str, env: dict[str, str], root: Path) -> None:
    with server.client() as anonymous:
        assert "chatcli serve token create" in _error(anonymous.get("/api/sessions"), 401)
    with server.client("ccs_" + "x" * 43) as wrong:
        assert "revoked" in _error(wrong.get("/api/sessions"), 401)
    second, _ = create_token(env, "second", root)
    with server.client(second) as client:
        assert client.get("/api/sessions").status_code == 200
        revoked = subprocess.run([str(CHATCLI), "serve", "token", "revoke", "second"], env=env,
                                 capture_output=True, text=True, timeout=60)
        assert revoked.returncode == 0
        _error(client.get("/api/sessions"), 401)
    with server.client(token) as client:
        assert client.get("/api/sessions").status_code == 200


def test_a_token_sees_nothing_outside_its_root(
        server: ServeProcess, token: str, env: dict[str, str], home: Path,
        wire: OpenAIServer) -> None:
    other_root = home / "roots" / "other"
    (other_root / ".git").mkdir(parents=True)
    other, _ = create_token(env, "other", other_root)
    wire.script(Reply(text="mine"))
    with server.client(token) as mine, server.client(other) as theirs:
        sid = _open(mine)
        _turn(mine, sid, "hello")
        for response in (theirs.get(f"/api/sessions/{sid}"),
                         theirs.get(f"/api/sessions/{sid}/export"),
                         theirs.get(f"/api/sessions/{sid}/events"),
                         theirs.post(f"/api/sessions/{sid}/messages", json={"text": "x"}),
                         theirs.post(f"/api/sessions/{sid}/cancel"),
                         theirs.delete(f"/api/sessions/{sid}")):
            _error(response, 404)
        assert theirs.get("/api/sessions").json()["sessions"] == []
        _error(theirs.post("/api/sessions", json={"workspace": str(home / "roots" / "main")}),
               404)
        _error(theirs.post("/api/sessions", json={"workspace": "../main"}), 404)
        (other_root / "escape").symlink_to(home / "roots" / "main")
        _error(theirs.post("/api/sessions", json={"workspace": "escape"}), 404)
        assert mine.get(f"/api/sessions/{sid}").status_code == 200


def test_malformed_and_oversized_bodies(server: ServeProcess, token: str) -> None:
    with server.client(token) as client:
        sid = _open(client)
        for raw in (b"{not json", b"[1, 2]", b'"text"'):
            _error(client.post(f"/api/sessions/{sid}/messages", content=raw,
                               headers={"Content-Type": "application/json"}), 400)
        _error(client.post(f"/api/sessions/{sid}/messages", json={"text": 3}), 400)
        _error(client.post(f"/api/sessions/{sid}/questions/q1", json={"allow": "yes"}), 400)
        big = json.dumps({"text": "x" * (1 << 20)}).encode()
        assert "max_request_bytes" in _error(
            client.post(f"/api/sessions/{sid}/messages", content=big), 413)

        def chunks() -> Any:  # no Content-Length: chunked transfer, counted as it arrives
            for _ in range(40):
                yield b"x" * 65536

        _error(client.post(f"/api/sessions/{sid}/messages", content=chunks()), 413)
        assert client.get(f"/api/sessions/{sid}").status_code == 200
        _error(client.get("/api/nothing"), 404)
        assert set(_error(client.put("/api/sessions"), 405) and client.put(
            "/api/sessions").headers["allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


def test_the_rate_limit_answers_429_with_retry_after(
        home: Path, env: dict[str, str], root: Path, token: str) -> None:
    (home / "config" / "config.toml").write_text(
        "[serve.rate]\nper_minute = 1\nburst = 3\n")
    server = ServeProcess(home, env, root).start()
    try:
        with server.client(token) as client:
            codes = [client.get("/api/commands").status_code for _ in range(3)]
            assert codes == [200, 200, 200]
            limited = client.get("/api/commands")
            assert "Retry-After" in _error(limited, 429)
            assert int(limited.headers["retry-after"]) >= 1
        with server.client("ccs_guess") as guesser:  # guesses are limited by address
            codes = [guesser.get("/api/commands").status_code for _ in range(3)]
            assert codes == [401, 401, 401]
            assert _error(guesser.get("/api/commands"), 429)
    finally:
        server.stop()


def test_tls_with_a_self_signed_certificate(
        home: Path, env: dict[str, str], root: Path, token: str) -> None:
    import ssl

    cert, key = self_signed(home)
    server = ServeProcess(home, env, root, ("--cert", str(cert), "--key", str(key)),
                          scheme="https").start()
    try:
        assert f"listening on https://127.0.0.1:{server.port}" in server.log("stdout")
        context = ssl.create_default_context(cafile=str(cert))
        with server.client(token, verify=context) as client:
            assert client.get("/api/commands").status_code == 200
        with pytest.raises(httpx.ConnectError), server.client(token) as untrusting:
            untrusting.get("/api/commands")
    finally:
        server.stop()


# ---------------------------------------------------------------------- the document and the page


def test_the_page_and_the_document_need_no_token(server: ServeProcess) -> None:
    from chatcli_remote.serve.app import OPENAPI_PATH, WEB_DIR

    with server.client() as client:
        doc = client.get("/openapi.json")
        assert doc.status_code == 200 and doc.json() == json.loads(OPENAPI_PATH.read_text())
        page = client.get("/")
        assert page.headers["content-security-policy"] == "default-src 'self'"
        if (WEB_DIR / "index.html").exists():
            assert page.status_code == 200 and "<html" in page.text.lower()
        for file in sorted(p.name for p in WEB_DIR.glob("*") if p.name != "index.html"):
            assert client.get(f"/static/{file}").status_code == 200
        _error(client.get("/static/no-such-file.js"), 404)
        _error(client.get("/static/%2e%2e/openapi.json"), 404)
        _error(client.get("/static/..%2fopenapi.json"), 404)


# ---------------------------------------------------------------------- faults

_CLIENT = """
import sys, httpx
url, token, sid = sys.argv[1:4]
with httpx.stream("POST", f"{url}/api/sessions/{sid}/messages", json={"text": "long"},
                  headers={"Authorization": f"Bearer {token}"}, timeout=60) as r:
    for line in r.iter_lines():
        if line.startswith("event: text"):
            print("streaming", flush=True)
"""


def test_a_client_killed_mid_stream_leaves_the_turn_running_to_done(
        server: ServeProcess, token: str, wire: OpenAIServer, home: Path) -> None:
    wire.script(Reply(text="a long answer, slowly", chunk_size=2, pauses={2: 1.5}))
    with server.client(token) as client:
        sid = _open(client)
        child = subprocess.Popen([sys.executable, "-c", _CLIENT, server.url, token, sid],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "streaming"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        with client.stream("GET", f"/api/sessions/{sid}/events") as r:
            events = until(frames(r.iter_lines()))
        assert _text(events) == "a long answer, slowly"
        assert events[-1].data["stop_reason"] == "end_turn"
        snapshot = client.get(f"/api/sessions/{sid}").json()
        assert "a long answer, slowly" in json.dumps(snapshot["messages"])


def test_a_server_killed_mid_turn_restarts_with_the_session_intact(
        server: ServeProcess, token: str, wire: OpenAIServer) -> None:
    wire.script(Reply(text="first answer"),
                Reply(text="never finished", chunk_size=2, pauses={1: 60}),
                Reply(text="after the restart"))
    with server.client(token) as client:
        sid = _open(client)
        assert _text(_turn(client, sid, "first question")) == "first answer"
        with client.stream("POST", f"/api/sessions/{sid}/messages",
                           json={"text": "second question"}) as r:
            for frame in frames(r.iter_lines()):
                if frame.event == "text":
                    server.kill()
                    break
    server.start()
    with server.client(token) as client:
        assert sid in [s["id"] for s in client.get("/api/sessions").json()["sessions"]]
        messages = json.dumps(client.get(f"/api/sessions/{sid}").json()["messages"])
        assert "first question" in messages and "first answer" in messages
        # the killed turn's partial answer is lost: it is saved when the model's step ends
        assert "never finished" not in messages
        assert _text(_turn(client, sid, "third question")) == "after the restart"
        exported = client.get(f"/api/sessions/{sid}/export").text
        assert "first answer" in exported and "after the restart" in exported
    assert FAKE_KEY not in server.log()
