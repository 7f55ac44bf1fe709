"""Brace expansion of rule globs: ``src/*.{ts,tsx}`` is ``src/*.ts`` and ``src/*.tsx``."""

from __future__ import annotations

__all__ = ["expand_braces"]


def expand_braces(glob: str, limit: int = 64) -> list[str]:
    """``src/*.{ts,tsx}`` → ``["src/*.ts", "src/*.tsx"]`` (nested braces too; at most ``limit``
    patterns; a brace without a comma inside stays as written)."""
    results = [glob]
    done: list[str] = []
    while results:
        pattern = results.pop(0)
        span = _brace_span(pattern)
        if span is None:
            done.append(pattern)
        else:
            start, end = span
            head, inside, tail = pattern[:start], pattern[start + 1:end], pattern[end + 1:]
            results[:0] = [head + option + tail for option in _split_top(inside)]
        if len(done) + len(results) > limit:
            return [glob]
    return done


def _brace_span(pattern: str) -> tuple[int, int] | None:
    """The first ``{…,…}`` group of ``pattern`` (its start and end index), if any."""
    stack = []
    for index, char in enumerate(pattern):
        if char == "{":
            stack.append(index)
        elif char == "}" and stack:
            start = stack.pop()
            if not stack and "," in _top_level(pattern[start + 1:index]):
                return start, index
    return None


def _top_level(inside: str) -> str:
    """``inside`` with nested ``{…}`` groups removed (to find its own commas)."""
    out, depth = [], 0
    for char in inside:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _split_top(inside: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in inside:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return parts
