"""Properties of the small grammars: q's input prompt, and one message as q's line input."""

from __future__ import annotations

from chatcli_provider_q._clean import is_prompt, prompt_match
from chatcli_provider_q._daemon import encode_input
from hypothesis import given, settings
from hypothesis import strategies as st

_PROFILE = st.text(alphabet=st.characters(categories=("L", "N"), include_characters="-_"),
                   min_size=1, max_size=12)


@st.composite
def prompts(draw: st.DrawFn) -> str:
    """Prompts as q's generate_prompt builds them: [agent] N% λ ↯ !> ."""
    parts = []
    if draw(st.booleans()):
        parts.append(f"[{draw(_PROFILE)}] ")
    if draw(st.booleans()):
        parts.append(f"{draw(st.integers(0, 100))}% ")
    if draw(st.booleans()):
        parts.append("λ ")
    if draw(st.booleans()):
        parts.append("↯ ")
    if draw(st.booleans()):
        parts.append("!")
    return "".join(parts) + "> "


@settings(deadline=None)  # no timing in tests: a loaded machine is slow, not wrong
@given(prompts())
def test_every_prompt_q_builds_is_recognised_and_its_prefixes_are_partial(prompt: str) -> None:
    assert prompt_match(prompt) == "full" and is_prompt(prompt)
    for end in range(len(prompt) - 1):
        assert prompt_match(prompt[:end]) in ("partial", "full")


@settings(deadline=None)
@given(prompts(), st.text(alphabet=st.characters(categories=("L",)), min_size=1, max_size=5))
def test_a_prompt_followed_by_text_is_not_a_prompt(prompt: str, text: str) -> None:
    assert prompt_match(prompt + text) is None


@settings(deadline=None)
@given(st.text())
def test_prompt_match_never_fails(text: str) -> None:
    assert prompt_match(text) in ("full", "partial", None)


def q_reads(data: str) -> str:
    """The one input q's line editor reads from ``data`` (a line ending with a backslash
    continues), without those continuation marks."""
    lines: list[str] = []
    for line in data.split("\n"):
        if line.endswith("\\"):
            lines.append(line[:-1])
            continue
        lines.append(line)
        break
    return "\n".join(lines)


@settings(deadline=None)
@given(st.text(alphabet=st.characters(exclude_characters="\r\b")))
def test_a_message_is_one_input_that_q_reads_back(text: str) -> None:
    data = encode_input(text)
    assert data.endswith("\n") and data.count("\n") == text.count("\n") + 1
    expected = text + " " if text.split("\n")[-1].endswith("\\") else text
    assert q_reads(data) == expected
