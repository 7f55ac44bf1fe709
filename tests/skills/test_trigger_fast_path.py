"""Triggers whose words are not even in the message are told without compiling their regular
expression; the quick look never misses a trigger the expression finds."""

from __future__ import annotations

from chatcli_skills.matching import _surely_absent, _trigger_regex, matched_trigger
from hypothesis import given
from hypothesis import strategies as st

#: Letters the whole-word, case-insensitive expression treats specially: case pairs, the
#: characters IGNORECASE folds into ASCII ones (Kelvin sign, long s, dotless i, İ), word
#: boundaries.
LETTERS = "aAkKsSiI\u212a\u017f\u0131\u0130 _-.é"
words = st.text(alphabet=LETTERS, min_size=1, max_size=4).filter(str.strip)


@given(st.lists(words, min_size=1, max_size=3).map(" ".join),
       st.text(alphabet=LETTERS, max_size=30))
def test_the_quick_look_never_misses_a_match(trigger: str, text: str) -> None:
    lowered = text.lower() if text.isascii() else None
    if _trigger_regex(trigger.strip()).search(text):
        assert not _surely_absent(trigger.strip(), text, lowered)


def test_a_trigger_absent_from_the_message_is_not_compiled() -> None:
    class Skill:
        triggers = ("zebra crossing unique-7",)

    _trigger_regex.cache_clear()
    assert matched_trigger(Skill(), "nothing to see here") is None  # type: ignore[arg-type]
    assert _trigger_regex.cache_info().misses == 0
    assert matched_trigger(Skill(), "A Zebra  Crossing unique-7!") == "zebra crossing unique-7"  # type: ignore[arg-type]
    assert _trigger_regex.cache_info().misses == 1
