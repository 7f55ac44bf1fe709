"""The ``context_pull`` argument reader (hypothesis): it never raises on any JSON object, it is
idempotent, and every way of writing a kind and a name means the same call."""

from __future__ import annotations

import json
from typing import Any

from chatcli_context.pull_args import normalise, resolve_kind
from chatcli_context.pull_model import PullArgs
from hypothesis import given, settings
from hypothesis import strategies as st

KINDS = ["skill", "skills", "mcp_tools", "context", "contexts", "history", "bootstrap"]

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.text(max_size=10), children, max_size=4),
    max_leaves=20)
_objects = st.dictionaries(st.sampled_from(
    ["kind", "cmd", "name", "args", "arguments", "skill", "id", "offset", "path", "Kind", "x",
     "params", "input"]) | st.text(max_size=8), _json, max_size=6)
_names = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1,
                 max_size=30).filter(lambda n: n.strip() == n and n and not n.startswith("{"))


@settings(max_examples=500)
@given(_objects)
def test_it_never_raises_and_validation_never_fails(raw: dict[str, Any]) -> None:
    arguments = normalise(raw)
    resolve_kind(arguments, KINDS)
    PullArgs.model_validate(raw)  # the tool's model accepts anything a model may write


@settings(max_examples=300)
@given(_objects)
def test_it_is_idempotent(raw: dict[str, Any]) -> None:
    once = normalise(raw)
    assert normalise(once) == once


@settings(max_examples=300)
@given(st.sampled_from(KINDS), _names)
def test_every_form_means_the_same_kind_and_name(kind: str, name: str) -> None:
    forms = [
        {"kind": kind, "name": name},
        {"cmd": kind, kind: name},
        {"kind": kind, "args": {"name": name}},
        {"arguments": json.dumps({"Kind": kind.upper(), "Name": name})},
        {"type": kind, "params": {"name": name}},
        {kind: name},
    ]
    for form in forms:
        resolved, arguments = resolve_kind(normalise(form), KINDS)
        assert (resolved, arguments.get("name")) == (kind, name), form
    model = PullArgs.model_validate({"command": kind, "input": {"name": name}})
    assert (model.kind, model.name) == (kind, name)


def test_types_are_fitted_and_unknown_kinds_stay_unknown() -> None:
    assert normalise({"kind": "context", "name": 42, "offset": "2,000"}) == {
        "kind": "context", "name": "42", "offset": 2000}
    assert normalise({"kind": "context", "offset": -5})["offset"] == 0
    assert "offset" not in normalise({"offset": "soon"})
    assert resolve_kind({"kind": "wisdom"}, KINDS) == (None, {"kind": "wisdom"})
    assert resolve_kind({"kind": "mcp"}, KINDS)[0] == "mcp_tools"  # a unique prefix
    assert resolve_kind({"kind": "con"}, KINDS)[0] is None  # context or contexts?
    assert resolve_kind({"kind": "skill/x"}, KINDS) == ("skill", {"kind": "skill", "name": "x"})
