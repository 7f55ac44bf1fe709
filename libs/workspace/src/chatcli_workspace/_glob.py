"""Globs of permission rules and hidden paths, as regular expressions."""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["glob_regex"]


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """A gitignore-style glob (``*``, ``?``, ``[…]``, ``**`` crossing folders) as a regular
    expression over '/'-separated text: the syntax of permission rules and of
    ``chatcli.Confinement.hidden`` (compiled once per pattern)."""
    out, index = [], 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 2 if pattern[index + 1:index + 2] in "!^" else
                               index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[index + 1:end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z", re.S)
