"""Speed of the offline provider: prompt and generation tokens per second with 1 and 2 threads,
and the wall time of the README's first command.

Runs the real ``local`` provider (SmolLM2-135M through llama.cpp, in a child process) in three
thread set-ups — 1 thread for everything, 2 for everything, and the default (1 generating, every
core reading the prompt) — each on a long prompt (about 700 tokens, a new one every run, so
llama.cpp's prompt cache never helps) and a short one whose answer is generated to
``--max-tokens``. Then it times ``chatcli -p "Say hello"`` as a new user runs it: the installed
chatcli with every plugin, in empty config and data folders, no key; and a review of an 8.8 KB
diff (``chatcli -p "review this" < diff``), which took 114 s when the issue was filed.

    .venv/bin/python bench/local_model.py [--runs 3] [--max-tokens 128] [--readme-runs 3]

Prints ratios and medians, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    ProviderConfig,
    StopEvent,
    TextDelta,
    UsageEvent,
)

SHORT = "Explain in a few paragraphs how a hash table works and when to use one."
SYSTEM = "You are chatcli, an AI assistant in a developer's terminal. Answer concisely in markdown."
#: About 700 tokens of prompt: a made-up changelog the model is asked to summarise.
LONG = "\n".join(
    f"- {n}: the {w} module now reads its settings once, caches the parsed result and reports "
    f"a bad value with the file and line it came from (issue {100 + n})."
    for n, w in enumerate(["config", "session", "engine", "render", "plugin", "keys", "layers",
                           "memory", "skills", "context", "compaction", "sessions", "agent",
                           "coder", "mcp", "personas", "fallback", "cost", "repl", "toolcall"]))
SETUPS = [("1 thread", {"threads": 1, "batch_threads": 1}),
          ("2 threads", {"threads": 2, "batch_threads": 2}),
          ("default", {})]


def stream(provider, system: str, prompt: str, max_tokens: int) -> dict[str, float]:
    """One answer: time to first token, generation speed, token counts."""
    request = ChatRequest(
        model="smollm2-135m", system=[PromptSection(name="chatcli", text=system)],
        messages=[Message.user(prompt)], max_tokens=max_tokens, options={"seed": 42})
    started = time.perf_counter()
    first = last = None
    usage = None
    for event in provider.stream(request):
        now = time.perf_counter()
        if isinstance(event, TextDelta):
            first = first or now
            last = now
        elif isinstance(event, UsageEvent):
            usage = event.usage
        elif isinstance(event, StopEvent):
            break
    if first is None or last is None or usage is None:
        raise SystemExit("the model produced no text")
    return {"ttft": first - started, "prompt": usage.input_tokens,
            "generated": usage.output_tokens,
            "gen_s": (usage.output_tokens - 1) / (last - first) if last > first else float("nan")}


def measure(options: dict[str, int], runs: int, max_tokens: int) -> dict[str, float]:
    """Load the model with ``options``; median prompt and generation speeds over ``runs``."""
    from chatcli_provider_local.plugin import make_local_provider
    from chatcli_provider_local.runtime import unload_all

    provider = make_local_provider(
        ProviderConfig(name="local", model="smollm2-135m", options=options))
    loaded = provider.load()
    try:
        prompt_speeds, gen_speeds = [], []
        for run in range(runs):
            # a new first line every run: nothing of the prompt is in llama.cpp's cache
            long = stream(provider, f"{SYSTEM} (run {time.time_ns()}-{run})",
                          f"Summarise this changelog in three lines:\n{LONG}", 1)
            prompt_speeds.append(long["prompt"] / long["ttft"])
            gen_speeds.append(stream(provider, SYSTEM, SHORT, max_tokens)["gen_s"])
        return {"prompt_tokens": long["prompt"], "prompt_s": statistics.median(prompt_speeds),
                "gen_s": statistics.median(gen_speeds), "load": loaded.load_seconds,
                "threads": loaded.options.threads, "batch": loaded.options.batch_threads}
    finally:
        unload_all()


def review_diff() -> str:
    """An 8.8 KB diff to review (the issue's case): the start of the engine, as added lines."""
    source = Path(__file__).resolve().parents[1] / "kernel/src/chatcli/_engine.py"
    lines = source.read_text().splitlines()[:400]
    body = "".join(f"+{line}\n" for line in lines)[:8600]
    return (f"diff --git a/engine.py b/engine.py\n--- /dev/null\n+++ b/engine.py\n"
            f"@@ -0,0 +1,{body.count(chr(10))} @@\n{body}")


def readme_command(runs: int, prompt: str = "Say hello", stdin: str = "") -> tuple[float, dict]:
    """Median wall time of ``chatcli -p PROMPT --json`` in fresh folders, and its result."""
    chatcli = Path(sys.executable).with_name("chatcli")
    times, result = [], {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as home:
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")}
            env |= {"CHATCLI_CONFIG_DIR": f"{home}/config", "CHATCLI_DATA_DIR": f"{home}/data",
                    "CHATCLI_CACHE_DIR": f"{home}/cache", "XDG_CONFIG_HOME": f"{home}/xdg",
                    "XDG_DATA_HOME": f"{home}/xdg", "XDG_CACHE_HOME": f"{home}/xdg"}
            started = time.perf_counter()
            done = subprocess.run([str(chatcli), "-p", prompt, "--json"], cwd=home, env=env,
                                  capture_output=True, text=True, timeout=600, input=stdin)
            times.append(time.perf_counter() - started)
            result = json.loads(done.stdout) if done.stdout.strip() else {
                "error": done.stderr.strip().splitlines()[-1:]}
            result["exit"] = done.returncode
    return statistics.median(times), result


def main() -> None:
    """Parse options, measure every thread set-up, then the README's first command."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--readme-runs", type=int, default=3)
    args = parser.parse_args()

    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; medians of "
          f"{args.runs} runs")
    figures = {}
    for label, options in SETUPS:
        figures[label] = got = measure(options, args.runs, args.max_tokens)
        print(f"{label:10s} (threads {got['threads']}, batch_threads {got['batch']}): "
              f"prompt {got['prompt_s']:6.1f} tokens/s ({got['prompt_tokens']:.0f} tokens), "
              f"generated {got['gen_s']:5.1f} tokens/s, load {got['load']:.2f} s")
    one, two = figures["1 thread"], figures["2 threads"]
    print(f"2 threads / 1 thread: prompt ×{two['prompt_s'] / one['prompt_s']:.2f}, "
          f"generation ×{two['gen_s'] / one['gen_s']:.2f}")
    wall, result = readme_command(args.readme_runs)
    usage = result.get("usage") or {}
    print(f'README\'s first command, chatcli -p "Say hello" (every plugin, fresh folders): '
          f"{wall:.2f} s median of {args.readme_runs}, exit {result.get('exit')}, "
          f"prompt {usage.get('input_tokens', '?')} tokens, "
          f"answer {usage.get('output_tokens', '?')} tokens: "
          f"{(result.get('text') or result.get('error') or '')!r:.80}")
    diff = review_diff()
    wall, result = readme_command(1, "review this", diff)
    usage = result.get("usage") or {}
    print(f'An {len(diff) / 1000:.1f} KB diff, chatcli -p "review this" < diff: {wall:.1f} s, '
          f"exit {result.get('exit')}, prompt {usage.get('input_tokens', '?')} tokens, answer "
          f"{usage.get('output_tokens', '?')} tokens, stop {result.get('stop_reason')}")


if __name__ == "__main__":
    sys.exit(main())
