"""Speed of the offline provider: model load, time to first token, generated tokens per second.

Runs the real ``local`` provider (SmolLM2-135M through llama.cpp, in a child process) on a fixed
prompt a few times and prints what a user waits for. The first run processes the whole prompt;
later runs find it in llama.cpp's prompt cache, as the turns of a conversation do.

    .venv/bin/python bench/local_model.py [--runs 3] [--max-tokens 128] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from chatcli import (
    ChatRequest,
    Message,
    PromptSection,
    ProviderConfig,
    StopEvent,
    TextDelta,
    UsageEvent,
)

PROMPT = "Explain in a few paragraphs how a hash table works and when to use one."
SYSTEM = "You are chatcli, an AI assistant in a developer's terminal. Answer concisely in markdown."


def one_run(provider, max_tokens: int) -> dict[str, float]:
    """Stream one answer; returns time to first token, generation speed and token counts."""
    request = ChatRequest(
        model="smollm2-135m",
        system=[PromptSection(name="chatcli", text=SYSTEM)],
        messages=[Message.user(PROMPT)],
        max_tokens=max_tokens,
        options={"seed": 42},
    )
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
    generated = usage.output_tokens
    return {
        "ttft": first - started,
        "tok_s": (generated - 1) / (last - first) if last > first else float("nan"),
        "generated": generated,
        "prompt": usage.input_tokens,
        "total": last - started,
    }


def main() -> None:
    """Parse options, load the model, run the prompt and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()

    started = time.perf_counter()
    from chatcli_provider_local.plugin import make_local_provider

    provider = make_local_provider(
        ProviderConfig(name="local", model="smollm2-135m", options={"threads": args.threads})
    )
    found = time.perf_counter()
    loaded = provider.load()
    ready = time.perf_counter()

    print(f"model        {provider.path.name} ({provider.path.stat().st_size / 1e6:.0f} MB)")
    print(f"threads      {args.threads}, context {loaded.options.context_size} tokens")
    print(f"find + check {1000 * (found - started):7.0f} ms  (plugin import, GGUF header)")
    print(f"load         {1000 * (ready - found):7.0f} ms  (the child process starts, imports "
          "xllamacpp, llama.cpp reads the model)")

    runs = [one_run(provider, args.max_tokens) for _ in range(args.runs)]
    for number, run in enumerate(runs, 1):
        print(
            f"run {number}: first token {1000 * run['ttft']:6.0f} ms, "
            f"{run['tok_s']:5.1f} tokens/s generated "
            f"({run['generated']:.0f} tokens, prompt {run['prompt']:.0f} tokens, "
            f"{run['total']:.2f} s)"
        )
    later = runs[1:] or runs
    print(
        f"summary: load {ready - found:.2f} s; first token {1000 * runs[0]['ttft']:.0f} ms "
        f"cold, {1000 * statistics.median(r['ttft'] for r in later):.0f} ms with the prompt "
        f"cached; {statistics.median(r['tok_s'] for r in runs):.1f} tokens/s generated (median)"
    )


if __name__ == "__main__":
    sys.exit(main())
