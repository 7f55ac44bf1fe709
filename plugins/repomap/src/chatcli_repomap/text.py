"""Text from a repository made safe to quote in a prompt: one line, no control characters."""

from __future__ import annotations

import json
import unicodedata

__all__ = ["clean_line", "shown_path"]


def clean_line(text: str, limit: int = 120) -> str:
    """``text`` on one line: tabs as spaces, other control and format characters dropped,
    cut to ``limit`` characters (``…`` marks a cut)."""
    text = text.replace("\t", "    ")
    if not text.isprintable():
        text = "".join(c for c in text if c.isprintable()
                       and unicodedata.category(c) not in ("Cf", "Zl", "Zp"))
    text = text.rstrip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown_path(path: str) -> str:
    """A path as the map shows it: as is when it is plain printable text, else as a JSON
    string (a name holding a newline or an escape sequence cannot add lines to the prompt)."""
    if path.isprintable() and path.strip() == path and "\ufffd" not in path:
        return path
    return json.dumps(path, ensure_ascii=True)
