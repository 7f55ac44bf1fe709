"""Reading what a CLI assistant prints: JSON Lines that never crash the reader, and its error
messages sorted into chatcli's error taxonomy.

Both CLIs print one JSON object per line on stdout (Claude Code's ``stream-json``, Codex's
``--json``). Anything else on stdout (a banner, a warning, half a line cut by a crash) is not an
event: :func:`parse_line` returns None for it and the provider remembers the first such lines to
name them if the run ends without an answer.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["classify", "first_line", "parse_line", "telling_line", "text_of"]

#: Where an error text says the user must log in again (or has a wrong key).
_AUTH = re.compile(
    r"(not logged in|log ?in again|please run /login|run `?/?(claude|codex) (login|auth)|"
    r"codex login|invalid api key|missing api key|authentication[_ ]failed|unauthori[sz]ed|"
    r"\b401\b|\b403\b|forbidden|oauth token (has )?expired|credentials? (have |has )?expired|"
    r"no credentials|permission denied for api)", re.IGNORECASE)

#: Where it says a usage or rate limit was reached.
_RATE = re.compile(
    r"(rate[_ ]limit|usage limit|hit your (usage )?limit|limit reached|too many requests|"
    r"\b429\b|quota|billing[_ ]error|credit balance is too low|out of credits)", re.IGNORECASE)

#: Where it says the service failed on its side.
_SERVER = re.compile(
    r"(overloaded|server[_ ]error|internal server error|\b5\d\d\b|bad gateway|"
    r"service unavailable|stream (error|disconnected)|connection (reset|refused|closed)|"
    r"timed? ?out|network|dns|econn|socket hang up|exceeded retry limit|upstream)",
    re.IGNORECASE)


def parse_line(line: str | bytes) -> dict[str, Any] | None:
    """The JSON object on ``line``, or None when the line is not one (blank, garbage, a JSON
    value that is not an object, bytes that are not UTF-8). Never raises."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", errors="replace")
    text = line.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def text_of(value: Any) -> str:
    """``value`` if it is text, else ``""`` (event fields are read defensively)."""
    return value if isinstance(value, str) else ""


def first_line(text: str, limit: int = 200) -> str:
    """The first non-blank line of ``text``, without ANSI sequences, cut to ``limit``."""
    text = re.sub(r"\x1b\[[0-9;?]*[ -/]*[@-~]", "", text or "")
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


_TELLING = re.compile(r"\b(error|fatal|panic(ked)?|failed|failure|exception|denied|invalid|"
                      r"not found|unauthori[sz]ed|limit)\b", re.IGNORECASE)


def telling_line(text: str, limit: int = 200) -> str:
    """The line of an error output that says most: the last one naming an error (a stack
    trace's message, not its frames; the last of several warnings), else the last line."""
    lines = [line for line in (first_line(raw, limit) for raw in (text or "").splitlines())
             if line]
    if not lines:
        return ""
    return next((line for line in reversed(lines) if _TELLING.search(line)), lines[-1])


def classify(text: str) -> str:
    """What an error text of a CLI assistant is about: ``auth``, ``rate``, ``server`` or
    ``other``."""
    if _AUTH.search(text or ""):
        return "auth"
    if _RATE.search(text or ""):
        return "rate"
    if _SERVER.search(text or ""):
        return "server"
    return "other"
