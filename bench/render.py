"""CPU cost of streaming a markdown answer through chatcli's renderer, vs rendering it once.

Streams generated 1,000 / 4,000 / 8,000-token answers (headings, paragraphs, lists, code fences;
about 4 characters per token) in chunks of 3 tokens through :class:`chatcli_render.MarkdownStream`
into a terminal Console writing to a StringIO (width 100), and prints the CPU time
(``time.process_time``) as a ratio to printing ``Markdown(final_text)`` once.

The live preview of the growing block is refreshed at most 10 times a second; the clock is
simulated at ``RATE`` tokens per second (what a fast model streams), so the refresh count is
the one a real stream would see; the "every" column refreshes on every chunk (the worst case).

A second table streams answers that are one long code block: the growing block must not be
parsed again on every line (the cost per token stays flat), and its previews stay under a tenth
of the stream's duration.

Run: .venv/bin/python bench/render.py
"""

from __future__ import annotations

import io
import random
import time

from chatcli_render import MarkdownStream
from rich.console import Console
from rich.markdown import Markdown

RATE = 80.0  # simulated tokens per second for the paced column

_WORD_TEXT = (
    "the a model token stream render block terminal answer python function value list code "
    "cache linear cost chunk markdown heading paragraph quickly because returns"
)
WORDS = _WORD_TEXT.split()


def generate(tokens: int, seed: int = 1) -> str:
    """A markdown answer of about ``tokens`` tokens (4 characters each)."""
    rng = random.Random(seed)
    parts: list[str] = []
    size = 0
    section = 0
    while size < tokens * 4:
        section += 1
        kind = section % 4
        if kind == 1:
            block = f"## Section {section}: {' '.join(rng.choices(WORDS, k=4))}"
        elif kind == 2:
            sentences = [
                " ".join(rng.choices(WORDS, k=rng.randint(8, 16))).capitalize() + "."
                for _ in range(rng.randint(2, 5))
            ]
            block = " ".join(sentences).replace(" cost ", " **cost** ")
            block = block.replace(" code ", " `code` ")
        elif kind == 3:
            block = "\n".join(
                f"- {' '.join(rng.choices(WORDS, k=rng.randint(3, 9)))}"
                for _ in range(rng.randint(3, 6))
            )
        else:
            body = "\n".join(
                f"    value_{i} = compute({i}, '{rng.choice(WORDS)}')  # {rng.choice(WORDS)}"
                for i in range(rng.randint(4, 12))
            )
            block = f"```python\ndef step_{section}(x):\n{body}\n    return x\n```"
        parts.append(block)
        size += len(block) + 2
    return "\n\n".join(parts) + "\n"


def generate_one_code_block(tokens: int) -> str:
    """An answer that is mostly one fenced code block of about ``tokens`` tokens (a whole file):
    the block keeps growing until the end, the case where re-parsing it per line is quadratic."""
    lines: list[str] = []
    size = 0
    while size < tokens * 4:
        line = f"    value_{len(lines)} = compute({len(lines)}, 'word')  # step {len(lines)}"
        lines.append(line)
        size += len(line) + 1
    return "Here is the file:\n\n```python\ndef f(x):\n" + "\n".join(lines) + (
        "\n    return x\n```\n\nDone.\n")


def console() -> Console:
    """A colour terminal console writing to memory."""
    return Console(file=io.StringIO(), force_terminal=True, width=100, height=30,
                   color_system="truecolor")


def render_once(text: str) -> float:
    """CPU seconds to print the final text once."""
    start = time.process_time()
    console().print(Markdown(text))
    return time.process_time() - start


def stream(text: str, mode: str, chunk_tokens: int = 3) -> float:
    """CPU seconds to stream ``text`` chunk by chunk through MarkdownStream.

    ``mode``: "fed" (chunks as fast as the loop goes, real clock), "paced" (a clock simulated at
    RATE tokens/s, so the preview refreshes as often as in a real stream) or "every" (the preview
    redrawn after every chunk).
    """
    step = 4 * chunk_tokens
    fake_now = [0.0]
    kwargs: dict = {}
    if mode == "paced":
        kwargs["clock"] = lambda: fake_now[0]
    elif mode == "every":
        kwargs["min_interval"] = 0.0
    md = MarkdownStream(console(), **kwargs)
    start = time.process_time()
    for i in range(0, len(text), step):
        fake_now[0] += chunk_tokens / RATE
        md.feed(text[i : i + step])
    md.finish()
    return time.process_time() - start


def main() -> None:
    """Print the ratios and the cost per token."""
    render_once(generate(200))  # warm imports and caches
    print("CPU of streaming vs rendering the final text once (chunks of 3 tokens, width 100)")
    print("  fed:   chunks fed as fast as possible; preview redrawn at most 10 times/s")
    print(f"  paced: clock simulated at {RATE:g} tokens/s; preview redrawn at most 10 times/s")
    print("  every: preview redrawn after every chunk (worst case)")
    print(f"{'tokens':>7} {'once s':>7} {'fed':>6} {'paced':>6} {'every':>6}"
          f" {'us/token fed':>13} {'us/token paced':>15}")
    for tokens in (1000, 4000, 8000):
        text = generate(tokens)
        once = min(render_once(text) for _ in range(3))
        cost = {mode: min(stream(text, mode) for _ in range(2))
                for mode in ("fed", "paced", "every")}
        print(f"{tokens:>7} {once:>7.3f} {cost['fed'] / once:>6.2f} {cost['paced'] / once:>6.2f}"
              f" {cost['every'] / once:>6.2f} {cost['fed'] / tokens * 1e6:>13.0f}"
              f" {cost['paced'] / tokens * 1e6:>15.0f}")
    print("\nOne growing code block (a whole file in one fence); paced CPU as a share of the")
    print(f"stream's own duration at {RATE:g} tokens/s (previews of a screenful of highlighted")
    print("code are costly, so they are spaced out to take at most a tenth of the time)")
    print(f"{'tokens':>7} {'once s':>7} {'fed':>6} {'us/token fed':>13} {'paced CPU':>10}")
    for tokens in (2000, 8000, 16000):
        text = generate_one_code_block(tokens)
        once = min(render_once(text) for _ in range(2))
        fed = stream(text, "fed")
        paced = stream(text, "paced")
        print(f"{tokens:>7} {once:>7.3f} {fed / once:>6.2f} {fed / tokens * 1e6:>13.0f}"
              f" {paced / (tokens / RATE) * 100:>9.1f}%")


if __name__ == "__main__":
    main()
