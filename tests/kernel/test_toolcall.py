"""The text tool-call protocol: every accepted format, hostile arguments, and fuzzing."""

from __future__ import annotations

import json

from chatcli import ToolSpec
from chatcli._toolcall import catalog_section, format_tool_call, parse_tool_calls, scan_tool_calls
from hypothesis import given, settings
from hypothesis import strategies as st

READ = ToolSpec(name="read_file", description="Read a file.", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
GREP = ToolSpec(name="grep", description="Search.", parameters={
    "type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
    "required": ["pattern", "path"]})


def test_self_closing_tag_with_gt_and_quotes_inside_args() -> None:
    text = (
        "Let me look. "
        """<tool_call name="grep" args='{"pattern": "a > b && \\"c\\"", "path": "."}'/> done"""
    )
    [call] = parse_tool_calls(text, [GREP])
    assert call.name == "grep"
    assert call.arguments == {"pattern": 'a > b && "c"', "path": "."}


def test_paired_tag_with_json_body_and_entities() -> None:
    text = '<TOOL_CALL name="read_file">{"path": "x&amp;y.txt"}</tool_call>'
    [call] = parse_tool_calls(text, [READ])
    assert call.arguments == {"path": "x&y.txt"}


def test_attribute_order_does_not_matter_and_lookalike_tags_are_ignored() -> None:
    text = '<tool_caller name="x"/> <tool_call args=\'{"path": "a"}\' name="read_file" />'
    calls = parse_tool_calls(text, [READ])
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a"})]


def test_json_and_line_formats() -> None:
    text = (
        'first {"tool_call": "read_file", "args": {"path": "a.py"}} then\n'
        "TOOL_CALL: grep(--pattern 'def (x)' --path src)\n"
        "TOOL_CALL: read_file(b.py)\n"
    )
    calls = parse_tool_calls(text, [READ, GREP])
    assert [(c.name, c.arguments) for c in calls] == [
        ("read_file", {"path": "a.py"}),
        ("grep", {"pattern": "def (x)", "path": "src"}),
        ("read_file", {"path": "b.py"}),
    ]


def test_unusable_arguments_stay_raw_for_the_engine_to_report() -> None:
    [call] = parse_tool_calls('<tool_call name="grep" args="just some words"/>', [GREP])
    assert call.raw_arguments == "just some words" and call.arguments == {}


def test_json_body_inside_a_tag_is_one_call() -> None:
    text = '<tool_call name="x">{"tool_call": "x", "args": {}}</tool_call>'
    assert len(scan_tool_calls(text)) == 1


def test_catalog_lists_tools_and_the_canonical_format() -> None:
    section = catalog_section([READ, GREP])
    assert section.stable and "read_file" in section.text and "grep" in section.text
    assert "<tool_call" in section.text


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=3),
    max_leaves=8,
)
names = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_]{0,20}", fullmatch=True)
prose = st.text(max_size=60).filter(
    lambda t: "<tool_call" not in t.lower() and "TOOL_CALL:" not in t and "{" not in t
)


@settings(max_examples=150)
@given(prose, names, st.dictionaries(st.text(max_size=10), json_values, max_size=4), prose)
def test_formatted_calls_round_trip_inside_any_prose(before, name, args, after) -> None:
    text = before + format_tool_call(name, args) + after
    calls = parse_tool_calls(text)
    assert len(calls) == 1
    assert calls[0].name == name
    assert calls[0].arguments == json.loads(json.dumps(args))


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from(list('<>/"\'= {}():\n\\tool_call TOOL_CALL:name args')),
               max_size=120))
def test_scanner_never_raises_on_garbage(text) -> None:
    for call in scan_tool_calls(text):
        assert 0 <= call.start < call.end <= len(text)
        assert call.name
