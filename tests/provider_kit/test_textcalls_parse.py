"""The text tool-call protocol: every accepted format, hostile arguments, and fuzzing."""

from __future__ import annotations

import json

import pytest
from chatcli import ToolSpec
from chatcli_provider_kit.textcalls import (
    catalog_section,
    format_tool_call,
    parse_tool_calls,
    scan_tool_calls,
)
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
# no call syntax, and no code fence (a call inside one is an example)
prose = st.text(max_size=60).filter(
    lambda t: "<tool_call" not in t.lower() and "TOOL_CALL:" not in t and "{" not in t
    and "```" not in t and "~~~" not in t
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


# ------------------------------------------------------------------------ every accepted form

LIST = ToolSpec(name="list_files", description="List.", parameters={
    "type": "object", "properties": {"path": {"type": "string"}, "depth": {"type": "integer"}}})
SEARCH = ToolSpec(name="search", description="Search.", parameters={
    "type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"},
                                     "deep": {"type": "boolean"}},
    "required": ["query"]})
TOOLS = [READ, GREP, LIST, SEARCH]


def calls(text: str) -> list[tuple[str, object]]:
    """(name, arguments) of each call; raw arguments as ("RAW", text)."""
    return [(c.name, c.arguments if c.raw_arguments is None else ("RAW", c.raw_arguments))
            for c in parse_tool_calls(text, TOOLS)]


@pytest.mark.parametrize("text", [
    """<tool_call name="read_file" args='{"path": "a.py"}'/>""",
    """<tool_call args='{"path": "a.py"}' name='read_file' />""",
    """<tool_call name=read_file args='{"path": "a.py"}'/>""",
    """<tool_call\n  name="read_file"\n  args='{"path": "a.py"}'\n/>""",
    '<tool_call name="read_file" args="{\\"path\\": \\"a.py\\"}"/>',
    '<tool_call name="read_file" args="{&quot;path&quot;: &quot;a.py&quot;}"/>',
    '<tool_call name="read_file" arguments="{&#34;path&#34;: &#x22;a.py&#x22;}"/>',
    '<tool_call name="read_file" args="{"path": "a.py"}"/>',
    """<tool_call name="read_file" args="{'path': 'a.py',}"/>""",
    """<tool_call name="read_file" args="{path: 'a.py'}"/>""",
    """<tool_call name="read_file" args={"path": "a.py"} />""",
    """<tool_call name="read_file" args='{"path": "a.py"}'></tool_call>""",
    """<tool_call name="read_file" args='{"path": "a.py"}'>""",
    """<tool_call name="read_file">{"path": "a.py"}</tool_call>""",
    """<tool_call name="read_file">\n  {"path": "a.py"}\n</tool_call >""",
    """<tool_call name="read_file">{'path': 'a.py'}</tool_call>""",
    """<tool_call name="read_file">a.py</tool_call>""",
    """<tool_call name="read_file">{"path": "a.py"}""",
    """<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>""",
    """<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>""",
    """{"tool_call": "read_file", "args": {"path": "a.py"}}""",
    """{"tool_call": "read_file", "arguments": {"path": "a.py"}}""",
    """{"tool_call": "read_file", "arguments": "{\\"path\\": \\"a.py\\"}"}""",
    """{'tool_call': 'read_file', 'args': {'path': 'a.py'},}""",
    """{"name": "read_file", "arguments": {"path": "a.py"}}""",
    """{"name": "read_file", "parameters": {"path": "a.py"}}""",
    """TOOL_CALL: read_file({"path": "a.py"})""",
    """TOOL_CALL: read_file(\n  {"path": "a.py"}\n)""",
    """TOOL_CALL: read_file(path="a.py")""",
    """TOOL_CALL: read_file(path='a.py')""",
    """TOOL_CALL: read_file(path=a.py)""",
    """TOOL_CALL: read_file(path: a.py)""",
    """TOOL_CALL: read_file(--path a.py)""",
    """TOOL_CALL: read_file(a.py)""",
    """TOOL_CALL: read_file("a.py")""",
    """   TOOL_CALL:read_file ( a.py )""",
])
def test_each_form_reads_the_same_call(text) -> None:
    assert calls(f"I will read it.\n{text}\nThen I wait.") == [("read_file", {"path": "a.py"})]


def test_lenient_json_keeps_what_strict_json_rejects() -> None:
    text = r"""<tool_call name="grep" args='{pattern: "\d+\.py", path: ".", "n": True, }'/>"""
    assert calls(text) == [("grep", {"pattern": r"\d+\.py", "path": ".", "n": True})]
    raw_newline = '<tool_call name="read_file">{"path": "a\nb"}</tool_call>'
    assert calls(raw_newline) == [("read_file", {"path": "a\nb"})]
    assert calls("""<tool_call name="read_file" args="{'path': 'it\\'s'}"/>""") == [
        ("read_file", {"path": "it's"})]
    assert calls('{"tool_call": "read_file", "args": {"path": "\\ud83d\\ude00"}}') == [
        ("read_file", {"path": "😀"})]


def test_only_semicolon_terminated_entities_are_decoded() -> None:
    text = ('<tool_call name="read_file" '
            'args="{&quot;path&quot;: &quot;a&notb &amp; &bogus;&quot;}"/>')
    assert calls(text) == [("read_file", {"path": "a&notb & &bogus;"})]


def test_line_form_arguments_map_onto_the_schema() -> None:
    text = (
        "TOOL_CALL: grep(def main, src)\n"
        "TOOL_CALL: grep(\"a, b\", 'src dir')\n"
        "TOOL_CALL: grep(pattern=\"x)\", path=.)\n"
        "TOOL_CALL: grep(foo)\n"
        "TOOL_CALL: search(query=hello, limit=5, deep=true)\n"
        "TOOL_CALL: search(42)\n"
        "TOOL_CALL: list_files(src)\n"
        "TOOL_CALL: list_files()\n"
        "TOOL_CALL: read_file(echo it's here) and some prose (really)\n"
        "TOOL_CALL: read_file(A=1 make)\n"
    )
    assert calls(text) == [
        ("grep", {"pattern": "def main", "path": "src"}),
        ("grep", {"pattern": "a, b", "path": "src dir"}),
        ("grep", {"pattern": "x)", "path": "."}),
        ("grep", {"pattern": "foo"}),  # the first required; the engine reports the missing one
        ("search", {"query": "hello", "limit": 5, "deep": True}),
        ("search", {"query": "42"}),  # a string parameter stays a string
        ("list_files", {"path": "src"}),  # nothing required: the first parameter
        ("list_files", {}),
        ("read_file", {"path": "echo it's here) and some prose (really"}),  # Kamaji: last ")"
        ("read_file", {"path": "A=1 make"}),  # A is no parameter: positional
    ]


def test_positional_values_are_typed_by_the_schema() -> None:
    sleep = ToolSpec(name="sleep", description="Wait.", parameters={
        "type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]})
    [call] = parse_tool_calls("TOOL_CALL: sleep(1.5)", [sleep])
    assert call.arguments == {"seconds": 1.5}


def test_what_is_not_a_call() -> None:
    assert calls(
        "Use the <tool_call> tag, or write TOOL_CALL: at the start of a line.\n"
        "The <tool_call name=\"x\"> element must be closed.\n"
        "TOOL_CALL: read_file(\n"
        "TOOL_CALL read_file(a)\n"
        "say TOOL_CALL: read_file(a) mid-line\n"
        '{"name": "chatcli", "version": "1.0"}\n'
        '{"tool_call": 42}\n'
        '<tool_call name="has space" args="{}"/>\n'
        '<tool_call name="read_file" args=\'{"path": "never closed"}\''
    ) == []


def test_calls_inside_code_fences_are_examples() -> None:
    example = """<tool_call name="read_file" args='{"path": "example"}'/>"""
    text = (
        f"To read a file, write:\n```\n{example}\n```\nor with tildes\n~~~xml\n{example}\n~~~\n"
        f"````md\n```\n{example}\n```\n{example}\n````\n"
        "Now for real:\n"
        """<tool_call name="read_file" args='{"path": "real"}'/>\n"""
        "  ```json\n{\"tool_call\": \"read_file\", \"args\": {\"path\": \"indented\"}}\n  ```\n"
        "and ```inline``` code does not open a fence: "
        """<tool_call name="read_file" args='{"path": "after inline"}'/>\n"""
        "```\nan unclosed fence runs to the end\n"
        f"{example}"
    )
    assert calls(text) == [("read_file", {"path": "real"}), ("read_file", {"path": "after inline"})]


def test_an_answer_that_is_one_fence_is_searched() -> None:
    call = '{"tool_call": "read_file", "args": {"path": "a.py"}}'
    assert calls(f"\n```json\n{call}\n```\n") == [("read_file", {"path": "a.py"})]
    assert calls(f"~~~\n{call}") == [("read_file", {"path": "a.py"})]  # never closed
    assert calls(f"```json\n{call}\n```\nThat was an example.") == []


def test_a_fence_inside_a_call_is_part_of_its_arguments() -> None:
    content = "# Title\n```sh\nls\n"  # an unbalanced fence inside a file's content
    text = ('<tool_call name="write">\n'
            + json.dumps({"path": "README.md", "content": content}).replace("\\n", "\n")
            + "\n</tool_call>\nand then\n"
            """<tool_call name="read_file" args='{"path": "README.md"}'/>""")
    assert [c.name for c in parse_tool_calls(text, TOOLS)] == ["write", "read_file"]
    assert parse_tool_calls(text, TOOLS)[0].arguments["content"] == content


def test_calls_beyond_the_cap_are_ignored_and_flagged() -> None:
    from chatcli_provider_kit.textcalls._parse import MAX_CALLS

    text = "\n".join(f"TOOL_CALL: read_file(f{i}.py)" for i in range(MAX_CALLS + 5))
    found = parse_tool_calls(text, TOOLS)
    assert len(found) == MAX_CALLS and found.truncated
    assert found[-1].arguments == {"path": f"f{MAX_CALLS - 1}.py"}
    exactly = parse_tool_calls("\n".join(text.splitlines()[:MAX_CALLS]), TOOLS)
    assert len(exactly) == MAX_CALLS and not exactly.truncated
    assert len(parse_tool_calls(text, TOOLS, limit=3)) == 3


# ------------------------------------------------------------------------ hostile arguments


def test_deep_nesting_is_invalid_arguments_not_a_crash() -> None:
    deep = "[" * 1100 + "]" * 1100
    deep_object = '{"a": ' * 1100 + "1" + "}" * 1100
    for text in [
        f"<tool_call name=\"read_file\" args='{deep}'/>",
        f"<tool_call name=\"read_file\" args='{deep_object}'/>",
        f'<tool_call name="read_file">{deep_object}</tool_call>',
        f"TOOL_CALL: read_file({deep})",
        f'{{"tool_call": "read_file", "args": {deep}}}',
        f'{{"tool_call": "read_file", "args": {deep_object}}}',
        f'<tool_call name="read_file" args=\'{{"path": {"[" * 65 + "]" * 65}}}\'/>',
    ]:
        [call] = parse_tool_calls(text, TOOLS)
        assert call.name == "read_file" and call.raw_arguments, text[:60]
        assert call.model_dump_json()  # storable
    from chatcli_provider_kit.textcalls._parse import MAX_DEPTH

    ok = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    [call] = parse_tool_calls(f"<tool_call name=\"x\" args='{{\"a\": {ok}}}'/>")
    assert call.raw_arguments is None


def test_lone_surrogates_are_replaced_so_the_call_can_be_stored() -> None:
    [call] = parse_tool_calls('<tool_call name="read_file" args=\'{"path": "a\\ud800"}\'/>')
    assert call.arguments == {"path": "a\ufffd"}
    assert call.model_dump_json()


def test_unbalanced_line_calls_are_neither_quadratic_nor_a_flood() -> None:
    from chatcli_provider_kit.textcalls._parse import MAX_CALLS, _Budget, _Scanner

    text = "TOOL_CALL: read(\n" * 2_000 + "TOOL_CALL: read(x)\n" * 2_000  # 70 KB
    found = parse_tool_calls(text, TOOLS)
    assert len(found) == MAX_CALLS and found.truncated
    budget = _Budget(limit=None)
    _Scanner(text, budget=budget).run()
    assert budget.scanned < 3 * len(text)


def test_huge_numbers_and_odd_values_do_not_raise() -> None:
    for args in ["1" * 5000, "{\"a\": " + "1" * 5000 + "}", "{'a': " + "9" * 5000 + "}",
                 "{\"a\": 1e999}", "&#99999999;", "&#x110000;", "\\", "'", '"']:
        parse_tool_calls(f"<tool_call name=\"read_file\" args='{args}'/>", TOOLS)
        parse_tool_calls(f"TOOL_CALL: read_file({args})", TOOLS)


def test_a_tool_with_a_broken_schema_does_not_raise() -> None:
    odd = ToolSpec(name="odd", description="x", parameters={"properties": [1], "required": "a"})
    [call] = parse_tool_calls("TOOL_CALL: odd(hello)", [odd])
    assert call.raw_arguments == "hello"
    assert "odd" in catalog_section([odd]).text
