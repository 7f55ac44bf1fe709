"""The status line's text from what plugins return through ``status_items``: model first, then
``mode``, ``context``, ``spend``, then other keys alphabetically; one printable line whatever a
plugin returns (a real plugin host with plugins registered by hand)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from chatcli import PluginHost, hookimpl
from chatcli_repl import hookspecs
from chatcli_repl.status import ITEM_LIMIT, status_line
from hypothesis import given, settings
from hypothesis import strategies as st


class Declares:
    """chatcli-repl's declaration, as its entry module makes it."""

    @hookimpl
    def add_hookspecs(self, add):
        add(hookspecs)


class Says:
    def __init__(self, result: Any) -> None:
        self.result = result

    @hookimpl
    def status_items(self, session):
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def line(*results: Any) -> str:
    host = PluginHost(warn=lambda text: None)
    host.register(Declares(), "repl")
    for index, result in enumerate(results):
        host.register(Says(result), f"says{index}")
    session = SimpleNamespace(provider_name="openai", model="gpt-4o")
    return status_line(SimpleNamespace(host=host, session=session))  # type: ignore[arg-type]


#: (what the plugins return, the line)
CASES = [
    ((), "openai/gpt-4o"),
    (({"spend": "$0.01"}, {"mode": "plan mode"}, {"context": "ctx 5%"}),
     "openai/gpt-4o · plan mode · ctx 5% · $0.01"),
    (({"zeta": "z", "alpha": "a", "mode": "auto mode"},), "openai/gpt-4o · auto mode · a · z"),
    (({"mode": "two\nlines\x1b[31m red"},), "openai/gpt-4o · two lines [31m red"),
    (({"mode": "x" * 100},), "openai/gpt-4o · " + "x" * (ITEM_LIMIT - 1) + "…"),
    (({"mode": "  "}, None, {}), "openai/gpt-4o"),
    ((RuntimeError("broken plugin"), {"spend": "$1.00"}), "openai/gpt-4o · $1.00"),
    (("not a dict", {"spend": "$1.00"}), "openai/gpt-4o · $1.00"),
]


@pytest.mark.parametrize(("results", "shown"), CASES)
def test_status_line_orders_and_cleans_what_plugins_say(results: tuple, shown: str) -> None:
    assert line(*results) == shown


def test_of_two_plugins_with_one_key_the_first_called_wins() -> None:
    # pluggy calls the plugin registered last first
    assert line({"mode": "plan mode"}, {"mode": "auto mode"}) == "openai/gpt-4o · auto mode"


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.text(max_size=10), st.text(max_size=80), max_size=5))
def test_the_line_is_one_printable_line(items: dict[str, str]) -> None:
    shown = line(items)
    assert shown.isprintable() and shown.startswith("openai/gpt-4o")
    assert all(len(part) <= ITEM_LIMIT for part in shown.split(" · ")[1:])
