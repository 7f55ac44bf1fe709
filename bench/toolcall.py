"""Time to parse tool calls out of an answer (the text protocol), benign and hostile.

``parse_tool_calls(text, tools)`` (scanning and converting the arguments) runs on generated
texts of 256 KB, 512 KB and 1 MB:

- benign: markdown prose with code fences, inline code, JSON snippets and a few calls;
- hostile: unbalanced ``TOOL_CALL: read(`` lines, deep nesting (a ``{"tool_call": …}`` object,
  a tag's arguments and the line form, each thousands deep), thousands of unterminated
  ``<tool_call`` tags, runs of quotes and backslashes (inside a tag and bare), and all of them
  mixed.

Each figure is the median of several runs, as a ratio to a baseline measured on the same text in
the same run (``len(text.split())``, a plain pass over it in C), and the time per KB at the three
sizes shows whether the cost is linear (a flat or falling µs/KB). Hostile texts stop being
searched when their step budget is spent (the result says ``truncated``), so a second table
runs the scanner alone with no budget at all: its µs/KB shows the scan itself is linear too.
Goal: ≤ 50 ms for 1 MB of each.

Run: .venv/bin/python bench/toolcall.py [--runs N] [--quick]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from chatcli import ToolSpec
from chatcli_provider_kit.textcalls._parse import (
    _Budget,
    _Scanner,
    format_tool_call,
    parse_tool_calls,
)

KB = 1024
SIZES = (256 * KB, 512 * KB, 1024 * KB)
GOAL_MS = 50.0

TOOLS = [
    ToolSpec(name="read", description="Read a file.", parameters={
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    ToolSpec(name="grep", description="Search.", parameters={
        "type": "object", "properties": {"pattern": {"type": "string"},
                                         "path": {"type": "string"}},
        "required": ["pattern", "path"]}),
]

_WORDS = [
    "the", "model", "reads", "a", "file", "and", "answers", "with", "a", "short", "plan", "then",
    "calls", "a", "tool", "to", "check", "the", "result", "before", "it", "writes", "the", "patch",
]


def _fill(unit: Callable[[random.Random], str], size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    while total < size:
        piece = unit(rng)
        parts.append(piece)
        total += len(piece)
    return "".join(parts)[:size]


def _paragraph(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(40, 120))]
    for _ in range(rng.randint(0, 3)):  # inline code, quotes, a JSON snippet, an apostrophe
        words.insert(rng.randrange(len(words)), rng.choice(
            ["`x > y`", '"quoted"', "it's", '{"a": 1}', "(see below)", "a <b> tag", "&amp;"]))
    return " ".join(words) + ".\n\n"


def benign(size: int) -> str:
    calls = [
        format_tool_call("read", {"path": "src/main.py"}),
        """<tool_call name="grep" args='{"pattern": "def (x)", "path": "."}'/>""",
        "TOOL_CALL: read(README.md)",
        '{"tool_call": "read", "args": {"path": "setup.cfg"}}',
    ]

    def unit(rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.08:
            lines = range(rng.randint(3, 12))
            code = "\n".join(f"    x{i} = call(a, b)  # it's {i}" for i in lines)
            return f"```python\ndef f():\n{code}\n```\n\n"
        if roll < 0.085:
            return f"Let me check.\n{rng.choice(calls)}\n\n"
        return _paragraph(rng)

    return _fill(unit, size)


HOSTILE: dict[str, Callable[[int], str]] = {
    "unbalanced TOOL_CALL: read( lines": lambda n: ("TOOL_CALL: read(\n" * (n // 17 + 1))[:n],
    "deep {\"tool_call\": …} object": lambda n: (
        '{"tool_call": "read", "args": ' + "[" * n)[:n],
    "deep nesting in a tag's args": lambda n: (
        "<tool_call name=\"read\" args='" + '{"a": ' * (n // 6 + 1))[:n],
    "deep nesting, TOOL_CALL: line": lambda n: ("TOOL_CALL: read(" + "[{(" * n)[:n],
    "unterminated <tool_call tags": lambda n: (
        '<tool_call name="read" args=\'{"path": "a"}\' \n' * (n // 42 + 1))[:n],
    "unterminated quotes in tags": lambda n: ('<tool_call name="read\n' * (n // 22 + 1))[:n],
    "quotes and backslashes in a tag": lambda n: (
        '<tool_call name="read" args="' + '\\"\\\\\'' * n)[:n],
    "runs of quotes and backslashes": lambda n: ('"' * 4096 + "\\" * 4096 + "'" * 4096) * (
        n // 12288 + 1),
}


def mixed(size: int) -> str:
    pieces = [make(16 * KB) for make in HOSTILE.values()]
    return _fill(lambda rng: rng.choice(pieces) + "\n", size)


def _median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def _row(label: str, make: Callable[[int], str], runs: int, sizes: tuple[int, ...],
         uncapped: bool) -> tuple[str, list[float], float, float, str]:
    per_kb: list[float] = []
    ms = base = 0.0
    note = ""
    for size in sizes:
        text = make(size)
        if uncapped:
            def parse(text: str = text) -> object:
                return _Scanner(text, limit=10**9, budget=_Budget(limit=None)).run()
        else:
            def parse(text: str = text) -> object:
                return parse_tool_calls(text, TOOLS)
        ms = _median_ms(parse, runs)
        base = _median_ms(lambda text=text: len(text.split()), runs)
        per_kb.append(ms * 1000 / (len(text) / KB))
        if not uncapped:
            found = parse_tool_calls(text, TOOLS)
            note = f"{len(found)} calls" + (", truncated" if found.truncated else "")
    return label, per_kb, ms, base, note


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="64 KB texts only (a smoke test)")
    args = parser.parse_args()
    sizes = (16 * KB, 32 * KB, 64 * KB) if args.quick else SIZES
    names = "/".join(f"{s // KB}K" for s in sizes)
    texts: dict[str, Callable[[int], str]] = {"benign prose with a few calls": benign,
                                              **HOSTILE, "all hostile texts mixed": mixed}
    for uncapped in (False, True):
        title = ("the scanner alone, no step budget (linearity)" if uncapped
                 else "parse_tool_calls as shipped")
        print(f"\n{title}")
        print(f"{'text':36} {'ms':>7} {'split ms':>8} {'ratio':>7}  µs/KB at {names:15} note")
        worst = 0.0
        for label, make in texts.items():
            label, per_kb, ms, base, note = _row(label, make, args.runs, sizes, uncapped)
            worst = max(worst, ms)
            kb = " / ".join(f"{x:.1f}" for x in per_kb)
            ratio = ms / base if base else float("inf")
            print(f"{label:36} {ms:7.1f} {base:8.2f} {ratio:6.1f}×  {kb:24} {note}")
        if not uncapped:
            verdict = "ok" if worst <= GOAL_MS or args.quick else "over the goal"
            print(f"worst at {sizes[-1] // KB} KB: {worst:.1f} ms (goal ≤ {GOAL_MS:.0f} ms: "
                  f"{verdict})")


if __name__ == "__main__":
    main()
