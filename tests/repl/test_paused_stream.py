"""A streamed answer that pauses mid-way shows everything that arrived before the pause (the
renderer's timer draws text its pacing held back), in a real terminal (tmux)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from chatcli_testing import Reply

from .terminal import Terminal

pytestmark = pytest.mark.terminal

#: 140 characters in 35 chunks that arrive at once, then the model pauses.
BEFORE = ("First line of an answer that keeps coming for a while, and then the model stops "
          "to think about what it says next, and the end is a big ZEBRA")
AFTER = " and after the pause, the rest arrives: GIRAFFE."


@pytest.mark.parametrize("markdown", ["true", "false"])
def test_text_before_a_pause_is_drawn_during_the_pause(start_chat: Callable[..., Terminal],
                                                       openai_server, markdown: str) -> None:
    assert len(BEFORE) == 140
    openai_server.script(Reply(text=BEFORE + AFTER, chunk_size=4, pauses={35: 6}))
    term = start_chat("--provider", "openai", OPENAI_API_KEY="test",
                      OPENAI_BASE_URL=openai_server.url, CHATCLI_MARKDOWN=markdown)
    term.type("go")
    sent = time.monotonic()
    term.wait_for("ZEBRA", timeout=4)  # during the 6 s pause, not after it
    assert time.monotonic() - sent < 5.5
    assert "GIRAFFE" not in term.screen()
    term.wait_for("GIRAFFE", timeout=15)
