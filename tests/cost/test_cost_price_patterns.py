"""A price pattern matches a model name exactly as ``fnmatch.fnmatchcase`` does (the built-in
list's ``*`` patterns are matched without compiling a regular expression each)."""

from __future__ import annotations

from fnmatch import fnmatchcase

from chatcli_context.cost.prices import BUILTIN_PRICES, PriceTable, matches_pattern
from hypothesis import given
from hypothesis import strategies as st

_ALPHABET = "ab*-./?[]!"


@given(st.text(alphabet="ab-./x", max_size=12), st.text(alphabet=_ALPHABET, max_size=8))
def test_a_pattern_matches_as_fnmatchcase_does(name: str, pattern: str) -> None:
    assert matches_pattern(name, pattern) == fnmatchcase(name, pattern)


@given(st.text(max_size=20), st.text(alphabet=st.sampled_from("ab*xy"), max_size=10))
def test_a_star_pattern_matches_any_text_as_fnmatchcase_does(name: str, pattern: str) -> None:
    assert matches_pattern(name, pattern) == fnmatchcase(name, pattern)


def test_the_built_in_prices_are_found_as_before() -> None:
    table = PriceTable()
    for name in ("openai/gpt-5-mini-2025", "openai/gpt-4o", "anthropic/claude-3-5-haiku-latest",
                 "anthropic/claude-opus-4-1-2025", "ollama/llama3", "openai/gpt-bench"):
        provider, model = name.split("/", 1)
        found = [p for p in BUILTIN_PRICES if fnmatchcase(name, p)]
        expected = BUILTIN_PRICES[max(found, key=lambda p: sum(c not in "*?[]" for c in p))] \
            if found else None
        assert table.price(provider, model)[0] == expected
