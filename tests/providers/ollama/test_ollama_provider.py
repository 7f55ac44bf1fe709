"""The Ollama provider through the real ollama SDK against the local /api/chat server.

What every provider must do is tested by ``test_ollama_contract.py``; this file holds what is
particular to Ollama (request mapping, wording of its errors, the engine with a local model).
"""

from __future__ import annotations

import base64
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    BadRequestError,
    ChatRequest,
    Conversation,
    Engine,
    Message,
    ModelNotFoundError,
    NetworkError,
    PluginHost,
    PromptSection,
    ProviderConfig,
    Role,
    ServerError,
    Settings,
    StopReason,
    StreamCutError,
    TextPart,
    Tool,
    ToolCallPart,
    ToolFinished,
    ToolResultPart,
    TurnFinished,
    Usage,
    build_provider,
    choose_provider,
)
from chatcli_provider_ollama.provider import OllamaProvider
from chatcli_testing import AddTool, Fault, Reply, ToolCall
from pydantic import BaseModel

MODEL = "llama-test"


def make_provider(server: Any, timeout: float = 5.0, **options: Any) -> OllamaProvider:
    return OllamaProvider(ProviderConfig(name="ollama", model=MODEL, base_url=server.url,
                                         timeout=timeout, options=options))


def request(*messages: Message, **kw: Any) -> ChatRequest:
    return ChatRequest(model=MODEL, messages=list(messages) or [Message.user("hi")], **kw)


def run(provider: OllamaProvider, req: ChatRequest | None = None) -> list[Any]:
    return list(provider.stream(req or request()))


# ------------------------------------------------------------------ streaming


def test_length_stop(ollama_server):
    ollama_server.script(Reply(text="and so on", stop_reason="max_tokens"))
    assert run(make_provider(ollama_server))[-1].reason == StopReason.MAX_TOKENS


# ------------------------------------------------------------------ request mapping


class Args(BaseModel):
    city: str
    days: int | None = None


def test_request_mapping(ollama_server, tmp_path: Path):
    image = tmp_path / "pic.jpg"
    image.write_bytes(b"\xff\xd8\xff fake jpeg")
    call = ToolCallPart(id="call_1", name="weather", arguments={"city": "Oslo"})
    messages = [
        Message.user("Weather in Oslo? See the picture.", str(image)),
        Message(role=Role.ASSISTANT, parts=[TextPart(text="Looking."), call]),
        Message(role=Role.TOOL, parts=[
            ToolResultPart(call_id="call_1", name="weather", content="sunny, 21°C")]),
    ]
    spec = Tool(name="weather", description="Weather", args_model=Args,
                run=lambda a, c: "").spec()
    req = request(*messages, tools=[spec], max_tokens=77, temperature=0.2, system=[
        PromptSection(name="date", text="Today is Monday.", stable=False),
        PromptSection(name="base", text="You are chatcli.", order=0)])
    run(make_provider(ollama_server, num_ctx=8192, keep_alive="5m"), req)
    body = ollama_server.requests[-1].json
    assert ollama_server.requests[-1].path == "/api/chat"
    assert body["model"] == MODEL and body["stream"] is True
    assert body["messages"][0] == {"role": "system",
                                   "content": "You are chatcli.\n\nToday is Monday."}
    assert body["messages"][1]["content"] == "Weather in Oslo? See the picture."
    assert body["messages"][1]["images"] == [base64.b64encode(image.read_bytes()).decode()]
    assert body["messages"][2] == {
        "role": "assistant", "content": "Looking.",
        "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Oslo"}}}]}
    assert body["messages"][3] == {"role": "tool", "content": "sunny, 21°C",
                                   "tool_name": "weather"}
    function = body["tools"][0]["function"]
    assert function["name"] == "weather"
    assert function["parameters"]["required"] == ["city"]
    assert function["parameters"]["properties"]["city"]["type"] == "string"
    # an optional field's anyOf survives the SDK's tool model as a type list
    assert function["parameters"]["properties"]["days"]["type"] == ["integer", "null"]
    assert body["options"] == {"num_ctx": 8192, "temperature": 0.2, "num_predict": 77}
    assert body["keep_alive"] == "5m"


def test_image_urls_are_refused_clearly(ollama_server):
    with pytest.raises(BadRequestError, match="cannot fetch image URLs"):
        run(make_provider(ollama_server),
            request(Message.user("see", "https://example.com/a.png")))
    assert ollama_server.requests == []


# ------------------------------------------------------------------ faults


def expect(server: Any, fault: Fault, error: type[Exception]) -> Exception:
    server.script(fault)
    with pytest.raises(error) as info:
        run(make_provider(server))
    assert "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize("status", [500, 503])
def test_server_errors(ollama_server, status):
    err = expect(ollama_server, Fault(status=status, message="llama runner crashed"),
                 ServerError)
    assert err.retryable and "llama runner crashed" in str(err)


def test_model_not_found_suggests_pull(ollama_server):
    err = expect(ollama_server, Fault(status=404, message=f"model '{MODEL}' not found"),
                 ModelNotFoundError)
    assert f"ollama pull {MODEL}" in str(err)


def test_model_without_tool_support(ollama_server):
    err = expect(ollama_server, Fault(status=400, message=f"{MODEL} does not support tools"),
                 BadRequestError)
    assert "tool support" in str(err)


def test_malformed_line(ollama_server):
    err = expect(ollama_server, Fault(malformed_after=1), StreamCutError)
    assert "could not be read" in str(err)


def test_error_line_mid_stream(ollama_server):
    err = expect(ollama_server, Fault(error_event_after=2, message="out of memory"),
                 StreamCutError)
    assert "out of memory" in str(err)


def test_unreachable_server_names_ollama_serve():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    provider = OllamaProvider(ProviderConfig(name="ollama", model=MODEL,
                                             base_url=f"http://127.0.0.1:{port}", timeout=2))
    with pytest.raises(NetworkError) as info:
        run(provider)
    assert "ollama serve" in str(info.value) and str(port) in str(info.value)
    assert info.value.retryable


# ------------------------------------------------------------------ plugin, registry, engine



def test_engine_turn_with_a_tool_call(ollama_server, chatcli_home, monkeypatch, tmp_path):
    monkeypatch.setenv("CHATCLI_PLUGINS", "ollama,print")
    monkeypatch.setenv("OLLAMA_HOST", ollama_server.url)
    host = PluginHost(warn=lambda line: None)
    host.load_entry_points()
    host.register(AddTool(), "add-tool")
    spec = host.providers()["ollama"]
    assert not spec.requires_key and spec.priority < 10
    settings = Settings(provider="ollama")
    assert choose_provider(host, settings).name == "ollama"
    provider, config = build_provider(spec, settings, model=MODEL)
    assert config.base_url == ollama_server.url

    ollama_server.script(
        Fault(status=503, retry_after=0),  # the engine retries this one
        Reply(tool_calls=[ToolCall("add", {"a": 4, "b": 5})],
              usage={"input_tokens": 30, "output_tokens": 6}),
        Reply(text="It is 9.", usage={"input_tokens": 40, "output_tokens": 4}),
    )
    engine = Engine(host, settings, provider, "ollama", MODEL, workspace=tmp_path,
                    sleep=lambda seconds: None)
    events = list(engine.run(Conversation(), Message.user("4+5?")))
    assert [(f.call.name, f.result.content) for f in events if isinstance(f, ToolFinished)] == [
        ("add", "9")]
    done = events[-1]
    assert isinstance(done, TurnFinished) and done.error is None
    assert done.text == "It is 9."
    assert done.usage == Usage(input_tokens=70, output_tokens=10)
    last = ollama_server.requests[-1].json
    assert [m["role"] for m in last["messages"]] == ["system", "user", "assistant", "tool"]
    assert last["messages"][2]["tool_calls"] == [
        {"function": {"name": "add", "arguments": {"a": 4, "b": 5}}}]
    assert last["messages"][3] == {"role": "tool", "content": "9", "tool_name": "add"}


def test_default_host_and_entry_module_imports_no_sdk(chatcli_home):
    code = ("import sys, chatcli_provider_ollama.plugin as p; "
            "print(p.DEFAULT_HOST, any(m.split('.')[0] in ('ollama', 'httpx') "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["http://localhost:11434", "False"]
