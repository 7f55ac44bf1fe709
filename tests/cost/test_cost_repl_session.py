"""The chat as people use it, in a real terminal: turns that pass the compaction threshold (a
4,000-token window) while memory extracts after each turn — then ``/cost`` counts exactly the
requests the OpenAI wire server received, with a line per purpose."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply
from cost_support import CHATCLI, Terminal, process_env, row

pytest.importorskip("chatcli_memory")
pytest.importorskip("chatcli_compaction")
pytest.importorskip("chatcli_repl")

CONFIG = """\
[cost.prices."openai/gpt-test"]
input = 3.0
output = 15.0

[memory]
min_messages = 2
cooldown = 0
"""

#: how every extraction request's system prompt begins (chatcli_memory.extraction)
EXTRACTION_MARK = "You maintain the long-term memory of a coding assistant."


def _kind(body: dict[str, Any]) -> str:
    system = next((m["content"] for m in body.get("messages", []) if m["role"] == "system"), "")
    if system.startswith(EXTRACTION_MARK):
        return "memory"
    return "chat" if system.startswith("You are chatcli") else "compaction"


def _answer_by_kind(server: Any, counter: list[int]) -> None:
    """The server answers each request by what it is, whatever order they come in."""
    original = server.answer_chat

    def answer(exchange: Any, request: Any, stream: bool) -> None:
        kind = _kind(request.json or {})
        if kind == "memory":
            reply = Reply(text="{}", usage={"input_tokens": 500, "output_tokens": 5})
        elif kind == "compaction":
            reply = Reply(text="they talked about the build", usage={"input_tokens": 2000,
                                                                     "output_tokens": 20})
        else:
            counter[0] += 1
            reply = Reply(text=f"answer {counter[0]}: " + "the build runs make then tests. " * 80,
                          usage={"output_tokens": 600})  # (no input: the estimate stays)
        server.script(reply)
        original(exchange, request, stream)

    server.answer_chat = answer


def _settled(server: Any, quiet: float = 1.5, timeout: float = 30.0) -> None:
    """Until no request has come for ``quiet`` seconds (a background extraction finished)."""
    deadline = time.monotonic() + timeout
    seen, since = len(server.requests), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        if len(server.requests) != seen:
            seen, since = len(server.requests), time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise AssertionError("the requests never settled")


@pytest.mark.terminal
def test_a_chat_with_compaction_and_extraction_counts_every_request(home: Path,
                                                                    openai_server: Any) -> None:
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed: the chat is driven in a real terminal")
    (home / "config" / "config.toml").write_text(CONFIG)
    answered = [0]
    _answer_by_kind(openai_server, answered)
    env = process_env(home, TERM="xterm-256color", HOME=str(home),
                      OPENAI_API_KEY="sk-cost-test", OPENAI_BASE_URL=openai_server.url,
                      CHATCLI_PLUGINS="openai,repl,compaction,memory,cost",
                      CHATCLI_CONTEXT_WINDOW="4000", CHATCLI_COMPACT_KEEP_RECENT="2")
    (home / "work").mkdir(exist_ok=True)
    terminal = Terminal(f"{CHATCLI} --provider openai --model gpt-test", env, home / "work")
    try:
        terminal.wait_for("›")
        for number in range(1, 7):
            terminal.type(f"question {number} about the build")
            terminal.wait_for(f"answer {number}:")
            _settled(openai_server)
        terminal.type("/cost")
        screen = terminal.wait_for("cache TTL:")
    finally:
        terminal.close()
    kinds = [_kind(r.json) for r in openai_server.requests if r.json]
    assert kinds.count("chat") == 6
    assert kinds.count("compaction") >= 1, kinds  # the threshold fired
    assert kinds.count("memory") >= 1, kinds
    lines = screen.splitlines()
    calls = int(row(lines, "openai/gpt-test")[0])
    print(f"requests seen by the server: {len(kinds)} ({kinds}); calls in /cost: {calls}")
    assert calls == len(kinds)
    purposes = {cells[0]: int(cells[1]) for cells in (line.split() for line in lines)
                if len(cells) > 2 and cells[0] in ("chat", "compaction", "memory")}
    assert purposes == {kind: kinds.count(kind) for kind in set(kinds)}
