"""What memory shows the model.

- The **index** (a stable section, cached by providers): the profile, directives, the strongest
  facts, active projects, recurring topics and the last days' notes, within ``index_chars``.
  It is built once per conversation, so it is byte-identical turn after turn; what the
  extraction learns shows in the next session's index (and, when it matches, in recall now).
  ``/memory forget`` and ``/memory edit`` rebuild it at once: the person asked for it.
- The **recall** (a volatile section, after the cached prefix): items matching the current
  user message and the paths it and the turn's tool calls touch, plus what the person added
  with ``/memory add`` during this session, within ``recall_chars``; recalled items are
  touched (their uses counted) once per message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from chatcli import Role
from chatcli_memory_api import MemoryItem, MemoryKind

if TYPE_CHECKING:
    from chatcli import Message

    from chatcli_memory.model import Memory

__all__ = ["INDEX_SECTION", "RECALL_SECTION", "build_index", "build_recall", "query_for",
           "touched_paths"]

INDEX_SECTION = "memory"
RECALL_SECTION = "memory-recall"
#: one recalled or indexed line at most
LINE_CHARS = 300

_PATH = re.compile(r"(?<![\w/])((?:\.{0,2}/)?(?:[\w.\-]+/)*[\w\-]+\.[A-Za-z0-9]{1,8}"
                   r"|(?:[\w.\-]+/)+[\w.\-]+)")
_PATH_KEYS = ("path", "file", "file_path", "filename", "directory", "dir", "cwd")


def _line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"


def _fits(lines: list[str], line: str, budget: int) -> bool:
    return sum(len(x) + 1 for x in lines) + len(line) + 1 <= budget


# ------------------------------------------------------------------------------ the index


def build_index(memory: Memory) -> tuple[str, list[str]]:
    """The index text and the ids of the items it shows ("" when memory is empty)."""
    options = memory.options
    budget = options.index_chars
    now = memory.clock()
    lines: list[str] = []
    shown: list[str] = []

    def add(line: str, item: MemoryItem | None = None) -> bool:
        if not _fits(lines, line, budget):
            return False
        lines.append(line)
        if item is not None:
            shown.append(item.id)
        return True

    profile = memory.profile()
    single = {i.key: i for i in profile if i.key in ("name", "role")}
    if single:
        add("User: " + "; ".join(f"{k} {_line(i.text)}" for k, i in sorted(single.items())))
        shown.extend(i.id for i in single.values())
    for key, title in (("directive", "Directives (always follow)"),
                       ("preference", "Preferences")):
        items = [i for i in profile if i.key == key]
        if items:
            add(f"{title}:")
            for item in items:
                add(f"- {_line(item.text)}", item)
    facts = [i for i in memory.strongest(MemoryKind.FACT, options.index_items)
             if memory.strength(i, now) >= options.archive_below]
    if facts:
        add("Facts:")
        for item in facts:
            if not add(f"- {_line(item.text)}", item):
                break
    for kind, title in ((MemoryKind.PROJECT, "Active projects"),
                        (MemoryKind.TOPIC, "Recurring topics")):
        items = [i for i in memory.strongest(kind, 8)
                 if memory.strength(i, now) >= options.archive_below]
        if items:
            line = f"{title}: " + "; ".join(_line(i.text)[:80] for i in items)
            if add(line):
                shown.extend(i.id for i in items)
    notes = memory.daily_notes(2)[-6:]
    if notes:
        add("Recent notes:")
        for item in notes:
            add(f"- {item.key}: {_line(item.text)}", item)
    if not lines:
        return "", []
    head = ("# Memory\nWhat you remember about the user and this project from earlier "
            "conversations (follow the directives; the memory_search tool finds more).")
    return head + "\n" + "\n".join(lines), shown


# ------------------------------------------------------------------------------ recall


def _last_user(messages: Sequence[Message]) -> int | None:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == Role.USER and messages[index].text.strip():
            return index
    return None


def touched_paths(messages: Sequence[Message]) -> list[str]:
    """Paths named by the last user message and by the tool calls made since."""
    start = _last_user(messages)
    if start is None:
        return []
    found: dict[str, None] = {}
    for match in _PATH.finditer(messages[start].text):
        found.setdefault(match.group(1).strip("./") or match.group(1), None)
    for message in messages[start + 1:]:
        for call in message.tool_calls:
            arguments = call.arguments if isinstance(call.arguments, dict) else {}
            for key in _PATH_KEYS:
                value = arguments.get(key)
                if isinstance(value, str) and value.strip():
                    found.setdefault(value.strip(), None)
    return list(found)[:20]


def query_for(messages: Sequence[Message]) -> tuple[str | None, str]:
    """The id of the last user message and the search text for it (its text and the words
    of the paths touched)."""
    start = _last_user(messages)
    if start is None:
        return None, ""
    paths = touched_paths(messages)
    words = " ".join(re.sub(r"[/._\-]+", " ", p) for p in paths)
    return messages[start].id, f"{messages[start].text[:2_000]} {words}".strip()


def build_recall(memory: Memory, query: str, *, exclude: Iterable[str] = (),
                 added: Sequence[MemoryItem] = ()) -> tuple[str, list[MemoryItem]]:
    """The recall text for ``query`` and the items it searched up (to touch); items in
    ``exclude`` (the index) are left out, ``added`` (this session's ``/memory add``) come
    after the matches."""
    options = memory.options
    skip = set(exclude)
    now = memory.clock()
    found: list[MemoryItem] = []
    if query.strip():
        for hit in memory.backend.search(query, scopes=memory.scopes,
                                         limit=options.recall_items * 3):
            item = hit.item
            if item.id in skip or item.kind == MemoryKind.PROFILE:
                continue
            if item.kind in (MemoryKind.FACT, MemoryKind.TOPIC, MemoryKind.PROJECT) and \
                    memory.strength(item, now) < options.archive_below:
                continue
            found.append(item)
            skip.add(item.id)
            if len(found) >= options.recall_items:
                break
    lines: list[str] = []
    shown: list[MemoryItem] = []
    for item in found:
        line = f"- {_line(item.text)}"
        if not _fits(lines, line, options.recall_chars):
            break
        lines.append(line)
        shown.append(item)
    extra = [i for i in added if i.id not in skip]
    for item in extra:
        line = f"- {_line(item.text)} (added just now)"
        if not _fits(lines, line, options.recall_chars):
            break
        lines.append(line)
    if not lines:
        return "", shown
    return "Memory recalled for this message (from earlier conversations):\n" + \
        "\n".join(lines), shown
