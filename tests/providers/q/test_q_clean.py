"""The cleaner of q's output: what the real CLI prints goes, the answer stays, in any split."""

from __future__ import annotations

import pytest
from chatcli_provider_q._clean import Cleaner, clean, is_prompt, prompt_match
from hypothesis import example, given, settings
from hypothesis import strategies as st

ESC = "\x1b"

# ---------------------------------------------------------------- what the real CLI prints

GREETING = (
    f"{ESC}[38;5;141m⠀⠀⠀⣾⡿⢻⣿⡆⠀⠀⠀⢀⣄⡄⢀⣠⣤⣤⡀\n⠚⠛⠋⠀⠀⠀⠀⠘⠛⠛⠀⠘⠛⠛⠀⠀⠀⠛⠛{ESC}[0m\n\n"
    "╭──────────── Did you know? ────────────╮\n"
    "│                                        │\n"
    "│   You can use /compact to summarize    │\n"
    "╰────────────────────────────────────────╯\n"
    f"\n{ESC}[32m/help{ESC}[0m all commands  •  {ESC}[32mctrl + j{ESC}[0m new lines  •  "
    f"{ESC}[32mctrl + s{ESC}[0m fuzzy search\n"
    f"{ESC}[38;5;8m{'━' * 80}{ESC}[0m\n"
    "🤖 You are chatting with claude-sonnet-4\n\n"
    "To learn more about MCP safety, see https://docs.aws.amazon.com/amazonq/latest/\n\n"
    "✓ 2 of 2 mcp servers initialized.\n"
    "💡 Use /help to see what you can do\n"
)
SPINNER = f"{ESC}[?25l\r⠋ Thinking...\r⠙ Thinking...\r⠹ Thinking...{ESC}[2K{ESC}[1G{ESC}[?25h"
ANSWER = (f"{ESC}[32m> {ESC}[0mHere is {ESC}[1mbold{ESC}[0m text, café ✨ 中文.\n\n"
          f"```python\n{ESC}[38;5;10mprint(1){ESC}[0m\n```\n")


def test_a_real_session_keeps_only_the_answer() -> None:
    raw = GREETING + SPINNER + ANSWER + f"\n{ESC}[38;5;141m> {ESC}[0m"
    assert clean(raw, strip_reply_marker=True) == (
        "Here is bold text, café ✨ 中文.\n\n```python\nprint(1)\n```")


def test_the_reply_marker_is_kept_unless_asked() -> None:
    assert clean(f"{ESC}[32m> {ESC}[0mHi\n") == "> Hi"
    assert clean(f"{ESC}[32m> {ESC}[0mHi\n", strip_reply_marker=True) == "Hi"


@pytest.mark.parametrize("line", [
    "Thinking...", "/help all commands  •  ctrl + j new lines", "Did you know?",
    "🤖 You are chatting with claude-3.7-sonnet", "Picking up where we left off...",
    "To learn more about MCP safety, see https://x", "━━━━━━━━━━", "╭── box ──╮",
    "│  tip text  │", "╰──────╯", "> ", "!> ", "[dev] 6% !> ", "[plan] ↯ > ",
    "✓ 1 of 3 mcp servers initialized.", "⚠️ This conversation is getting lengthy.",
    " ● Completed in 0.2s", "Allow this action? Use 't' to trust", "▸ Credits: 0.04 • Time: 2s",
    "[BACKGROUND TASK READY]",
])
def test_furniture_lines_go(line: str) -> None:
    assert clean(f"answer\n{line}\nmore") == "answer\nmore"


@pytest.mark.parametrize("line", [
    "├── src/", "│   └── main.py", "1. first step", "100% of the tests pass", "> a quote",
    "[link](http://x) text", "Thinking about it, yes", "2 of them failed", "!important",
])
def test_answer_lines_that_look_alike_stay(line: str) -> None:
    assert clean(f"answer\n{line}\nmore") == f"answer\n{line}\nmore"


def test_carriage_return_and_erase_overwrite_what_was_not_shown() -> None:
    assert clean("⠋ Thinking...\r⠙ Thinking...\rDone\n") == "Done"
    assert clean(f"⠋ Thinking...{ESC}[2K{ESC}[1GDone\n") == "Done"
    assert clean("50%\r100% done\n") == "100% done"


def test_blank_lines_are_trimmed_and_collapsed() -> None:
    assert clean("\n\n  \nfirst\n\n\n\nsecond\n\n\n") == "first\n\nsecond"


def test_escape_sequences_of_every_kind_go() -> None:
    raw = (f"{ESC}]0;window title\x07a{ESC}]8;;http://x{ESC}\\b{ESC}]8;;{ESC}\\"
           f"{ESC}P1$r0m{ESC}\\c{ESC}(Bd{ESC}7e{ESC}[?2004hf\x9b31mg\x9d0;t\x9ch\x07\x00i")
    assert clean(raw) == "abcdefghi"


def test_a_sequence_split_across_reads_does_not_leak() -> None:
    cleaner = Cleaner()
    pieces = [cleaner.feed(p) for p in ("Hello ", "\x1b", "[3", "1", "mred", "\x1b[0", "m!")]
    assert "".join(pieces) + cleaner.finish() == "Hello red!"
    assert all("\x1b" not in p and "[" not in p for p in pieces)


def test_the_reply_marker_goes_again_after_a_tool_use_only() -> None:
    cleaner = Cleaner(strip_reply_marker=True)
    first = cleaner.feed("> I'll look.\n\n")
    cleaner.expect_reply()
    rest = cleaner.feed("> Found it.\n> a quote\n") + cleaner.finish()
    assert first + rest == "I'll look.\n\nFound it.\n> a quote"


def test_a_tool_use_goes_from_its_first_to_its_last_line() -> None:
    tool = ("🛠️  Using tool: execute_bash (trusted)\n ⋮ \n ● I will run the following shell "
            "command: ls\nREADME.md\nsrc\n\n ⋮ \n ● Completed in 0.2s\n\n")
    assert clean(f"Let me look.\n\n{tool}There are two entries.\n") == (
        "Let me look.\n\nThere are two entries.")
    cleaner = Cleaner(strip_reply_marker=True)  # no closing line: the answer's next part ends it
    text = cleaner.feed("> Let me look.\n\n🛠️  Using tool: x\nout\n")
    cleaner.expect_reply()
    assert text + cleaner.feed("> Two entries.\n") + cleaner.finish() == (
        "Let me look.\n\nTwo entries.")


def test_answer_text_streams_before_the_line_ends() -> None:
    cleaner = Cleaner(strip_reply_marker=True)
    assert cleaner.feed(f"{ESC}[32m> {ESC}[0mThe ans") == "The ans"
    assert cleaner.feed("wer") == "wer"


def test_a_line_that_may_be_the_prompt_is_held() -> None:
    cleaner = Cleaner()
    assert cleaner.feed("text\n> ") == "text"
    assert cleaner.pending() == "> "
    assert is_prompt(cleaner.pending())
    assert cleaner.finish() == ""


@pytest.mark.parametrize(("text", "expected"), [
    ("> ", "full"), (">", "full"), ("[dev] 6% λ ↯ !> ", "full"), ("[de", "partial"),
    ("12", "partial"), ("> x", None), ("hello", None), ("[a]x", None),
])
def test_prompt_grammar(text: str, expected: str | None) -> None:
    assert prompt_match(text) == expected


# ---------------------------------------------------------------- properties

_ESCAPES = st.sampled_from([
    "\x1b[0m", "\x1b[1;32m", "\x1b[38;5;141m", "\x1b[2K", "\x1b[1G", "\x1b[?25l", "\x1b]0;t\x07",
    "\x1b]8;;http://x\x1b\\", "\x1bP1$r\x1b\\", "\x1b(B", "\x1b7", "\x9b31m", "\x1b", "\x1b[",
    "\x1b]", "\r", "\b", "\x07", "\x00", "\x7f", "⠋", "⣿", "━", "│", "╭", "> ", "\n", "\t",
    "🛠️  Using tool: x\n", " ● Completed in 1s\n", "Thinking...", "[dev] 6% !> ",
])
_RAW = st.lists(st.one_of(st.text(max_size=12), _ESCAPES), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(_RAW)
@example("\x1b]" + "a" * 50 + "\nrest")
@example("│" * 500)
def test_never_crashes_and_removes_every_control(raw: str) -> None:
    out = clean(raw)
    assert isinstance(out, str)
    assert not any(c < " " and c not in "\n\t" for c in out)
    assert not any("\x7f" <= c <= "\x9f" for c in out)
    assert not any("\u2800" <= c <= "\u28ff" for c in out)


@settings(max_examples=300, deadline=None)
@given(_RAW)
def test_cleaning_is_idempotent(raw: str) -> None:
    once = clean(raw)
    assert clean(once) == once


@settings(max_examples=300, deadline=None)
@given(_RAW, st.lists(st.integers(min_value=0, max_value=200), max_size=8))
def test_the_split_into_reads_does_not_matter(raw: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(raw)) for c in cuts})
    pieces = [raw[a:b] for a, b in zip([0, *points], [*points, len(raw)], strict=True)]
    cleaner = Cleaner(strip_reply_marker=True)
    streamed = "".join(cleaner.feed(p) for p in pieces) + cleaner.finish()
    assert streamed == clean(raw, strip_reply_marker=True)


_WORD = st.text(alphabet=st.characters(categories=("L", "N"), exclude_characters="λ"),
                min_size=1, max_size=8)
_LINE = st.builds(lambda first, rest: " ".join([first, *rest]),
                  st.text(alphabet=st.characters(categories=("L",), exclude_characters="λ"),
                          min_size=1, max_size=6),
                  st.lists(st.one_of(_WORD, st.sampled_from(["—", "✨", "€", "…", ",", "é"])),
                           max_size=6))


@settings(max_examples=200, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=6), st.sampled_from(["", "\x1b[1m", "\x1b[32m"]))
def test_ordinary_text_is_kept_whatever_its_colour(lines: list[str], colour: str) -> None:
    raw = "\n".join(f"{colour}{line}\x1b[0m" for line in lines) + "\n"
    assert clean(raw) == "\n".join(lines)
