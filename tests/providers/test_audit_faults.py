"""Faults the audit of issue 16 found in the providers, through the real CLI against the local
wire servers:

- tool arguments nested thousands of levels deep are refused in one line by every provider (the
  turn goes on, the session is saved), never a ``RecursionError`` or a session that cannot be
  stored; the text tool-call parser never raises on them either;
- a cut answer is named as one — the same words for Anthropic, Ollama and OpenAI — and a server
  that takes the connection and closes it before any response is not called unreachable;
- a plain Ollama run writes nothing on stderr (no compaction line for a view it cannot compact).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chatcli_provider_kit import MAX_ARGUMENT_DEPTH, nested_too_deep, parse_tool_arguments
from chatcli_provider_kit.textcalls import parse_tool_calls
from chatcli_provider_ollama.provider import read_line
from chatcli_testing import Fault, Reply, ToolCall
from chatcli_testing.anthropic_wire import AnthropicServer
from chatcli_testing.ollama_wire import OllamaServer
from chatcli_testing.openai_wire import OpenAIServer
from chatcli_testing.server_base import WireEvent
from hypothesis import given, settings
from hypothesis import strategies as st

CHATCLI = Path(sys.executable).parent / "chatcli"
KEY = "sk-test-audit-0123456789"


class RawArgumentsOllama(OllamaServer):
    """Ollama sending each tool call's ``arguments`` string verbatim inside the NDJSON line
    (the stock server reads it with ``json.loads``, which cannot hold 10,000 levels)."""

    def _split(self, reply: Reply) -> tuple[str, list[dict[str, Any]]]:
        return reply.text, [{"function": {"index": i, "name": call.name,
                                          "arguments": {"RAW": i}}}
                            for i, call in enumerate(reply.tool_calls)]

    def stream_events(self, reply: Reply, model: str, body: dict[str, Any]) -> list[WireEvent]:
        events = []
        for event in super().stream_events(reply, model, body):
            data = event.data
            for i, call in enumerate(reply.tool_calls):
                data = data.replace(b'{"RAW": %d}' % i, call.arguments_json().encode())
            events.append(WireEvent(data, event.kind))
        return events


SERVERS = {
    "openai": (OpenAIServer, "OPENAI_BASE_URL", {"OPENAI_API_KEY": KEY}),
    "anthropic": (AnthropicServer, "ANTHROPIC_BASE_URL", {"ANTHROPIC_API_KEY": KEY}),
    "ollama": (RawArgumentsOllama, "OLLAMA_HOST", {}),
}


def chatcli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("CHATCLI_") and not k.endswith(("_API_KEY", "_TOKEN"))
             and k not in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OLLAMA_HOST")}
    clean.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                 CHATCLI_CACHE_DIR=str(home / "cache"), **env)
    (home / "work").mkdir(exist_ok=True)
    return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, timeout=120,
                          env=clean, cwd=home / "work", stdin=subprocess.DEVNULL)


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any, dict[str, str]]]:
    """(provider name, its started server, the variables pointing chatcli at it)."""
    name = request.param
    server_class, variable, extra = SERVERS[name]
    with server_class() as server:
        yield name, server, {variable: server.url, **extra}


# ------------------------------------------------------------------ deep tool arguments

def nested(kind: str, depth: int) -> str:
    """JSON arguments whose ``path`` nests ``depth`` levels (the object itself is one more)."""
    if kind == "lists":
        return '{"path": ' + "[" * depth + "]" * depth + "}"
    return '{"path": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


#: (shape, depth of the path value): every one is refused as arguments in one line.
TOO_DEEP = [("lists", 10_000), ("objects", 10_000), ("lists", 990), ("objects", 300),
            ("lists", MAX_ARGUMENT_DEPTH)]


@pytest.mark.parametrize("served", sorted(SERVERS), indirect=True)
@pytest.mark.parametrize(("kind", "depth"), TOO_DEEP)
def test_deep_tool_arguments_are_refused_in_one_line(served, tmp_path, kind, depth):
    name, server, env = served
    server.script(Reply(tool_calls=[ToolCall("read", nested(kind, depth))]),
                  Reply(text="carried on"), Reply(text="resumed"))
    done = chatcli(tmp_path, "-p", "go", "--provider", name, **env)
    assert (done.returncode, done.stdout) == (0, "carried on\n"), done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("chatcli: tool read("), line
    assert "not run: arguments are not a JSON object (nested at most 64 levels)" in line
    # what the model was told, in the next request
    assert "nested at most 64 levels" in json.dumps(server.requests[-1].json)
    if depth < 10_000:
        return
    # the turn was saved whole: the session goes on
    again = chatcli(tmp_path, "-c", "-p", "and then", "--provider", name, **env)
    assert (again.returncode, again.stdout, again.stderr) == (0, "resumed\n", "")


@pytest.mark.parametrize("served", ["ollama"], indirect=True)
def test_arguments_at_the_limit_still_reach_the_tool(served, tmp_path):
    name, server, env = served
    server.script(Reply(tool_calls=[ToolCall("read", nested("lists", MAX_ARGUMENT_DEPTH - 1))]),
                  Reply(text="done"))
    done = chatcli(tmp_path, "-p", "go", "--provider", name, **env)
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr
    assert "invalid arguments for 'read'" in done.stderr  # read, then checked against the tool
    assert "not a JSON object" not in done.stderr


#: Deep arguments in every form the text tool-call parser reads: never an exception.
TEXT_FORMS = [
    "<tool_call name=\"read\" args='{args}'/>",
    '<tool_call name="read">{args}</tool_call>',
    '<tool_call>{{"name": "read", "arguments": {args}}}</tool_call>',
    '{{"tool_call": "read", "args": {args}}}',
    '{{"name": "read", "arguments": {args}}}',
    "TOOL_CALL: read({args})",
]


@pytest.mark.parametrize("form", TEXT_FORMS)
@pytest.mark.parametrize("kind", ["lists", "objects"])
def test_the_text_tool_call_parser_holds_deep_arguments(form, kind):
    text = form.format(args=nested(kind, 10_000))
    for call in parse_tool_calls(text):  # never raises; a call found has no deep arguments
        assert call.raw_arguments is not None or not nested_too_deep(call.arguments)


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(1, 3_000), kind=st.sampled_from(["lists", "objects"]),
       noise=st.text(max_size=20))
def test_an_ollama_line_with_arguments_of_any_depth_reads(depth, kind, noise):
    args = nested(kind, depth)
    line = ('{"model": "m", "message": {"role": "assistant", "content": '
            + json.dumps(noise) + ', "tool_calls": [{"function": {"name": "read", '
            '"arguments": ' + args + '}}, {"function": {"name": "ok", "arguments": '
            '{"a": "]}\\"arguments\\": ["}}}]}, "done": false}')
    part, raw = read_line(line)
    first, second = part["message"]["tool_calls"]
    assert part["message"]["content"] == noise
    assert second["function"]["arguments"] == {"a": ']}"arguments": ['}
    if depth + 1 > MAX_ARGUMENT_DEPTH:
        assert first["function"]["arguments"] == {} and raw == {0: args}
    else:
        assert raw == {} and first["function"]["arguments"] == json.loads(args)
    assert parse_tool_arguments(args) == ((json.loads(args), None)
                                          if depth + 1 <= MAX_ARGUMENT_DEPTH else ({}, args))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='{}[]":, arguments\\0123', max_size=300))
def test_any_ollama_line_reads_or_is_a_value_error(line):
    # json.JSONDecodeError included: the provider reports "a line that could not be read"
    with contextlib.suppress(ValueError):
        read_line(line)


# ------------------------------------------------------------------ cut answers

def _request_size(data: bytes) -> int:
    """The size of a request whose headers are in ``data`` (headers and Content-Length body)."""
    head, _, _ = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    return len(head) + 4 + (int(length.group(1)) if length else 0)


@contextlib.contextmanager
def raw_server(answer: bytes) -> Iterator[str]:
    """A server that answers every request with ``answer`` and closes the connection; its URL.

    Its thread is stopped and joined before the listening socket is closed: a thread still
    looping on ``accept`` when the socket closes can call it on the next socket given the same
    file descriptor, and so answer a later test's server's clients with this cut answer."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.05)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(10)
                data = b""
                while b"\r\n\r\n" not in data or len(data) < _request_size(data):
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                conn.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()


CUT_WORDS = {"anthropic": "Anthropic", "ollama": "Ollama", "openai": "OpenAI"}

HEAD = "HTTP/1.1 200 OK\r\nContent-Type: {type}\r\n"
#: How the answer breaks → what every provider says (``{who}``: its name).
RAW_CUTS = {
    "headers then close": (HEAD + "Transfer-Encoding: chunked\r\n\r\n",
                           "{who} dropped the connection mid-answer — try again"),
    "headers, length unmet": (HEAD + "Content-Length: 5000\r\n\r\n",
                              "{who} dropped the connection mid-answer — try again"),
    "half an event": (HEAD + "Transfer-Encoding: chunked\r\n\r\n1000\r\nevent: message_st",
                      "{who} dropped the connection mid-answer — try again"),
    "body ends early": (HEAD + "Connection: close\r\n\r\n",
                        "{who} ended the answer stream before it finished — try again"),
}
#: Taken and closed before a whole response: never "cannot reach", nor a provider bug.
NO_RESPONSE = {"nothing": "", "status line only": "HTTP/1.1 200 OK\r\n",
               "half the headers": HEAD,
               "an error body cut short": "HTTP/1.1 500 Internal Server Error\r\nContent-Type: "
                                          "application/json\r\nContent-Length: 100\r\n\r\n{{"}

def cut_env(name: str, url: str) -> dict[str, str]:
    _, variable, extra = SERVERS[name]
    return {variable: url + ("/v1" if name == "openai" else ""), **extra,
            f"CHATCLI_PROVIDERS__{name.upper()}__MAX_RETRIES": "0"}


@pytest.mark.parametrize("name", sorted(SERVERS))
@pytest.mark.parametrize("cut", sorted(RAW_CUTS))
def test_a_cut_answer_is_named_the_same_by_every_provider(name, cut, tmp_path):
    head, words = RAW_CUTS[cut]
    kind = "application/x-ndjson" if name == "ollama" else "text/event-stream"
    with raw_server(head.format(type=kind).encode()) as url:
        done = chatcli(tmp_path, "-p", "hi", "--provider", name, **cut_env(name, url))
    assert done.returncode == 1
    assert done.stderr == f"chatcli: error: {words.format(who=CUT_WORDS[name])}\n"


@pytest.mark.parametrize("name", sorted(SERVERS))
@pytest.mark.parametrize("after", [0, 3])
def test_a_stream_cut_by_the_wire_server_is_a_cut_answer(name, after, tmp_path):
    server_class, _, _ = SERVERS[name]
    with server_class() as server:
        server.script(Fault(cut_after=after))
        done = chatcli(tmp_path, "-p", "hi", "--provider", name,
                       **cut_env(name, server.url.removesuffix("/v1")))
    assert done.returncode == 1
    assert done.stdout == ("The quick br\n" if after else "")
    assert done.stderr.endswith(f"chatcli: error: {CUT_WORDS[name]} dropped the connection "
                                "mid-answer — try again\n"), done.stderr


@pytest.mark.parametrize("name", sorted(SERVERS))
@pytest.mark.parametrize("answer", sorted(NO_RESPONSE))
def test_a_server_closing_before_a_whole_response_is_not_unreachable(name, answer, tmp_path):
    with raw_server(NO_RESPONSE[answer].format(type="text/event-stream").encode()) as url:
        done = chatcli(tmp_path, "-p", "hi", "--provider", name, **cut_env(name, url))
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    if name == "ollama" and answer == "an error body cut short":  # it had answered: a cut
        assert line == "chatcli: error: Ollama dropped the connection mid-answer — try again"
        return
    where = url + ("/v1" if name == "openai" else "")
    assert line.startswith(f"chatcli: error: {CUT_WORDS[name]} at {where} closed the "
                           "connection before a complete response ("), line
    assert "cannot reach" not in line and "report it" not in line


def test_a_closed_port_is_still_unreachable(tmp_path):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"
    for name in ("anthropic", "ollama"):
        done = chatcli(tmp_path, "-p", "hi", "--provider", name, **cut_env(name, url))
        assert done.returncode == 1
        assert done.stderr.startswith(f"chatcli: error: cannot reach {CUT_WORDS[name]} at "
                                      f"{url}"), done.stderr


# ------------------------------------------------------------------ a quiet Ollama run

def test_a_plain_ollama_run_writes_nothing_on_stderr(tmp_path, ollama_server):
    env = {"OLLAMA_HOST": ollama_server.url}
    ollama_server.script(Reply(text="hello"), Reply(text="again"), Reply(text="third"))
    first = chatcli(tmp_path, "-p", "hi", "--provider", "ollama", **env)
    assert (first.returncode, first.stdout, first.stderr) == (0, "hello\n", "")
    for answer in ("again", "third"):  # the view grows, still within the recent messages
        more = chatcli(tmp_path, "-c", "-p", "more", "--provider", "ollama", **env)
        assert (more.returncode, more.stdout, more.stderr) == (0, f"{answer}\n", "")
    # chatcli's own prompt and tools are what pass the trigger (Ollama's 4,096 tokens):
    assert len(json.dumps(ollama_server.requests[0].json)) > 0.75 * 4_096 * 4
