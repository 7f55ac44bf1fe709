"""The shared OpenAI chat-completions wire format: request messages and chunk assembly."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from chatcli import (
    BadRequestError,
    ChatRequest,
    ImagePart,
    Message,
    PromptSection,
    Role,
    StopEvent,
    StopReason,
    TextDelta,
    TextPart,
    ToolCallEvent,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
    UsageEvent,
)
from chatcli_provider_kit import (
    ChunkAssembler,
    chat_messages,
    stop_reason,
    tool_call,
    tool_definitions,
    usage_from,
)
from hypothesis import given, settings
from hypothesis import strategies as st

# ------------------------------------------------------------------------------------------------
# Request messages
# ------------------------------------------------------------------------------------------------

CALL = ToolCallPart(id="call_1", name="add", arguments={"a": 2, "b": "ü"})
RESULT = ToolResultPart(call_id="call_1", name="add", content="5")
FAILED = ToolResultPart(call_id="call_1", name="add", content="boom", is_error=True)


def _tool_message(*results: ToolResultPart) -> Message:
    return Message(role=Role.TOOL, parts=list(results))


def _messages(messages: list[Message], **options: Any) -> list[dict[str, Any]]:
    return chat_messages(ChatRequest(model="m", messages=messages), **options)


def test_system_sections_come_first_in_prompt_order():
    request = ChatRequest(
        model="m",
        system=[
            PromptSection(name="date", text="today", stable=False),
            PromptSection(name="b", text="rules", order=2),
            PromptSection(name="a", text="persona", order=1),
            PromptSection(name="empty", text=""),
        ],
        messages=[Message.user("hi")],
    )
    assert chat_messages(request) == [
        {"role": "system", "content": "persona\n\nrules\n\ntoday"},
        {"role": "user", "content": "hi"},
    ]


ASSISTANT_WIRE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [{
        "id": "call_1",
        "type": "function",
        "function": {"name": "add", "arguments": '{"a": 2, "b": "ü"}'},
    }],
}

MESSAGE_TABLE = [
    pytest.param(
        [Message.user("2+3?"), Message.assistant("", [CALL]), _tool_message(RESULT)], {},
        [
            {"role": "user", "content": "2+3?"},
            ASSISTANT_WIRE,
            {"role": "tool", "tool_call_id": "call_1", "content": "5"},
        ],
        id="native-tools",
    ),
    pytest.param(
        [Message.assistant("thinking", [CALL]), _tool_message(RESULT, FAILED)],
        {"tools": False},
        [
            {"role": "assistant",
             "content": 'thinking\n[called tool add with {"a": 2, "b": "ü"}]'},
            {"role": "user",
             "content": "[result of tool add]\n5\n\n[result of tool add (error)]\nboom"},
        ],
        id="tools-as-text",
    ),
    pytest.param(
        [_tool_message(FAILED), _tool_message(
            ToolResultPart(call_id="c", name="x", content="error: already said", is_error=True))],
        {"error_prefix": True},
        [
            {"role": "tool", "tool_call_id": "call_1", "content": "Error: boom"},
            {"role": "tool", "tool_call_id": "c", "content": "error: already said"},
        ],
        id="error-prefix",
    ),
    pytest.param(
        [_tool_message(FAILED)], {},
        [{"role": "tool", "tool_call_id": "call_1", "content": "boom"}],
        id="no-error-prefix",
    ),
    pytest.param(
        [Message(role=Role.ASSISTANT, parts=[]), Message(role=Role.USER, parts=[])],
        {"drop_empty": True}, [], id="drop-empty",
    ),
    pytest.param(
        [Message(role=Role.ASSISTANT, parts=[]), Message(role=Role.USER, parts=[])],
        {"empty_content": ""},
        [{"role": "assistant", "content": ""}, {"role": "user", "content": ""}],
        id="keep-empty",
    ),
    pytest.param(
        [Message.assistant("", [ToolCallPart(id="c", name="f", raw_arguments="{oops")])], {},
        [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}]}],
        id="raw-arguments-sent-back",
    ),
    pytest.param(
        [Message.user("look", "https://x.test/cat.png")], {},
        [{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "https://x.test/cat.png"}},
        ]}],
        id="image-url",
    ),
    pytest.param(
        [Message.user("look", "cat.png")], {"images": "source"},
        [{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "cat.png"}},
        ]}],
        id="image-source-as-given",
    ),
    pytest.param(
        [Message.user("look ", "cat.png")], {"images": "text"},
        [{"role": "user", "content": "look [image: cat.png]"}],
        id="image-as-text",
    ),
]


@pytest.mark.parametrize(("messages", "options", "expected"), MESSAGE_TABLE)
def test_messages_table(messages, options, expected):
    assert _messages(messages, **options) == expected


def test_local_image_becomes_a_data_url(tmp_path):
    image = tmp_path / "dot.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\nfake")
    [wire] = _messages([Message(role=Role.USER, parts=[
        TextPart(text=""), ImagePart(source=str(image)), TextPart(text="what is it?"),
    ])])
    encoded = base64.b64encode(image.read_bytes()).decode()
    assert wire["content"] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}},
        {"type": "text", "text": "what is it?"},
    ]


def test_missing_local_image_is_a_bad_request(tmp_path):
    with pytest.raises(BadRequestError, match="image not found"):
        _messages([Message.user("x", str(tmp_path / "nope.png"))])


def test_tool_definitions_and_calls():
    spec = ToolSpec(name="add", description="add numbers")
    assert tool_definitions([spec]) == [{
        "type": "function",
        "function": {"name": "add", "description": "add numbers",
                     "parameters": {"type": "object", "properties": {}}},
    }]
    assert tool_call(CALL) == ASSISTANT_WIRE["tool_calls"][0]


# ------------------------------------------------------------------------------------------------
# Stream chunks
# ------------------------------------------------------------------------------------------------


def chunk(delta: dict | None = None, finish: str | None = None, **extra: Any) -> dict:
    return {"model": "served", "choices": [{"index": 0, "delta": delta or {},
                                            "finish_reason": finish}], **extra}


def run(assembler: ChunkAssembler, chunks: list[dict]) -> list:
    events = [event for c in chunks for event in assembler.feed(c)]
    return events + list(assembler.finish())


@pytest.mark.parametrize(("finish", "had_calls", "expected"), [
    ("stop", False, StopReason.END_TURN),
    ("stop", True, StopReason.TOOL_USE),
    ("length", False, StopReason.MAX_TOKENS),
    ("tool_calls", False, StopReason.TOOL_USE),
    ("function_call", False, StopReason.TOOL_USE),
    ("content_filter", False, StopReason.END_TURN),
    ("something_new", False, StopReason.END_TURN),
    (None, False, StopReason.END_TURN),
])
def test_finish_reason_mapping(finish, had_calls, expected):
    assert stop_reason(finish, had_calls=had_calls) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ({"prompt_tokens": 10, "completion_tokens": 3}, Usage(input_tokens=10, output_tokens=3)),
    ({"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 8}},
     Usage(input_tokens=10, output_tokens=3, cache_read_tokens=8)),
    ({"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": None,
      "prompt_cache_hit_tokens": 4},
     Usage(input_tokens=10, output_tokens=3, cache_read_tokens=4)),
    ({"prompt_tokens": None}, Usage()),
])
def test_usage_mapping(raw, expected):
    assert usage_from(raw) == expected


def test_text_usage_and_stop_in_order():
    usage = {"prompt_tokens": 7, "completion_tokens": 2,
             "prompt_tokens_details": {"cached_tokens": 5}}
    events = run(ChunkAssembler(), [
        chunk({"role": "assistant", "content": "Hel"}),
        chunk({"content": "lo"}),
        chunk(finish="length"),
        {"model": "served", "choices": [], "usage": usage},
    ])
    assert events == [
        TextDelta(text="Hel"), TextDelta(text="lo"),
        UsageEvent(usage=Usage(input_tokens=7, output_tokens=2, cache_read_tokens=5)),
        StopEvent(reason=StopReason.MAX_TOKENS, model="served"),
    ]


def test_usage_at_end_and_fixed_model():
    assembler = ChunkAssembler(model="mine", usage_at_end=True)
    events = run(assembler, [
        chunk({"content": "x"}, usage={"prompt_tokens": 1, "completion_tokens": 1}),
        chunk(finish="stop"),
    ])
    assert [type(e) for e in events] == [TextDelta, UsageEvent, StopEvent]
    assert events[-1] == StopEvent(reason=StopReason.END_TURN, model="mine")


def test_stream_without_finish_is_reported_unfinished():
    assembler = ChunkAssembler()
    list(assembler.feed(chunk({"content": "x"})))
    assert not assembler.finished
    list(assembler.feed(chunk(finish="stop")))
    assert assembler.finished


def _fragment(index: int | None, *, id: str | None = None, name: str | None = None,
              arguments: Any = None) -> dict:
    function: dict[str, Any] = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    fragment: dict[str, Any] = {"function": function}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    return fragment


def test_two_interleaved_calls_come_in_index_order_and_stop_means_tool_use():
    events = run(ChunkAssembler(), [
        chunk({"tool_calls": [_fragment(1, id="b", name="two", arguments='{"y"')]}),
        chunk({"tool_calls": [_fragment(0, id="a", name="one", arguments="{}")]}),
        chunk({"tool_calls": [_fragment(1, arguments=": 2}")]}),
        chunk(finish="stop"),
    ])
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("a", "one", {}), ("b", "two", {"y": 2})]
    assert events[-1].reason == StopReason.TOOL_USE


def test_calls_without_index_are_told_apart_by_id():
    events = run(ChunkAssembler(), [
        chunk({"tool_calls": [_fragment(None, id="a", name="one", arguments='{"x":')]}),
        chunk({"tool_calls": [_fragment(None, arguments="1}")]}),
        chunk({"tool_calls": [_fragment(None, id="b", name="two", arguments={"z": True})]}),
        chunk(finish="tool_calls"),
    ])
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("a", "one", {"x": 1}), ("b", "two", {"z": True})]


def test_bad_json_arguments_are_kept_raw():
    [event] = [e for e in run(ChunkAssembler(), [
        chunk({"tool_calls": [_fragment(0, name="f", arguments=" [1, 2] ")]}),
        chunk(finish="tool_calls"),
    ]) if isinstance(e, ToolCallEvent)]
    assert event.call.arguments == {}
    assert event.call.raw_arguments == " [1, 2] "
    assert event.call.id.startswith("call_")


def test_llama_cpp_style_options():
    assembler = ChunkAssembler(flush_on_finish=True, skip_nameless=True, join_names=True,
                               strip_arguments=True)
    events = run(assembler, [
        chunk({"tool_calls": [_fragment(0, name="get_", arguments=" {oops ")]}),
        chunk({"tool_calls": [_fragment(0, name="weather"), _fragment(1, arguments="{}")]}),
        chunk(finish="stop"),
        {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
    ])
    assert [type(e) for e in events] == [ToolCallEvent, UsageEvent, StopEvent]
    assert events[0].call.name == "get_weather"
    assert events[0].call.raw_arguments == "{oops"
    assert events[-1].reason == StopReason.TOOL_USE


def test_plain_stop_after_calls_can_stay_end_turn():
    assembler = ChunkAssembler(tool_use_on_calls=False)
    events = run(assembler, [chunk({"tool_calls": [_fragment(0, name="f")]}), chunk(finish="stop")])
    assert events[-1].reason == StopReason.END_TURN
    assert run(ChunkAssembler(tool_use_on_calls=False),
               [chunk({"tool_calls": [_fragment(0, name="f")]})])[-1].reason == StopReason.TOOL_USE


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner,
                                                                   max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(
    arguments=st.lists(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=5),
                       min_size=1, max_size=3),
    data=st.data(),
    ascii_only=st.booleans(),
)
def test_fragmented_arguments_reassemble_exactly(arguments, data, ascii_only):
    """Any JSON object, cut anywhere and interleaved with other calls, comes back equal."""
    queues = []
    for index, value in enumerate(arguments):
        text = json.dumps(value, ensure_ascii=ascii_only)
        cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
        pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        head = _fragment(index, id=f"id{index}", name=f"tool{index}", arguments=pieces[0])
        queues.append([head] + [_fragment(index, arguments=p) for p in pieces[1:]])
    chunks = []
    while any(queues):
        pick = data.draw(st.sampled_from([q for q in queues if q]))
        chunks.append(chunk({"tool_calls": [pick.pop(0)]}))
    chunks.append(chunk(finish="tool_calls"))
    calls = [e.call for e in run(ChunkAssembler(), chunks) if isinstance(e, ToolCallEvent)]
    assert [c.arguments for c in calls] == arguments
    assert [c.raw_arguments for c in calls] == [None] * len(arguments)
    assert [c.id for c in calls] == [f"id{i}" for i in range(len(arguments))]
