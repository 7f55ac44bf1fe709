"""Stopping an answer that loops: the guard's two rules (a repeating tail, a repeated line), as
properties; the provider stopping llama.cpp and ending with ``StopReason.REPETITION`` against a
deterministic fake model process; and the real model caught in a loop it falls into."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    ProviderConfig,
    StopEvent,
    StopReason,
    TextDelta,
    UsageEvent,
)
from chatcli_provider_local.plugin import make_local_provider
from chatcli_provider_local.repetition import (
    LINE_REPEATS,
    MIN_SPAN,
    RepetitionGuard,
    repeating_tail,
)
from chatcli_provider_local.runtime import LoadedModel, RuntimeOptions
from hypothesis import example, given
from hypothesis import strategies as st

LOOP = "I'm just a little chatbot. "

ANSWER = """A hash table stores values under keys. It hashes each key to pick a bucket, so a lookup
reads one bucket instead of the whole table.

| operation | average | worst |
| --- | --- | --- |
| lookup | O(1) | O(n) |
| insert | O(1) | O(n) |

```python
table = {}
table["a"] = 1
assert table["a"] == 1
assert table["a"] == 1
assert table["a"] == 1
assert table["a"] == 1
```

- Use one when you look things up by key far more often than you scan them in order.
- Use a sorted structure instead when you need ranges or order.
----------------------------------------
"""


def fed(text: str, size: int = 3) -> RepetitionGuard:
    guard = RepetitionGuard()
    for start in range(0, len(text), size):
        if guard.feed(text[start:start + size]):
            break
    return guard


# ---------------------------------------------------------------------------- the rules


def test_a_sentence_said_again_and_again_is_a_loop():
    guard = fed(LOOP * 20)
    assert guard.reason == "a repeating tail"
    assert repeating_tail(LOOP * 8) == len(LOOP)


def test_the_same_line_under_new_numbers_is_a_loop():
    lines = "".join(f"{n}. I am designed to help you with code.\n" for n in range(1, 10))
    guard = fed(lines)
    assert guard.reason == "a repeated line"


def test_an_ordinary_answer_is_not_a_loop():
    assert fed(ANSWER).reason is None
    assert fed(ANSWER, size=1).reason is None


def test_short_repetition_is_not_a_loop():
    assert fed(LOOP * 3).reason is None  # 81 characters: fewer than MIN_SPAN
    assert fed("-" * (MIN_SPAN - 1)).reason is None


unit = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=4,
               max_size=120)


@given(unit=unit, chunk=st.integers(1, 9), prefix=st.text(max_size=50))
@example(unit=LOOP, chunk=1, prefix="Sure! ")
def test_any_piece_repeated_far_enough_is_caught(unit, chunk, prefix):
    copies = max(3, -(-MIN_SPAN // len(unit))) + 1
    assert fed(prefix + unit * copies, chunk).reason is not None


words = st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9), unique=True,
                 max_size=300)


@given(words=words, breaks=st.integers(1, 12), chunk=st.integers(1, 9))
def test_text_that_never_repeats_a_word_is_never_a_loop(words, breaks, chunk):
    text = "".join(f"{w}\n" if i % breaks == breaks - 1 else f"{w} " for i, w in
                   enumerate(words))
    assert fed(text, chunk).reason is None


@given(line=st.text("abcdefghij ,.", min_size=12, max_size=60).filter(
    lambda s: len(" ".join(s.split())) >= 12 and repeating_tail(s * 3) is None))
def test_a_line_may_come_back_three_times_but_not_four(line):
    text = "".join(f"{line}\nSomething else number {n}.\n" for n in range(LINE_REPEATS))
    assert fed(text).reason is None
    assert fed(text + line + "\n").reason == "a repeated line"


# ---------------------------------------------------------------------------- the provider


class LoopingModel:
    """Stands for the model's process: streams ``LOOP`` word by word, as llama.cpp's chunks,
    until told to stop (``callback`` returns True) or ``limit`` pieces were sent. Each piece
    waits until the reader has taken the one before (:meth:`taken`), as a model that generates
    slower than chatcli reads does."""

    alive = True

    def __init__(self, limit: int = 400) -> None:
        self.limit = limit
        self.sent = 0
        self.stopped_at: int | None = None
        self._read = threading.Semaphore(0)

    def taken(self) -> None:
        self._read.release()

    def handle_chat_completions(self, body: dict[str, Any], callback) -> None:
        words = LOOP.split()
        for n in range(self.limit):
            if n and not self._read.acquire(timeout=10):
                raise AssertionError("the reader stopped reading")
            self.sent += 1
            chunk = {"choices": [{"index": 0, "delta": {"content": words[n % 5] + " "}}]}
            if callback(chunk):
                self.stopped_at = self.sent
                return
        callback({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]})
        callback({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": self.limit}})


def provider_with(model: LoopingModel, **options: Any):
    provider = make_local_provider(ProviderConfig(name="local", model="smollm2-135m",
                                                  options=options))
    provider._loaded = LoadedModel(Path("fake.gguf"), model, RuntimeOptions(), 0.0)
    return provider


REQUEST = ChatRequest(model="smollm2-135m", messages=[Message.user("Who are you?")])


def read(provider, model: LoopingModel) -> list[Any]:
    events = []
    for event in provider.stream(REQUEST):
        events.append(event)
        if isinstance(event, TextDelta):
            model.taken()
    return events


def test_a_looping_answer_is_stopped_with_its_reason():
    model = LoopingModel()
    events = read(provider_with(model), model)
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert isinstance(events[-1], StopEvent)
    assert events[-1].reason == StopReason.REPETITION
    pieces = sum(isinstance(e, TextDelta) for e in events)
    assert model.stopped_at == pieces + 1  # told to stop at the piece after the loop was seen
    assert 3 <= text.count("chatbot") <= 10
    usage = [e.usage for e in events if isinstance(e, UsageEvent)]
    assert usage[-1].output_tokens == pieces  # a piece a token


def test_the_guard_can_be_turned_off():
    model = LoopingModel(limit=120)
    events = read(provider_with(model, stop_on_repetition=False), model)
    assert events[-1].reason == StopReason.MAX_TOKENS
    assert model.stopped_at is None and model.sent == 120


@pytest.mark.slow
def test_the_real_model_is_stopped_when_it_loops(local_provider):
    # Greedy decoding makes SmolLM2 repeat "I'm designed to be able to provide answers that are
    # easy to understand and to the point." until max_tokens.
    request = ChatRequest(
        model="smollm2-135m", temperature=0.0, max_tokens=400, options={"seed": 1},
        system=[PromptSection(name="chatcli", text="You are chatcli, an AI assistant in a "
                              "developer's terminal. Answer concisely in markdown.")],
        messages=[Message.user("Tell me about yourself in detail.")])
    events = list(local_provider.stream(request))
    assert events[-1].reason == StopReason.REPETITION
    usage = [e.usage for e in events if isinstance(e, UsageEvent)][-1]
    assert 0 < usage.output_tokens < 300
    assert usage.input_tokens > 20  # llama.cpp's timings tell what a stopped answer read
