"""Properties of the text tool-call parser, checked with hypothesis.

1. It never raises, whatever the text (arbitrary and adversarial), and what it returns is sane.
2. A well-formed call, written in any accepted form and put in any text without call syntax of
   its own, is found exactly once, where it stands, with its arguments.
3. ``format_tool_call`` then parsing gives the call back.

And the work is linear: counted in steps and characters examined, never in wall time (no
hypothesis deadline either).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from chatcli import ToolSpec
from chatcli_provider_kit.textcalls._parse import (
    MAX_CALLS,
    _Budget,
    _Scanner,
    format_tool_call,
    parse_tool_calls,
    to_tool_call,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

READ = ToolSpec(name="read_file", description="Read a file.", parameters={
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
GREP = ToolSpec(name="grep", description="Search.", parameters={
    "type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}},
    "required": ["pattern", "path"]})
SEARCH = ToolSpec(name="web.search", description="Search the web.", parameters={
    "type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"},
                                     "deep_mode": {"type": "boolean"}, "tags": {"type": "array"}},
    "required": ["query"]})
TOOLS = [READ, GREP, SEARCH]

FRAGMENTS = [
    "<tool_call", "<TOOL_CALL ", "</tool_call>", "/>", ">", "<", "name=", 'name="read_file"',
    "args=", "args='", 'args="', '"', "'", "{", "}", "[", "]", ":", ",", "(", ")", "\\", "\\\\",
    '\\"', "&quot;", "&amp;", "&#39;", "&#x", ";", "TOOL_CALL: x(", "TOOL_CALL: read_file(",
    "\nTOOL_CALL:", "\n", " ", "\t", "```", "\n```\n", "~~~", '{"tool_call": "read_file"',
    '"args": ', '{"name": "grep", "arguments": ', "=", "--path", "true", "1e999", "\\u", "\\ud800",
    "😀", "\x00", "\r\n", "-", "0",
]
adversarial = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=80).map("".join)
repeated = st.builds(lambda parts, n: "".join(parts) * n,
                     st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=6),
                     st.integers(1, 300))


def run(text: str, budget: _Budget | None = None) -> list[Any]:
    """Scan and convert like ``parse_tool_calls`` does, but with no safety net: a bug raises."""
    scanner = _Scanner(text, budget=budget or _Budget())
    found = scanner.run()
    specs = {spec.name: spec for spec in TOOLS}
    last = 0
    for call in found:
        assert last <= call.start < call.end <= len(text)
        assert call.name and call.name == call.name.strip()
        last = call.end
    assert len(found) <= MAX_CALLS
    converted = [to_tool_call(call, specs.get(call.name)) for call in found]
    for part in converted:
        part.model_dump_json()  # storable: no lone surrogates
    return converted


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text() | adversarial | repeated)
def test_the_parser_never_raises(text) -> None:
    run(text)
    assert isinstance(parse_tool_calls(text, TOOLS), list)


# ------------------------------------------------------------------ well-formed calls are found

json_scalars = (st.none() | st.booleans() | st.integers() | st.text(max_size=12)
                | st.floats(allow_nan=False, allow_infinity=False))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=10,
)


def call_shaped(args: dict[str, Any]) -> bool:
    """A dict the parser would read as a call itself (a paired body is unwrapped)."""
    return "tool_call" in args or ("name" in args and any(
        k in args for k in ("arguments", "args", "parameters")))


def text_without_call_syntax(text: str) -> bool:
    low = text.lower()
    return ("tool_call" not in low and "```" not in text and "~~~" not in text
            and not ("{" in text and "name" in low))


surrounding = st.text(max_size=40).filter(text_without_call_syntax)


def xml(text: str) -> str:
    return text.replace("&", "&amp;")


@st.composite
def written_calls(draw) -> tuple[str, str, dict[str, Any], str]:
    """(form, text of one call, its arguments, the name) in one of the accepted forms."""
    spec = draw(st.sampled_from(TOOLS))
    name = spec.name
    form = draw(st.sampled_from([
        "canonical", "single", "double-escaped", "raw-json", "paired", "hermes", "object",
        "object-name", "line-json", "line-pairs", "line-positional",
    ]))
    if form == "line-pairs":
        keys = list(spec.parameters["properties"])
        args = draw(st.dictionaries(st.sampled_from(keys), json_values, min_size=1))
    elif form == "line-positional":
        spec = READ
        name = spec.name
        args = {"path": draw(st.from_regex(r"[\w./][\w./ -]{0,30}", fullmatch=True)
                             .map(str.strip).filter(lambda p: p and not p.startswith("-")))}
    else:
        args = draw(st.dictionaries(st.text(max_size=10), json_values, max_size=4)
                    .filter(lambda a: not call_shaped(a)))
    js = json.dumps(args, ensure_ascii=draw(st.booleans()))
    sp = draw(st.sampled_from(["", " ", "\n  "]))
    nq = draw(st.sampled_from(["'", '"']))
    name_attr = f"name={nq}{name}{nq}"
    if form == "canonical":
        text = format_tool_call(name, args)
    elif form == "single":
        inner = xml(js).replace("'", draw(st.sampled_from(["&#39;", "\\'", "&apos;"])))
        attrs = [name_attr, f"args='{inner}'"]
        if draw(st.booleans()):
            attrs.reverse()
        text = f"<tool_call {' '.join(attrs)}{sp}/>"
    elif form == "double-escaped":
        inner = xml(js).replace("\\", "\\\\").replace('"', '\\"')
        text = f'<tool_call {name_attr} args="{inner}"{sp}/>'
    elif form == "raw-json":
        q = draw(st.sampled_from(["'", '"']))
        text = f"<tool_call args={q}{xml(js)}{q} {name_attr}/>"
    elif form == "paired":
        text = f"<tool_call {name_attr}>{sp}{xml(js)}{sp}</tool_call>"
    elif form == "hermes":
        text = f"<tool_call>{sp}{json.dumps({'name': name, 'arguments': args})}{sp}</tool_call>"
    elif form == "object":
        key = draw(st.sampled_from(["args", "arguments"]))
        text = json.dumps({"tool_call": name, key: args})
    elif form == "object-name":
        key = draw(st.sampled_from(["arguments", "args", "parameters"]))
        text = json.dumps({"name": name, key: args})
    elif form == "line-json":
        text = f"TOOL_CALL: {name}({sp}{js}{sp})"
    elif form == "line-pairs":
        text = f"TOOL_CALL: {name}(" + ", ".join(
            f"{k}={json.dumps(v)}" for k, v in args.items()) + ")"
    else:
        text = f"TOOL_CALL: {name}({args['path']})"
    return form, text, json.loads(json.dumps(args)), name


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(surrounding, written_calls(), surrounding)
def test_a_well_formed_call_in_any_text_is_found_exactly(before, written, after) -> None:
    form, call, args, name = written
    if form.startswith("line"):
        before += "\n"  # the line form starts a line
    text = before + call + after
    [found] = _Scanner(text).run()
    assert (found.start, found.end) == (len(before), len(before) + len(call))
    [part] = run(text)
    assert part.name == name
    assert part.raw_arguments is None, (form, call)
    assert part.arguments == args, (form, call)


@settings(max_examples=100, deadline=None)
@given(written_calls())
def test_an_answer_that_is_one_fence_holds_a_real_call(written) -> None:
    _, call, args, name = written
    [part] = run(f"```\n{call}\n```\n")
    assert (part.name, part.arguments) == (name, args)
    assert run(f"For example:\n```\n{call}\n```\n") == []


# ------------------------------------------------------------------ format, then parse

tool_names = st.from_regex(r"[A-Za-z_][\w.@-]{0,40}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(tool_names, st.dictionaries(st.text(), json_values, max_size=6))
def test_format_then_parse_round_trips(name, args) -> None:
    [part] = parse_tool_calls(format_tool_call(name, args))
    assert part.name == name
    assert part.arguments == json.loads(json.dumps(args))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(tool_names, st.dictionaries(st.text(max_size=5), json_values,
                                                      max_size=2)), max_size=40), surrounding)
def test_many_formatted_calls_come_back_in_order_up_to_the_cap(pairs, glue) -> None:
    text = glue.join(format_tool_call(n, a) for n, a in pairs)
    found = parse_tool_calls(text)
    assert [(c.name, c.arguments) for c in found] == [
        (n, json.loads(json.dumps(a))) for n, a in pairs][:MAX_CALLS]
    assert found.truncated == (len(pairs) > MAX_CALLS)


# ------------------------------------------------------------------ linear work

HOSTILE = {
    "unbalanced lines": "TOOL_CALL: read(\n",
    "unbalanced lines with quotes": "TOOL_CALL: read(\"a, 'b\n",
    "balanced lines": "TOOL_CALL: read(x)\n",
    "unterminated tags": '<tool_call name="x" args=\'{"a": 1}\' ',
    "tags opening quotes": '<tool_call name="',
    "tags opening both quotes": "<tool_call a=\"x' <tool_call b='y\" ",
    "paired tags never closed": '<tool_call name="x">',
    "json heads": '{"tool_call": "x", "args": {"a": "',
    "deep json heads": '{"tool_call": "x", "args": ',
    "name heads": '{"name": "x", "arguments": [',
    "brackets": "[{(",
    "quotes": "\"'",
    "backslashes and quotes": '\\\\\\"',
    "entities": "&quot;&amp;&#",
    "fences": "```\n",
    "short fences in a long one": "```\n````\n",
}


# Characters examined per character of text: each of the five marker searches passes over the
# text about once, and a failed piece of JSON may be read a few times (the C decoder, then the
# lenient reader; as a tag's body, then as an object). Growth is what matters: 4x the text may
# cost at most 4.5x the work.
PER_CHAR = 12


def work(text: str) -> tuple[int, int]:
    budget = _Budget(limit=None)  # no cap: measure the scanner's own growth
    scanner = _Scanner(text, limit=10**9, budget=budget)
    scanner.run()
    return budget.steps, budget.scanned


@pytest.mark.parametrize("unit", list(HOSTILE.values()), ids=list(HOSTILE))
def test_work_grows_linearly_with_hostile_text(unit) -> None:
    small, large = unit * 2000, unit * 8000  # both past the C decoder's ~1,000 levels
    steps_small, scanned_small = work(small)
    steps_large, scanned_large = work(large)
    assert scanned_large <= PER_CHAR * len(large) + 1000
    assert steps_large <= 4.5 * steps_small + 100
    assert scanned_large <= 4.5 * scanned_small + 1000


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8), st.integers(50, 400))
def test_characters_examined_stay_a_small_multiple_of_the_text(parts, n) -> None:
    text = "".join(parts) * n
    _, scanned = work(text)
    assert scanned <= PER_CHAR * len(text) + 1000


def test_hostile_text_is_capped_by_the_step_budget() -> None:
    text = '<tool_call a="x" ' * 50_000  # every tag fails; a step per attribute
    found = parse_tool_calls(text)
    assert found == [] and found.truncated
    budget = _Budget()
    _Scanner(text, budget=budget).run()
    assert budget.steps <= budget.limit + 1
