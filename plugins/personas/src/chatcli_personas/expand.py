"""The arguments of a command template: ``$ARGUMENTS`` and ``$1``, ``$2`` … in its body.

``$ARGUMENTS`` is the argument text as typed; ``$N`` is its N-th word, split like a shell does
(``"two words"`` is one word; unbalanced quotes fall back to splitting on blanks); a word that is
not there is empty. The substitution is one pass: text that an argument brings in is never
substituted again. A body with no placeholder gets the arguments appended after a blank line
(``ARGUMENTS: …``), as Claude Code does, so that nothing typed is lost.
"""

from __future__ import annotations

import re
import shlex

__all__ = ["PLACEHOLDER", "expand", "split_arguments"]

PLACEHOLDER = re.compile(r"\$(ARGUMENTS|[1-9][0-9]*)")


def split_arguments(text: str) -> list[str]:
    """The words of ``text``, shell-like; blanks only when its quotes do not balance."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def expand(body: str, arguments: str) -> str:
    """``body`` with its placeholders replaced by ``arguments``."""
    if PLACEHOLDER.search(body) is None:
        return f"{body.rstrip()}\n\nARGUMENTS: {arguments}" if arguments.strip() else body
    words: list[str] | None = None

    def value(match: re.Match[str]) -> str:
        nonlocal words
        key = match.group(1)
        if key == "ARGUMENTS":
            return arguments
        if words is None:
            words = split_arguments(arguments)
        index = int(key)
        return words[index - 1] if index <= len(words) else ""

    return PLACEHOLDER.sub(value, body)
