"""What the Claude Code and Codex providers cost chatcli: prompt characters sent per turn
(resuming the CLI's own session against sending a transcript), and the time one turn adds on
top of running the CLI itself (a fake CLI printing a real event stream, so the figures are
chatcli's share only).

    python bench/cli_providers.py [--turns 1,10,50] [--runs 15]

Figures are printed as ratios against a baseline measured in the same run; nothing asserts on
them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FAKE = r'''
import json, sys
sys.stdin.read()
session = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
text = "word " * 300
lines = [{"type": "system", "subtype": "init", "session_id": session, "model": "m",
          "cwd": "/w", "tools": ["Bash", "Read"]}]
for i in range(0, len(text), 12):
    lines.append({"type": "stream_event", "session_id": session, "parent_tool_use_id": None,
                  "event": {"type": "content_block_delta", "index": 0,
                            "delta": {"type": "text_delta", "text": text[i:i + 12]}}})
lines.append({"type": "result", "subtype": "success", "is_error": False, "result": text,
              "session_id": session, "usage": {"input_tokens": 10, "output_tokens": 300}})
sys.stdout.write("".join(json.dumps(line) + "\n" for line in lines))
'''


def prompt_sizes(turns: list[int]) -> list[tuple[int, int, int]]:
    """(turn, characters sent when resumed, characters of the transcript) at each turn."""
    from chatcli import ChatRequest, Message
    from chatcli_provider_cli.conversation import SessionStore, plan_prompt

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        store = SessionStore(Path(folder) / "sessions.json", "claude-code")
        history: list[Message] = []
        for turn in range(1, max(turns) + 1):
            history.append(Message.user(f"question {turn}: " + "please look at this " * 10))
            request = ChatRequest(model="m", messages=list(history))
            resumed = plan_prompt(request, store, cwd=folder)
            transcript = plan_prompt(request, None, cwd=folder)
            if turn in turns:
                rows.append((turn, len(resumed.prompt), len(transcript.prompt)))
            answer = Message.assistant(f"answer {turn}: " + "here is what I found " * 30)
            store.record(request.messages, "session", answer.text, folder)
            history.append(answer)
    return rows


def turn_times(runs: int) -> tuple[float, float]:
    """Median seconds of one turn through the provider, and of running the fake directly."""
    from chatcli import ChatRequest, Message, ProviderConfig
    from chatcli_provider_cli import plugin

    with tempfile.TemporaryDirectory() as folder:
        fake = Path(folder) / "claude"
        fake.write_text(f"#!{sys.executable}\n{FAKE}")
        fake.chmod(0o755)
        os.environ["CHATCLI_DATA_DIR"] = folder
        provider = plugin.make_claude(ProviderConfig(
            name="claude-code", model="default", options={"command": str(fake),
                                                          "resume": False}))
        direct, through = [], []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([str(fake)], input="hi", capture_output=True, text=True, check=True)
            direct.append(time.perf_counter() - started)
            started = time.perf_counter()
            for _event in provider.stream(ChatRequest(model="m",
                                                      messages=[Message.user("hi")])):
                pass
            through.append(time.perf_counter() - started)
    return statistics.median(through), statistics.median(direct)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", default="1,10,50")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    turns = [int(t) for t in args.turns.split(",")]

    print("prompt characters sent per turn (claude-code, answers of ~630 characters)")
    print(f"{'turn':>6} {'resumed':>9} {'transcript':>11} {'ratio':>7}")
    for turn, resumed, transcript in prompt_sizes(turns):
        print(f"{turn:>6} {resumed:>9,} {transcript:>11,} {transcript / resumed:>6.1f}x")

    through, direct = turn_times(args.runs)
    print(f"\none turn: through the provider {through * 1000:.1f} ms, the CLI alone "
          f"{direct * 1000:.1f} ms: {through / direct:.2f}x "
          f"(chatcli's share {max(0.0, through - direct) * 1000:.1f} ms, median of {args.runs})")


if __name__ == "__main__":
    main()
