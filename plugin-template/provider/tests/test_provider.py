"""Tests of the provider against a local server speaking the OpenAI wire format.

The ``openai_server`` and ``chatcli_home`` fixtures come from chatcli's pytest plugin, which
chatcli-kernel installs: ``openai_server.script(...)`` queues replies or faults,
``openai_server.requests`` records what the provider sent, and ``chatcli_home`` keeps chatcli's
config and data folders (and API-key variables) away from the real ones. The last test reads the
errors in Brazilian Portuguese (``CHATCLI_LANG=pt_BR``), from the package's catalog.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from chatcli import (
    AuthError,
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
    Retrying,
    ServerError,
    Settings,
    StopEvent,
    StopReason,
    StreamCutError,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    TurnFinished,
    UsageEvent,
    build_provider,
)
from chatcli_testing import Fault, ProviderContract, Reply, ToolCall

from {{package}} import plugin
from {{package}}.client import parse_stream

API_KEY = "test-key-for-{{name}}"


@pytest.fixture
def host() -> PluginHost:
    """A plugin host with only this plugin registered."""
    host = PluginHost()
    assert host.register(plugin, plugin.NAME)
    return host


@pytest.fixture
def provider(host, openai_server, chatcli_home, monkeypatch):
    """The provider built the way chatcli builds it: key and base URL from the environment."""
    monkeypatch.setenv("{{env}}_API_KEY", API_KEY)
    monkeypatch.setenv("{{env}}_BASE_URL", openai_server.url)
    provider, config = build_provider(host.providers()[plugin.NAME], Settings())
    assert config.base_url == openai_server.url
    return provider


def collect(provider, request: ChatRequest) -> list:
    """All events of one streamed answer."""
    return list(provider.stream(request))


class TestContract(ProviderContract):
    """chatcli's provider conformance kit: streaming, usage, tool calls and every fault.

    The tests come from :class:`chatcli_testing.ProviderContract`; this class says how to build
    the provider and what the OpenAI wire format cannot report.
    """

    server_fixture = "openai_server"
    model = "model-a"
    api_key = API_KEY
    reports_cache_write_tokens = False  # chat completions report cache reads only

    def make_provider(self, server, *, timeout: float = 30.0):
        return plugin.create_provider(ProviderConfig(
            name=plugin.NAME, model=self.model, api_key=self.api_key, base_url=server.url,
            timeout=timeout,
        ))


def test_the_plugin_registers_its_provider(host):
    spec = host.providers()[plugin.NAME]
    assert spec.display_name == "{{title}}"
    assert spec.env_keys == ["{{env}}_API_KEY"]
    assert spec.default_model == plugin.DEFAULT_MODEL


def test_the_entry_module_imports_no_http_client():
    code = f"import sys, {plugin.__name__}; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_text_streams_in_pieces_with_usage(provider, openai_server):
    answer = "Hello from {{title}}, streamed in small pieces."
    openai_server.script(
        Reply(text=answer, chunk_size=5,
              usage={"input_tokens": 12, "output_tokens": 9, "cache_read_tokens": 4})
    )
    events = collect(provider, ChatRequest(
        model="model-a",
        system=[PromptSection(name="persona", text="Be brief.")],
        messages=[Message.user("Say hello")],
    ))

    pieces = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(pieces) > 1
    assert "".join(pieces) == answer
    usage = [e.usage for e in events if isinstance(e, UsageEvent)][-1]
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (12, 9, 4)
    assert isinstance(events[-1], StopEvent)
    assert events[-1].reason == StopReason.END_TURN

    sent = openai_server.requests[-1]
    assert sent.path.endswith("/chat/completions")
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    assert sent.json["model"] == "model-a"
    assert sent.json["stream"] is True
    assert sent.json["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent.json["messages"][-1] == {"role": "user", "content": "Say hello"}


def test_tool_calls_arrive_whole_with_their_arguments(provider, openai_server):
    openai_server.script(
        Reply(tool_calls=[ToolCall(name="get_weather", arguments={"city": "Paris", "days": 3})])
    )
    tool = ToolSpec(
        name="get_weather",
        description="Weather forecast for a city.",
        parameters={"type": "object", "properties": {"city": {"type": "string"}}},
    )
    events = collect(provider, ChatRequest(
        model="model-a", messages=[Message.user("Weather in Paris?")], tools=[tool]
    ))

    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris", "days": 3})]
    assert events[-1].reason == StopReason.TOOL_USE
    sent_tool = openai_server.requests[-1].json["tools"][0]
    assert sent_tool["type"] == "function"
    assert sent_tool["function"]["name"] == "get_weather"
    assert sent_tool["function"]["parameters"] == tool.parameters


def test_tool_results_are_sent_back_in_the_wire_format(provider, openai_server):
    call = ToolCallPart(id="call_1", name="get_weather", arguments={"city": "Paris"})
    history = [
        Message.user("Weather in Paris?"),
        Message.assistant(tool_calls=[call]),
        Message(role="tool", parts=[
            ToolResultPart(call_id="call_1", name="get_weather", content="sunny, 21 °C")
        ]),
    ]
    collect(provider, ChatRequest(model="m", messages=history))

    sent = openai_server.requests[-1].json["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    assert sent[1]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 21 °C"}


@pytest.mark.parametrize(
    ("status", "error_type"),
    [
        (401, AuthError),
        (404, ModelNotFoundError),
        (400, BadRequestError),
        (500, ServerError),
    ],
)
def test_http_errors_map_to_chatcli_errors(provider, openai_server, status, error_type):
    openai_server.script(Fault(status=status, message="something went wrong"))
    with pytest.raises(error_type) as caught:
        collect(provider, ChatRequest(model="m", messages=[Message.user("hi")]))
    text = str(caught.value)
    assert "\n" not in text
    assert str(status) in text
    assert API_KEY not in text
    assert len(openai_server.requests) == 1  # the provider itself never retries


def test_the_engine_runs_a_turn_and_retries_through_this_provider(
    host, provider, openai_server, tmp_path
):
    openai_server.script(Fault(status=429, retry_after=0), Reply(text="Answer after a retry."))
    engine = Engine(host, Settings(), provider, plugin.NAME, "model-a", workspace=tmp_path,
                    sleep=lambda _seconds: None)
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user("Hello?")))

    assert any(isinstance(e, Retrying) for e in events)
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert finished.error is None
    assert finished.text == "Answer after a retry."
    assert [m.text for m in conversation.messages()] == ["Hello?", "Answer after a retry."]
    assert len(openai_server.requests) == 2


# ------------------------------------------------------------------------------ translations
# The package's catalog, locale/pt_BR/LC_MESSAGES/messages.po, is compiled into messages.mo
# by hatch-babel when the package is built or installed (`pip install -e` too).


def test_errors_speak_brazilian_portuguese(provider, openai_server, chatcli_language):
    chatcli_language("pt_BR")  # CHATCLI_LANG=pt_BR for the rest of the test
    with pytest.raises(StreamCutError) as caught:
        list(parse_stream(["data: {not json"]))
    assert caught.value.message == (
        "{{title}} enviou um trecho que não é JSON: '{not json'")
    assert caught.value.hint == "tente de novo"

    openai_server.script(Fault(status=401, message="invalid api key"))
    with pytest.raises(AuthError) as caught:
        collect(provider, ChatRequest(model="m", messages=[Message.user("oi")]))
    assert caught.value.hint == (
        "confira a chave de API (`chatcli keys set {{name}}`)")

    unreachable = plugin.create_provider(ProviderConfig(
        name=plugin.NAME, model="m", api_key=API_KEY, base_url="http://127.0.0.1:9/v1",
        timeout=5.0,
    ))
    with pytest.raises(NetworkError) as caught:
        collect(unreachable, ChatRequest(model="m", messages=[Message.user("oi")]))
    assert caught.value.message.startswith(
        "não foi possível alcançar {{title}} em ")
    assert caught.value.hint == "confira se o serviço está no ar e se a URL base está certa"

    chatcli_language("en")
    with pytest.raises(StreamCutError) as caught:
        list(parse_stream([]))
    assert caught.value.message == (
        "the answer from {{title}} ended early")
