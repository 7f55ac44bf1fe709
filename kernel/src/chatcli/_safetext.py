"""Text that can always be stored and sent: one rule, applied where text enters chatcli.

A Python ``str`` can hold what no file, database or service accepts:

- **lone surrogates** (U+D800–U+DFFF not in a valid pair): a JSON ``"\\ud800"`` escape from a
  model or an MCP server decodes to one, and bytes that are not UTF-8 (a file name, a command's
  output) arrive as ``\\udc80``–``\\udcff`` through ``surrogateescape``. UTF-8 cannot encode them,
  so pydantic's JSON, SQLite's bindings and every SDK's request body raise on them;
- **NUL** (U+0000): valid JSON (``\\u0000``), but PostgreSQL ``text``/``jsonb`` reject it, C
  servers (llama.cpp) and terminals cut strings at it, and no path or command can hold one.

The rule is the same everywhere: each of them becomes U+FFFD (the replacement character, what a
UTF-8 decoder shows for bytes it cannot read). A surrogate *pair* stored as two code points is
joined into the character it encodes. Every other character — other control characters, private
use, non-characters — is kept as it is: JSON escapes what it must.

The engine applies it to answer text, tool calls and tool results as they arrive, the
conversation to everything appended or restored, the session store to what it writes, and the
request builders to what they send, so one character can neither fail a turn nor break a saved
session.
"""

from __future__ import annotations

import re
import weakref
from typing import Any, TypeVar

from pydantic import BaseModel

__all__ = ["safe_json", "safe_message", "safe_text", "unsafe_text"]

M = TypeVar("M")

#: A character that is only unsafe when it is not half of a valid pair.
_SURROGATE = re.compile("[\ud800-\udfff]")

REPLACEMENT = "\ufffd"


def unsafe_text(text: str) -> bool:
    """Whether ``text`` holds a character :func:`safe_text` would replace (NUL or a surrogate)."""
    if "\x00" in text:
        return True
    if text.isascii():
        return False
    try:  # C speed: ten times a regular expression's on long text
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def safe_text(text: str) -> str:
    """``text`` with every lone surrogate and NUL replaced by U+FFFD (valid surrogate pairs are
    joined into their character); ``text`` itself when there is nothing to replace."""
    if not unsafe_text(text):
        return text
    if _SURROGATE.search(text) is not None:
        # UTF-16 pairs what can be paired and decodes each lone half to one U+FFFD
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.replace("\x00", REPLACEMENT)


def _needs_work(value: Any) -> bool:
    """Whether any string in ``value`` (keys included, at any depth) is unsafe. Iterative, so
    arguments nested thousands of levels deep are no ``RecursionError``."""
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if unsafe_text(item):
                return True
        elif isinstance(item, (dict, list, tuple, BaseModel)) and id(item) not in seen:
            seen.add(id(item))
            if isinstance(item, dict):
                for key, child in item.items():
                    if isinstance(key, str) and unsafe_text(key):
                        return True
                    stack.append(child)
            elif isinstance(item, BaseModel):  # a model: its fields, read in place
                stack.extend(vars(item).values())
                stack.append(getattr(item, "__pydantic_extra__", None) or {})
            else:
                stack.extend(item)
    return False


def _rebuild(value: Any) -> Any:
    """A copy of ``value`` with every string made safe (tuples become lists, as in JSON)."""
    if isinstance(value, str):
        return safe_text(value)
    if not isinstance(value, (dict, list, tuple)):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, child in pairs:
            if isinstance(child, str):
                made: Any = safe_text(child)
            elif isinstance(child, dict):
                made = {}
                stack.append((child, made))
            elif isinstance(child, (list, tuple)):
                made = []
                stack.append((child, made))
            else:
                made = child
            if isinstance(target, dict):
                target[safe_text(key) if isinstance(key, str) else key] = made
            else:
                target.append(made)
    return root


def safe_json(value: M) -> M:
    """``value`` (JSON-like data: dicts, lists, strings, numbers) with every string, keys
    included, made safe by :func:`safe_text`; ``value`` itself, untouched, when nothing needs
    it, else a copy (the original is never changed, so shared or cached data stays as it was).
    Two keys that become the same keep the later value."""
    if not _needs_work(value):
        return value
    rebuilt: M = _rebuild(value)  # a copy of the same shape
    return rebuilt


#: Models found safe, by identity (a weak reference each, dropped with the model): a request
#: builder asks again about every message of the history on every turn, and the answer must not
#: cost a walk through each of them each time (the cost per turn must not grow with the history).
_KNOWN_SAFE: dict[int, weakref.ref[Any]] = {}


def safe_message(message: M) -> M:
    """A pydantic model (a :class:`~chatcli.Message`, a part, a compaction) whose strings are
    all safe: ``message`` itself when they already are, else a validated copy.

    A model found safe is remembered (by identity, as long as it lives), so asking again costs
    a dictionary look-up: messages are not changed once they are in a conversation."""
    known = _KNOWN_SAFE.get(id(message))
    if known is not None and known() is message:
        return message
    if _needs_work(message):  # read in place, without dumping the model
        data = message.model_dump()  # type: ignore[attr-defined]
        message = type(message).model_validate(_rebuild(data))  # type: ignore[attr-defined]
    key = id(message)  # (pydantic models take weak references; the entry goes with the model)
    _KNOWN_SAFE[key] = weakref.ref(message, lambda _ref: _KNOWN_SAFE.pop(key, None))
    return message
