"""Any character, sent the same way by every provider: lone surrogates, NUL and other text UTF-8
or a database cannot hold, in answers, tool arguments (nested keys and values) and tool results.

- Hypothesis: any text through every request builder — the OpenAI format (chatcli-provider-kit,
  and chatcli-provider-openai's body), Anthropic, Ollama, and the text tool-call format of models
  without native tools — gives a request that encodes as UTF-8 JSON, holds no such character,
  and carries clean text unchanged.
- End to end: ``chatcli -p`` through the real OpenAI, Anthropic and Ollama SDKs against the local
  wire servers, whose answers hold ``\\ud800`` and NUL: the turn completes, the next request
  carries U+FFFD in their place, and ``chatcli -c -p again`` goes on.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    ChatRequest,
    Conversation,
    ImagePart,
    Message,
    PromptSection,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    safe_text,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

REPLACED = "\ufffd"
SUR, LOW, NUL = "\ud800", "\udcff", "\x00"

#: Every code point (surrogates and NUL included), with the troublemakers made likely.
_chars = st.one_of(st.characters(codec=None, exclude_categories=()),
                   st.sampled_from([SUR, LOW, "\udfff", NUL, "\x01", "\x1b", "\ud83d", "\ude00",
                                    "\ufffd", "\u2028", '"', "\\", "<", "'"]))
any_text = st.text(_chars, max_size=30)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | any_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(any_text, json_values, max_size=4)

BUILDER_EXAMPLES = 300


def all_strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys included (iteratively)."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return found


def is_safe(text: str) -> bool:
    return "\x00" not in text and safe_text(text) == text


def encodes(body: Any) -> bytes:
    """``body`` as an SDK sends it (``ensure_ascii=False``, UTF-8), checked safe throughout."""
    raw = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    decoded = json.loads(raw.decode("utf-8"))
    for text in all_strings(decoded):
        assert is_safe(text), repr(text)
    return raw


@st.composite
def requests(draw: Any) -> tuple[ChatRequest, dict[str, str]]:
    """A request built straight from messages (not through a conversation, which would
    already have made them safe), and the texts it holds by role."""
    user, answer, output, system = (draw(any_text) for _ in range(4))
    name = draw(st.text(st.sampled_from("abcxyz_") | _chars, min_size=1, max_size=12))
    call = ToolCallPart(name=name, arguments=draw(arguments),
                        raw_arguments=draw(st.none() | any_text))
    messages = [
        Message(role=Role.USER, parts=[TextPart(text=user), ImagePart(
            source="data:image/png;base64,iVBORw0KGgo=")]),
        Message(role=Role.ASSISTANT, parts=[TextPart(text=answer), call]),
        Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name=name, content=output,
                                                      is_error=draw(st.booleans()))]),
        Message(role=Role.ASSISTANT, parts=[TextPart(text=answer + "!")]),
        Message(role=Role.USER, parts=[TextPart(text=user + "?")]),
    ]
    tool = ToolSpec(name=name, description=draw(any_text),
                    parameters={"type": "object", "properties": {
                        draw(any_text): {"type": "string", "description": draw(any_text)}}})
    request = ChatRequest(model="m", messages=messages, tools=[tool],
                          system=[PromptSection(name="base", text=system + "base", order=0),
                                  PromptSection(name="more", text=system, order=1,
                                                stable=False)])
    return request, {"user": user, "answer": answer, "output": output, "system": system}


_fixture_ok = settings(max_examples=BUILDER_EXAMPLES, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])


@_fixture_ok
@given(requests(), st.sampled_from([(True, "inline"), (True, "source"), (False, "text")]))
def test_openai_format(built: tuple[ChatRequest, dict[str, str]], variant: tuple[bool, str]
                       ) -> None:
    from chatcli_provider_kit import chat_messages, tool_definitions

    request, texts = built
    tools, images = variant
    messages = chat_messages(request, tools=tools, images=images, drop_empty=True)  # type: ignore[arg-type]
    encodes({"messages": messages, "tools": tool_definitions(request.tools)})
    body = json.dumps(messages, ensure_ascii=False)
    assert json.dumps(safe_text(texts["user"] + "?"), ensure_ascii=False)[1:-1] in body
    assert json.dumps(safe_text(texts["output"]), ensure_ascii=False)[1:-1] in body


@_fixture_ok
@given(requests())
def test_openai_provider_body(built: tuple[ChatRequest, dict[str, str]]) -> None:
    from chatcli_provider_kit import MessageCache
    from chatcli_provider_openai.request import build_body

    request, _texts = built
    cache = MessageCache()
    for _ in range(2):  # the second time from the cache
        body = build_body(request, "m", cache=cache)
        encodes(body)
        assert body["messages"][0]["content"] == safe_text(request.system_text())


@_fixture_ok
@given(requests())
def test_anthropic(built: tuple[ChatRequest, dict[str, str]]) -> None:
    from chatcli_provider_anthropic.convert import build_params, request_body
    from chatcli_provider_kit import MessageCache

    request, texts = built
    cache = MessageCache()
    for _ in range(2):
        raw = request_body(build_params(request, {}, cache))
        encodes(json.loads(raw.decode("utf-8")))
        sent = json.loads(raw)
        first = sent["messages"][0]["content"]
        user = next((b["text"] for b in first if b["type"] == "text"), "")
        assert user == safe_text(texts["user"]) or not texts["user"].strip()


@_fixture_ok
@given(requests())
def test_ollama(built: tuple[ChatRequest, dict[str, str]]) -> None:
    from chatcli_provider_kit import MessageCache
    from chatcli_provider_ollama.convert import build_params
    from chatcli_provider_ollama.provider import request_json, sdk_message

    request, texts = built
    cache = MessageCache()
    for _ in range(2):  # through the SDK's own message and tool models, as the provider sends
        body = request_json(build_params(request, {}, cache, sdk_message))
        encodes(body)
        assert body["messages"][1].get("content", "") == safe_text(texts["user"])


@_fixture_ok
@given(requests())
def test_text_tool_call_format(built: tuple[ChatRequest, dict[str, str]]) -> None:
    """A model without native tools: calls become text, results a user message, the tools a
    catalog in the prompt — from a log restored as it was stored."""
    from chatcli import Engine, PluginHost, Settings, Tool, hookimpl
    from chatcli_provider_kit import chat_messages
    from chatcli_provider_kit.textcalls import TextToolCalls
    from chatcli_testing import ScriptedProvider
    from pydantic import BaseModel

    class Args(BaseModel):
        text: str = ""

    request, texts = built
    host = PluginHost()

    class Tools:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            register(Tool(name="echo", description=safe_text(texts["system"]) + "echo",
                          args_model=Args, run=lambda args, ctx: args.text))

    host.register(Tools(), "tools")
    text_model = TextToolCalls(ScriptedProvider())
    engine = Engine(host, Settings(system=texts["system"]), text_model, "scripted", "m")
    chain = [m.model_copy() for m in request.messages]
    for parent, child in itertools.pairwise(chain):
        child.parent_id = parent.id
    conversation = Conversation.restore(id="s_x", messages=chain, head=chain[-1].id)
    built_request = text_model.prepare(engine.build_request(conversation))
    assert not built_request.tools  # described in the prompt instead
    encodes(chat_messages(built_request, tools=False, images="text"))


def test_text_tool_call_with_any_character_runs() -> None:
    """The text protocol end to end in the engine: a call written in the answer with a lone
    surrogate and a NUL in its arguments runs with U+FFFD, and the next request encodes."""
    from chatcli import Engine, PluginHost, Settings, Tool, TurnFinished, hookimpl
    from chatcli_provider_kit import chat_messages
    from chatcli_provider_kit.textcalls import TextToolCalls
    from chatcli_testing import Reply, ScriptedProvider
    from pydantic import BaseModel

    class Args(BaseModel):
        text: str

    seen: list[str] = []

    class Tools:
        @hookimpl
        def register_tools(self, register: Any) -> None:
            register(Tool(name="echo", description="echo", args_model=Args,
                          run=lambda args, ctx: seen.append(args.text) or f"got {args.text}"))

    host = PluginHost()
    host.register(Tools(), "tools")
    tag = '<tool_call name="echo" args=\'{"text": "a\\ud800b\\u0000c"}\'/>'
    provider = ScriptedProvider([Reply(text=f"calling {SUR} {tag}"), Reply(text="done")])
    engine = Engine(host, Settings(), TextToolCalls(provider), "scripted", "m")
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user(f"go {SUR}{NUL}")))
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.error is None
    assert seen == [f"a{REPLACED}b{REPLACED}c"]
    follow_up = provider.requests[-1]
    encodes(chat_messages(follow_up, tools=False, images="text"))
    assert f"got a{REPLACED}b{REPLACED}c" in json.dumps(
        chat_messages(follow_up, tools=False), ensure_ascii=False)


# ------------------------------------------------------------------------ the SDKs, end to end

#: Placeholders the servers replace in their wire bytes (the servers encode JSON themselves, so
#: a lone surrogate cannot be scripted directly): ``\ud800``/``\u0000`` escapes in the outer JSON
#: (the SDK decodes them), or in the arguments' own JSON text (``…_IN``: OpenAI and Anthropic
#: stream arguments as JSON text).
WIRE = {b"ZSURZ": b"\\ud800", b"ZNULZ": b"\\u0000", b"ZSURINZ": b"\\\\ud800",
        b"ZNULINZ": b"\\\\u0000"}


def _wire_server(kind: str) -> Any:
    from chatcli_testing import AnthropicServer, OllamaServer, OpenAIServer

    base = {"openai": OpenAIServer, "anthropic": AnthropicServer, "ollama": OllamaServer}[kind]

    class Server(base):  # type: ignore[misc, valid-type]
        def stream_events(self, reply: Any, model: str, body: dict[str, Any]) -> list[Any]:
            events = super().stream_events(reply, model, body)
            out = []
            for event in events:
                data = event.data
                for placeholder, escape in WIRE.items():
                    data = data.replace(placeholder, escape)
                out.append(event._replace(data=data))
            return out

    return Server()


#: (case, first answers as (text, tool arguments or None), providers it applies to, the text
#: the follow-up request must carry). Tool calls go to the coder's ``read`` tool.
SDK_CASES = [
    ("answer text", [("answer ZSURZ and ZNULZ end", None)], ("openai", "anthropic", "ollama"),
     f"answer {REPLACED} and {REPLACED} end"),
    ("tool argument value", [("look", {"path": "xZSURZyZNULZ.txt"}), ("done", None)],
     ("openai", "anthropic", "ollama"), f"x{REPLACED}y{REPLACED}.txt"),
    ("nested key and value", [("", {"path": "a.txt", "kZSURZ": ["vZNULZ", {"ZSURZ": 1}]}),
                              ("done", None)],
     ("openai", "anthropic", "ollama"), f"k{REPLACED}"),
    ("escape inside the argument JSON", [("", {"path": "pZSURINZqZNULINZ.txt"}),
                                         ("done", None)],
     ("openai", "anthropic"), f"p{REPLACED}q{REPLACED}.txt"),
]

SDK_RUNS = [(kind, case) for case in SDK_CASES for kind in case[2]]


def _env(kind: str, url: str, base: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items()
            if k in ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "VIRTUAL_ENV")}
    return {**keep, "HOME": str(base / "home"), "CHATCLI_CONFIG_DIR": str(base / "config"),
            "CHATCLI_DATA_DIR": str(base / "data"), "CHATCLI_CACHE_DIR": str(base / "cache"),
            "CHATCLI_PLUGINS": f"{kind},coder,sessions,print", "PYTHONIOENCODING": "utf-8",
            **{"openai": {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": url},
               "anthropic": {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": url},
               "ollama": {"OLLAMA_HOST": url}}[kind]}


@pytest.mark.parametrize(("kind", "case"), SDK_RUNS,
                         ids=[f"{k}-{c[0].replace(' ', '_')}" for k, c in SDK_RUNS])
def test_sdk_providers_send_and_store_any_character(kind: str, case: tuple[Any, ...],
                                                    tmp_path: Path) -> None:
    from chatcli_testing import Reply, ToolCall

    name, answers, _kinds, carried = case
    server = _wire_server(kind).start()
    try:
        for text, args in answers:
            calls = [ToolCall("read", args)] if args is not None else []
            server.script(Reply(text=text, tool_calls=calls, chunk_size=10_000))
        server.script(Reply(text="again ok"))
        work = tmp_path / "work"
        work.mkdir()
        env = _env(kind, server.url, tmp_path)
        chatcli = Path(sys.executable).parent / "chatcli"
        first = subprocess.run([str(chatcli), "-p", "hi", "--provider", kind], cwd=work, env=env,
                               capture_output=True, text=True, errors="backslashreplace",
                               timeout=60)
        assert first.returncode == 0, first.stderr
        assert "unexpected" not in first.stderr and "warning" not in first.stderr, first.stderr
        again = subprocess.run([str(chatcli), "-c", "-p", "again"], cwd=work, env=env,
                               capture_output=True, text=True, errors="backslashreplace",
                               timeout=60)
        assert again.returncode == 0, again.stderr
        assert "again ok" in again.stdout
        chats = [r for r in server.requests if r.method == "POST"]
        assert len(chats) == len(answers) + 1
        for recorded in chats:
            encodes(json.loads(recorded.body.decode("utf-8")))
        follow_up = chats[-1].body.decode("utf-8")  # the -c run sends the whole history
        assert carried in json.dumps(json.loads(follow_up), ensure_ascii=False), name
    finally:
        server.stop()
