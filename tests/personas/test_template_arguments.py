"""The arguments of a command template, as properties: ``$ARGUMENTS`` is the text as typed,
``$N`` its N-th shell word (quotes group words), missing words are empty, and what an argument
brings in is never substituted again."""

from __future__ import annotations

import shlex

from chatcli_personas.expand import PLACEHOLDER, expand, split_arguments
from hypothesis import given
from hypothesis import strategies as st

text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
               max_size=40)
words = st.lists(text, min_size=1, max_size=6)


@given(words)
def test_each_quoted_word_comes_back_as_its_positional(values: list[str]) -> None:
    body = "|".join(f"${index}" for index in range(1, len(values) + 1))
    assert expand(body, shlex.join(values)) == "|".join(values)


@given(text, text)
def test_arguments_is_the_text_as_typed_and_is_not_expanded_again(arguments: str,
                                                                  around: str) -> None:
    body = f"<$ARGUMENTS>{around.replace('$', '')}"
    assert expand(body, arguments) == f"<{arguments}>{around.replace('$', '')}"
    assert expand("$ARGUMENTS $ARGUMENTS", arguments) == f"{arguments} {arguments}"


@given(words, st.integers(min_value=1, max_value=12))
def test_a_missing_positional_is_empty(values: list[str], extra: int) -> None:
    beyond = len(values) + extra
    assert expand(f"[${beyond}]", shlex.join(values)) == "[]"


@given(text.filter(lambda t: PLACEHOLDER.search(t) is None), text)
def test_a_body_without_placeholders_keeps_its_text_and_gets_the_arguments(
        body: str, arguments: str) -> None:
    expanded = expand(body, arguments)
    if arguments.strip():
        assert expanded == f"{body.rstrip()}\n\nARGUMENTS: {arguments}"
    else:
        assert expanded == body


def test_examples() -> None:
    assert expand("fix $1 then $2", 'src/"a b".py "two words"') == (
        "fix src/a b.py then two words")
    assert expand("$1 and $10", " ".join(str(n) for n in range(1, 11))) == "1 and 10"
    assert expand("cost: $0 and $5 and $", "a") == "cost: $0 and  and $"
    assert expand("$ARGUMENTSX", "a b") == "a bX"
    assert split_arguments('"unbalanced quote here') == ['"unbalanced', "quote", "here"]
    assert expand("$2", "it's fine") == "fine"  # an apostrophe: split on blanks
