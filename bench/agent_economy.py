"""What a 20-step agent run pays for its input, under each provider's prompt-caching rules.

A scripted ``/coder`` run of 20 model calls (19 steps with tool calls — tree, reads, searches,
tests, edits, git, exec — then the final answer) goes through the real command line
(``chatcli -p "/coder …"``) in a small git repository, once through the anthropic provider and
once through the openai provider, the model played by the local wire servers of
chatcli-testing. Every request body the servers receive is then billed, in characters (a
token is taken as 4 characters for the providers' size rules):

- **Anthropic**: the prefix ``tools → system → messages`` is cached at the blocks that carry
  ``cache_control`` (breakpoints). At each request the longest prefix ending at a block
  boundary that an earlier request cached (at one of its breakpoints; looking back at most
  20 blocks before each breakpoint, as the API does) is a cache *read* (0.1×); from there to
  the last breakpoint is a cache *write* (1.25× the input price, 5-minute entries); the rest is
  not cached (1×). Writes and the uncached rest are what is billed at full price (or more).
  A prefix shorter than 1,024 tokens is not cached.
- **OpenAI**: prompts of 1,024 tokens and more are cached automatically by exact prefix, in
  steps of 128 tokens: the longest common prefix with any earlier request, rounded down to
  1,024 + 128·k tokens, is read from the cache; the rest is full price. Tools come first
  (the service renders them with the system message), then the messages in order.

Figures: the characters billed at full price as a share of a *naive* resend (every request's
whole input at full price), goal ≤ 10 % on both; on Anthropic also weighted with the cache
writes (uncached + 1.25 × writes), goal ≤ 20 %, and the whole bill (+ 0.1 × reads). And a check:
the prefix of step N up to its newest breakpoint (OpenAI: up to where the step's volatile
reminder starts; the whole request when it has none) is byte-identical at the start of step
N+1 — otherwise step N+1 cannot read what step N cached.

Run: .venv/bin/python bench/agent_economy.py   (``--keep DIR`` keeps the bodies, ``--bodies DIR``
bills kept ones again)
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

GOAL_FULL = 0.10
GOAL_WEIGHTED = 0.20
CHARS_PER_TOKEN = 4
MIN_CACHE_TOKENS = 1024
OPENAI_STEP_TOKENS = 128
LOOKBACK_BLOCKS = 20
WRITE_PRICE, READ_PRICE = 1.25, 0.1
#: what OpenAI bills cached input at (50 % off on most models; newer ones take more off)
OPENAI_READ_PRICE = 0.5
#: what a step's volatile reminder starts with, when it travels after the history
REMINDER_MARK = "<system-reminder>"

CHATCLI = Path(sys.executable).parent / "chatcli"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
TASK = ("the discount tests fail: find out why, fix the pricing code, keep the report's totals "
        "consistent, and run the tests until they pass")


# ------------------------------------------------------------------------------ the project


def _module(name: str, functions: int) -> str:
    """A plausible module: a docstring and ``functions`` small documented functions."""
    lines = [f'"""The {name} part of the inventory: records, helpers and checks."""', "",
             "from __future__ import annotations", "", ""]
    for index in range(functions):
        lines += [f"def {name}_helper_{index}(values: list[float], factor: float = 1.0) -> float:",
                  f'    """Sum ``values`` scaled by ``factor`` ({name}, helper {index})."""',
                  "    total = 0.0",
                  "    for value in values:",
                  "        total += value * factor",
                  f"    return round(total, {index % 3 + 1})", "", ""]
    return "\n".join(lines)


PRICING = '''"""Prices: the unit price, discounts and tax of an order line."""

from __future__ import annotations

TAX_RATE = 0.2


def discounted(price: float, percent: float) -> float:
    """``price`` with ``percent`` off (0-100)."""
    if not 0 <= percent <= 100:
        raise ValueError(f"a discount is 0-100 %, not {percent}")
    return price * percent / 100


def with_tax(price: float) -> float:
    """``price`` with tax."""
    return round(price * (1 + TAX_RATE), 2)


def line_total(price: float, quantity: int, percent: float = 0.0) -> float:
    """What a line of ``quantity`` items costs, discount and tax included."""
    return with_tax(discounted(price, percent) * quantity)
'''

TESTS = '''from inventory.pricing import discounted, line_total, with_tax


def test_no_discount():
    assert discounted(10.0, 0) == 10.0


def test_discount():
    assert discounted(80.0, 25) == 60.0


def test_line_total():
    assert line_total(10.0, 3, 10) == 32.4


def test_tax():
    assert with_tax(10.0) == 12.0
'''

README = """# inventory

A small inventory and pricing library: stock records (`inventory/models.py`), the store that
keeps them (`inventory/store.py`), prices with discounts and tax (`inventory/pricing.py`) and
reports (`inventory/report.py`). Run the tests with `pytest -q tests`.
"""

AGENTS = """# Working on inventory

- Python 3.11, no dependencies beyond the standard library; tests with pytest in `tests/`.
- Prices are floats rounded to cents only at the end (`with_tax`); never round in between.
- Keep functions small and documented; every public function has a docstring and a test.
- Run `pytest -q tests` before you say you are done, and report what it printed.
""" + "\n".join(f"- Convention {i}: names say what a value is (`unit_price`, not `p{i}`); "
                "errors name the bad value and the range it should be in." for i in range(12))


def make_project(root: Path) -> None:
    """The repository the run works in (committed, so ``git`` has something to show)."""
    files = {"README.md": README, "AGENTS.md": AGENTS, "inventory/__init__.py": "",
             "inventory/pricing.py": PRICING, "tests/test_pricing.py": TESTS,
             "inventory/models.py": _module("models", 8),
             "inventory/store.py": _module("store", 10),
             "inventory/report.py": _module("report", 7), "inventory/io.py": _module("io", 6)}
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "inventory"], cwd=root, check=True)


def script() -> list[Any]:
    """The 20 model calls: 19 steps of tool calls, then the final answer."""
    from chatcli_testing import Reply, ToolCall

    fix = {"path": "inventory/pricing.py", "old": "    return price * percent / 100",
           "new": "    return price * (100 - percent) / 100"}
    steps = [
        [ToolCall("tree", {"path": "."})],
        [ToolCall("read", {"path": "README.md"})],
        [ToolCall("read", {"path": "inventory/pricing.py"})],
        [ToolCall("read", {"path": "tests/test_pricing.py"})],
        [ToolCall("test", {"command": PYTEST})],
        [ToolCall("search", {"pattern": "discounted", "path": "."})],
        [ToolCall("read", {"path": "inventory/models.py"})],
        [ToolCall("read", {"path": "inventory/store.py"})],
        [ToolCall("glob", {"pattern": "*.py"})],
        [ToolCall("edit", fix)],
        [ToolCall("test", {"command": PYTEST})],
        [ToolCall("read", {"path": "inventory/report.py"})],
        [ToolCall("search", {"pattern": "round\\(", "path": "inventory"})],
        [ToolCall("read", {"path": "inventory/io.py"})],
        [ToolCall("test", {"command": PYTEST})],
        [ToolCall("git", {"action": "diff"})],
        [ToolCall("read", {"path": "inventory/pricing.py"})],
        [ToolCall("exec", {"command": "wc -l inventory/*.py"})],
        [ToolCall("test", {"command": PYTEST})],
    ]
    thoughts = ["Let me look at the layout first.", "Reading the pricing code and its tests.",
                "Running the tests to see the failure.", "The discount takes the wrong part.",
                "Checking the other modules for the same mistake.", "Now the fix."]
    replies = [Reply(text=thoughts[i % len(thoughts)], tool_calls=calls)
               for i, calls in enumerate(steps)]
    return [*replies, Reply(text="Fixed `discounted`: it returned the discount instead of the "
                                 "discounted price. All 4 tests pass now.")]


# ------------------------------------------------------------------------------ running it


def run(kind: str, base: Path) -> list[bytes]:
    """The request bodies of one scripted run through provider ``kind``."""
    from chatcli_testing import AnthropicServer, OpenAIServer

    home = base / kind
    repo = home / "repo"
    repo.mkdir(parents=True)
    make_project(repo)
    for folder in ("config", "data", "cache"):
        (home / folder).mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_")) and not k.endswith("_KEY")}
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"),
               CHATCLI_PLUGINS=f"{kind},context,sessions,checkpoints,coder,agent,permissions,print")
    server = AnthropicServer() if kind == "anthropic" else OpenAIServer()
    with server:
        server.script(*script())
        variable = "ANTHROPIC" if kind == "anthropic" else "OPENAI"
        env[f"{variable}_API_KEY"] = "bench"
        env[f"{variable}_BASE_URL"] = server.url
        done = subprocess.run(
            [str(CHATCLI), "--provider", kind, "--model", "bench-model",
             "--permission-mode", "accept-edits", "--allow", "test(*)", "--allow", "exec(wc:*)",
             "-p", f"/coder {TASK}"],
            cwd=repo, env=env, capture_output=True, text=True, timeout=600,
            stdin=subprocess.DEVNULL)
        bodies = [r.body for r in server.requests if r.path.endswith(("/messages", "/completions"))]
    if done.returncode != 0 or len(bodies) != 20:
        raise SystemExit(f"{kind}: the run failed (exit {done.returncode}, {len(bodies)} "
                         f"requests):\n{done.stderr[-2000:]}")
    return bodies


# ------------------------------------------------------------------------------ billing


@dataclass
class Bill:
    naive: int = 0
    full: int = 0
    written: int = 0
    read: int = 0
    #: per step: (step, whether its newest stable prefix starts step+1, the prefix's length)
    prefix_checks: list[tuple[int, bool, int]] = field(default_factory=list)

    def share(self, value: float) -> float:
        return value / self.naive if self.naive else 0.0

    @property
    def weighted(self) -> float:
        """The uncached input at 1×, the cache writes at 1.25×."""
        return self.share(self.full - self.written + WRITE_PRICE * self.written)

    @property
    def whole(self) -> float:
        return self.share(self.full - self.written + WRITE_PRICE * self.written
                          + READ_PRICE * self.read)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def anthropic_blocks(body: dict[str, Any]) -> tuple[list[str], list[int]]:
    """The request's prefix as text blocks in the API's order (tools, system, each message's
    blocks; a message's role opens its first block), and the indexes of the breakpoints. The
    ``cache_control`` marks themselves are left out: they are not part of the cached text."""
    blocks: list[str] = []
    marks: list[int] = []

    def add(prefix: str, block: Any) -> None:
        if isinstance(block, dict) and "cache_control" in block:
            marks.append(len(blocks))
            block = {k: v for k, v in block.items() if k != "cache_control"}
        blocks.append(prefix + _dump(block))

    for tool in body.get("tools") or []:
        add("tool:", tool)
    system = body.get("system")
    for block in [{"type": "text", "text": system}] if isinstance(system, str) else system or []:
        add("system:", block)
    for message in body.get("messages", []):
        content = message["content"]
        content = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for index, block in enumerate(content):
            add(f"{message['role']}:" if index == 0 else "", block)
    return blocks, marks


def bill_anthropic(bodies: list[bytes]) -> Bill:
    bill = Bill()
    cache: set[str] = set()
    least = MIN_CACHE_TOKENS * CHARS_PER_TOKEN
    steps = []
    for raw in bodies:
        blocks, marks = anthropic_blocks(json.loads(raw))
        ends, hashes, size, digest = [], [], 0, hashlib.sha256()
        for block in blocks:
            size += len(block)
            digest.update(block.encode())
            ends.append(size)
            hashes.append(digest.copy().hexdigest())
        total = size
        read = 0
        for mark in marks:  # the longest cached prefix a breakpoint (or its lookback) finds
            for index in range(mark, max(-1, mark - LOOKBACK_BLOCKS - 1), -1):
                if hashes[index] in cache:
                    read = max(read, ends[index])
                    break
        last = ends[marks[-1]] if marks else 0
        written = last - read if marks and last >= least and last > read else 0
        for mark in marks:
            if ends[mark] >= least:
                cache.add(hashes[mark])
        bill.naive += total
        bill.read += read
        bill.written += written
        bill.full += total - read  # written (1.25×) or not cached (1×): full price or more
        steps.append((blocks, marks, ends))
    for step, (before, after) in enumerate(itertools.pairwise(steps), start=1):
        blocks, marks, ends = before
        end = marks[-1] + 1 if marks else len(blocks)
        prefix = "".join(blocks[:end])
        bill.prefix_checks.append((step, "".join(after[0]).startswith(prefix), len(prefix)))
    return bill


def openai_text(body: dict[str, Any]) -> str:
    """The prompt as the service caches it: tools first, then each message, in order."""
    parts = [_dump(tool) for tool in body.get("tools") or []]
    parts += [_dump(message) for message in body.get("messages", [])]
    return "\n".join(parts)


def _common(a: str, b: str) -> int:
    size = min(len(a), len(b))
    low, high = 0, size
    while low < high:  # the longest common prefix, by bisection on slices
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def bill_openai(bodies: list[bytes]) -> Bill:
    bill = Bill()
    least = MIN_CACHE_TOKENS * CHARS_PER_TOKEN
    step_chars = OPENAI_STEP_TOKENS * CHARS_PER_TOKEN
    seen: list[str] = []
    for raw in bodies:
        text = openai_text(json.loads(raw))
        common = max((_common(text, earlier) for earlier in seen), default=0)
        cached = 0 if common < least else least + (common - least) // step_chars * step_chars
        bill.naive += len(text)
        bill.read += cached
        bill.full += len(text) - cached
        seen.append(text)
    for step, (before, after) in enumerate(itertools.pairwise(seen), start=1):
        # the stable part ends where the reminder's own message begins, or where the reminder
        # begins in the text of the person's message; with no reminder, it is the whole prompt
        alone = before.rfind('{"content":"' + REMINDER_MARK)
        inside = before.rfind("\\n\\n" + REMINDER_MARK)
        end = alone if alone >= 0 else inside if inside >= 0 else len(before)
        bill.prefix_checks.append((step, after.startswith(before[:end]), end))
    return bill


# ------------------------------------------------------------------------------ report


def report(kind: str, bill: Bill) -> bool:
    ok = bill.share(bill.full) <= GOAL_FULL
    print(f"{kind}: naive resend {bill.naive:,} characters over 20 requests")
    label = "full price¹" if kind == "anthropic" else "full price "
    print(f"  {label}     {bill.full:>10,}  {bill.share(bill.full):6.1%}  "
          f"(goal ≤ {GOAL_FULL:.0%}) {'ok' if ok else 'MISSED'}")
    if kind == "anthropic":
        weighted_ok = bill.weighted <= GOAL_WEIGHTED
        ok = ok and weighted_ok
        print(f"  cache writes    {bill.written:>10,}  {bill.share(bill.written):6.1%}")
        print(f"  cache reads     {bill.read:>10,}  {bill.share(bill.read):6.1%}")
        print(f"  weighted (writes at {WRITE_PRICE}×)         {bill.weighted:6.1%}  "
              f"(goal ≤ {GOAL_WEIGHTED:.0%}) {'ok' if weighted_ok else 'MISSED'}")
        print(f"  whole bill (+ {READ_PRICE}× reads)          {bill.whole:6.1%}")
        print("  ¹ not read from the cache: cache writes (1.25×) and uncached input (1×)")
    else:
        print(f"  cached prefix   {bill.read:>10,}  {bill.share(bill.read):6.1%}")
        print(f"  whole bill (cached input at {OPENAI_READ_PRICE}×)    "
              f"{bill.share(bill.full + OPENAI_READ_PRICE * bill.read):6.1%}")
    held = [step for step, same, _ in bill.prefix_checks if same]
    broken = [step for step, same, _ in bill.prefix_checks if not same]
    print(f"  step N's prefix to its newest breakpoint starts step N+1: {len(held)} of "
          f"{len(bill.prefix_checks)}" + (f" (not at steps {broken})" if broken else ""))
    return ok and not broken


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="write the request bodies to this folder")
    parser.add_argument("--bodies", type=Path,
                        help="bill the bodies a --keep run wrote there instead of running")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="chatcli-agent-economy-"))
    good = True
    try:
        for kind, bill_of in (("anthropic", bill_anthropic), ("openai", bill_openai)):
            bodies = (run(kind, base) if args.bodies is None else
                      [p.read_bytes() for p in sorted((args.bodies / kind).glob("*.json"))])
            if args.keep:
                (args.keep / kind).mkdir(parents=True, exist_ok=True)
                for index, body in enumerate(bodies, start=1):
                    (args.keep / kind / f"{index:02d}.json").write_bytes(body)
            good = report(kind, bill_of(bodies)) and good
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
