"""When a skill activates by itself: a trigger word in the user's message, or a ``paths`` glob
matching a file the turn touches (named in the message, or in a tool call's arguments).

Triggers match case-insensitively as whole words (``commit message`` matches "Write a Commit
Message" but not "commitmessages"). Globs are the gitignore-style ones skill files use:
``*`` within a folder, ``**`` across folders, ``?``, ``[abc]`` and ``{ts,tsx}``; a glob without
``/`` matches the file's name anywhere (``*.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from chatcli_skills.skill import Skill

__all__ = ["glob_regex", "match_paths", "matched_trigger", "paths_in", "strings_in"]

#: Characters of a message scanned for paths, and paths kept per turn, at most.
_SCAN_CHARS = 20_000
_MAX_PATHS = 200
_TOKEN = re.compile(r"[^\s'\"`()<>\[\]{},;|]+")
_STRIP = ".,:;!?)]}>'\"`"


@functools.lru_cache(maxsize=256)
def _trigger_regex(trigger: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in trigger.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def _surely_absent(trigger: str, text: str, lowered: str | None) -> bool:
    """Whether a word of ``trigger`` is not even a substring of ``text`` (``lowered`` is its
    lower case, given when it is ASCII): then the trigger cannot match and its expression is
    not compiled (a few ms of every turn for the core pack's triggers). Only ASCII text and
    triggers are judged so; ``re.IGNORECASE`` folds a few other characters into ASCII ones."""
    return lowered is not None and trigger.isascii() and any(
        word.lower() not in lowered for word in trigger.split())


def matched_trigger(skill: Skill, text: str) -> str | None:
    """The first of the skill's triggers found in ``text``, or None."""
    lowered = text.lower() if text.isascii() else None
    for trigger in skill.triggers:
        trigger = trigger.strip()
        if trigger and not _surely_absent(trigger, text, lowered) and _trigger_regex(
                trigger).search(text):
            return trigger
    return None


def _braces(glob: str) -> list[str]:
    """``a.{ts,tsx}`` as ``a.ts`` and ``a.tsx`` (nested braces too, bounded)."""
    match = re.search(r"\{([^{}]*)\}", glob)
    if match is None:
        return [glob]
    out = []
    for option in match.group(1).split(",")[:32]:
        out += _braces(glob[:match.start()] + option + glob[match.end():])
    return out[:256]


@functools.lru_cache(maxsize=512)
def glob_regex(glob: str) -> re.Pattern[str]:
    """The regular expression a ``paths`` glob stands for, over relative POSIX paths."""
    alternatives = []
    for one in _braces(glob.strip()):
        one = one.lstrip("/")
        if one.startswith("./"):
            one = one[2:]
        anchored = "/" in one.rstrip("/")
        if one.endswith("/"):
            one += "**"
        pattern = _translate(one)
        alternatives.append(pattern if anchored else r"(?:.*/)?" + pattern)
    return re.compile(r"(?:" + "|".join(alternatives) + r")\Z")


def _translate(glob: str) -> str:
    out = []
    index = 0
    while index < len(glob):
        char = glob[index]
        if glob.startswith("**/", index):
            out.append(r"(?:.*/)?")
            index += 3
            continue
        if glob.startswith("**", index):
            out.append(r".*")
            index += 2
            continue
        if char == "*":
            out.append(r"[^/]*")
        elif char == "?":
            out.append(r"[^/]")
        elif char == "[":
            end = glob.find("]", index + 1)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = glob[index + 1:end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def match_paths(skill: Skill, paths: Sequence[str]) -> str | None:
    """The first of ``paths`` that one of the skill's globs matches, or None."""
    if not paths:  # nothing to match: no glob is compiled
        return None
    for glob in skill.paths:
        try:
            regex = glob_regex(glob)
        except re.error:
            continue
        for path in paths:
            if regex.match(path):
                return path
    return None


def strings_in(value: Any, depth: int = 0) -> list[str]:
    """The strings inside a tool call's arguments (nested lists and maps too, bounded)."""
    if isinstance(value, str):
        return [value]
    if depth > 4:
        return []
    if isinstance(value, dict):
        return [s for item in list(value.values())[:64] for s in strings_in(item, depth + 1)]
    if isinstance(value, list):
        return [s for item in value[:64] for s in strings_in(item, depth + 1)]
    return []


def _relative(token: str, bases: Sequence[Path]) -> list[str]:
    token = token.lstrip("@").strip(_STRIP)
    if token.startswith("file://"):
        token = token[7:]
    if not token or len(token) > 400 or "://" in token:
        return []
    if not ("/" in token or "." in token.lstrip(".")):
        return []
    if token.startswith("./"):
        token = token[2:]
    out = []
    if token.startswith("/") or token.startswith("~"):
        try:
            absolute = Path(token).expanduser()
        except RuntimeError:
            return []
        for base in bases:
            try:
                out.append(absolute.relative_to(base).as_posix())
            except ValueError:
                continue
        out.append(absolute.as_posix().lstrip("/"))
    else:
        out.append(token)
    return out


def paths_in(texts: Iterable[str], bases: Sequence[Path]) -> list[str]:
    """The path-like words of ``texts`` (``src/app.py``, ``@README.md``, absolute paths inside
    one of ``bases`` made relative to it), in order of appearance, without duplicates."""
    found: dict[str, None] = {}
    for text in texts:
        for token in _TOKEN.findall(text[:_SCAN_CHARS]):
            for path in _relative(token, bases):
                found.setdefault(path)
                if len(found) >= _MAX_PATHS:
                    return list(found)
    return list(found)
