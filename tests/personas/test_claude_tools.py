"""The parser of Claude Code's ``tools`` lists: any value never raises and always gives chatcli
tool names (each once, in order), chatcli's own names come back as written, Claude Code's names
map to chatcli's, and a comma inside a permission pattern does not split the entry."""

from __future__ import annotations

from typing import Any

from chatcli_personas.claude import CLAUDE_TOOL_NAMES, UNAVAILABLE, parse_tools, split_entries
from chatcli_personas.prompt import allows
from hypothesis import example, given
from hypothesis import strategies as st

#: A tool name as chatcli (and MCP servers) spell them.
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,20}", fullmatch=True).filter(
    lambda name: name not in CLAUDE_TOOL_NAMES and name not in UNAVAILABLE)

#: Anything YAML could hand over as the value of ``tools``.
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=12)


@given(st.text())
@example("Read, Bash(git diff:*, git log:*), (, ), ,,")
@example(")))(((,")
@example("\x00, \n, \u2028")
@example("[\n0")
@example("Bash(git diff:*\nRead")
def test_any_text_is_read_without_raising(text: str) -> None:
    parsed = parse_tools(text)
    assert parsed.tools is not None
    assert len(parsed.tools) == len(set(parsed.tools))
    assert all(name and name == name.strip() for name in parsed.tools)
    assert isinstance(parsed.note(), str)
    assert all("\n" not in name for name in parsed.tools)  # a line break ends an entry
    assert "\n" not in parsed.note()


@given(VALUES)
def test_any_yaml_value_is_read_without_raising(value: Any) -> None:
    parsed = parse_tools(value)
    assert value is None or parsed.tools is not None
    assert all(isinstance(name, str) and name for name in parsed.tools or ())


@given(st.lists(NAMES, max_size=12), st.sampled_from([", ", ",", " , ", ",\n"]))
def test_chatcli_names_round_trip_as_a_string_and_as_a_list(names: list[str],
                                                            comma: str) -> None:
    once = list(dict.fromkeys(names))
    assert parse_tools(comma.join(names)).tools == tuple(once)
    assert parse_tools(names).tools == tuple(once)
    assert parse_tools(comma.join(names)).note() == ""


@given(st.lists(st.sampled_from(sorted(CLAUDE_TOOL_NAMES)), min_size=1, max_size=8))
def test_claude_code_names_become_chatcli_s_in_any_case(names: list[str]) -> None:
    written = ", ".join(name.capitalize() if index % 2 else name.upper()
                        for index, name in enumerate(names))
    mapped = tuple(dict.fromkeys(CLAUDE_TOOL_NAMES[name] for name in names))
    assert parse_tools(written).tools == mapped
    for name in names:  # the persona's tool limit reads the list the same way
        assert allows(tuple(written.split(", ")), CLAUDE_TOOL_NAMES[name])


def test_the_documented_forms() -> None:
    assert parse_tools("Read, Grep, Glob, Bash").tools == ("read", "search", "glob", "exec")
    assert parse_tools(["Read", "Edit", "MultiEdit", "Write", "LS"]).tools == (
        "read", "edit", "multiedit", "write", "tree")
    assert parse_tools(None).tools is None  # absent: every tool
    assert parse_tools("").tools == ()
    assert parse_tools("Task").tools == ("delegate",)
    parsed = parse_tools("Read, WebFetch, Bash(npm run test:*, npm run lint:*)")
    assert parsed.tools == ("read", "exec")
    assert parsed.ignored == ("WebFetch",)
    assert parsed.patterns == ("Bash(npm run test:*, npm run lint:*)",)
    assert split_entries("a(b, c), d") == ["a(b, c)", "d"]
    assert parse_tools("Bash(git diff:*\nRead").tools == ("exec", "read")  # the line ends it
    assert parse_tools("mcp__github__create_issue").tools == ("mcp__github__create_issue",)
