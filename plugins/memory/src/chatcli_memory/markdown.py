"""MEMORY.md: memory as a markdown file a person can read and edit.

Export writes headed sections of bullets::

    # Memory

    ## Profile
    - name: Ada
    - preference: terse answers
    - directive: never touch the staging database

    ## Facts
    - The project uses uv.

    ## Facts (this project)      ← project items, when there are global ones too
    ## Projects / ## Topics / ## Daily notes (### 2025-06-01)

Import reads the same shape back, and any hand-written file: every bullet or plain line is one
item; ``## Profile`` lines are ``key: value``; other headings become a fact's category. Items
come in as stated by the user (confidence 0.9) and merge with what memory already holds, so
importing the same file twice changes nothing. A file in a project is the project's (a heading
ending in ``(global)`` says otherwise; the profile is global), one in the config folder is
global.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chatcli_memory_api import MemoryKind, Provenance

if TYPE_CHECKING:
    from chatcli_memory.model import Memory

__all__ = ["Entry", "export_markdown", "import_markdown", "parse_markdown"]

_KINDS = {"profile": MemoryKind.PROFILE, "facts": MemoryKind.FACT, "fact": MemoryKind.FACT,
          "projects": MemoryKind.PROJECT, "topics": MemoryKind.TOPIC,
          "daily notes": MemoryKind.DAILY, "daily": MemoryKind.DAILY,
          "notes": MemoryKind.DAILY}
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_PROFILE_KEYS = {"name": "name", "role": "role", "preference": "preference",
                 "preferences": "preference", "directive": "directive",
                 "directives": "directive", "rule": "directive"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Entry:
    """One item read from a MEMORY.md."""

    kind: MemoryKind
    text: str
    key: str = ""
    category: str = ""
    scope: str = ""  # "", "global" or "project"


def _scope_of(title: str) -> tuple[str, str]:
    lowered = title.lower()
    for marker, scope in (("(global)", "global"), ("(this project)", "project"),
                          ("(project)", "project")):
        if lowered.endswith(marker):
            return title[: -len(marker)].strip(), scope
    return title, ""


def parse_markdown(text: str) -> list[Entry]:
    """The entries of a MEMORY.md (never raises)."""
    entries: list[Entry] = []
    kind, category, scope, day = MemoryKind.FACT, "", "", ""
    fence = False
    for raw in text.splitlines():
        line = raw.rstrip()
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence or not line.strip() or line.lstrip().startswith("<!--"):
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2).strip()
            title, scope_here = _scope_of(title)
            if level == 1:
                continue
            known = _KINDS.get(title.lower())
            if level == 2:
                kind, scope, day = known or MemoryKind.FACT, scope_here, ""
                category = "" if known else title
            elif kind == MemoryKind.DAILY and _DATE.match(title):
                day = title
            elif kind == MemoryKind.FACT:
                category = title
            continue
        body = _BULLET.sub("", line).strip()
        body = re.sub(r"\s*<!--.*?-->\s*$", "", body).strip()
        if not body:
            continue
        if kind == MemoryKind.PROFILE:
            key, sep, value = body.partition(":")
            mapped = _PROFILE_KEYS.get(key.strip().lower())
            if sep and mapped and value.strip():
                entries.append(Entry(kind, value.strip(), mapped, scope=scope))
            else:
                entries.append(Entry(kind, body, "preference", scope=scope))
        elif kind == MemoryKind.DAILY:
            if day:
                entries.append(Entry(kind, body, day, scope=scope))
        else:
            entries.append(Entry(kind, body, category=category if kind == MemoryKind.FACT
                                 else "", scope=scope))
    return entries


def import_markdown(memory: Memory, text: str, *, scope: str, source: str) -> dict[str, int]:
    """Remember the entries of ``text`` (``scope``: "project" or "global" for entries that
    do not say); returns how many were stored, merged, superseded, skipped or refused (a
    secret)."""
    from chatcli_memory.model import SecretRefused

    counts: dict[str, int] = {}
    for entry in parse_markdown(text):
        try:
            outcome = memory.remember(
                entry.text, kind=entry.kind, key=entry.key, category=entry.category,
                provenance=Provenance.STATED,
                scope=entry.scope or ("global" if entry.kind == MemoryKind.PROFILE else scope),
                metadata={"source": source})
            action = outcome.action
        except SecretRefused:
            action = "refused"
        counts[action] = counts.get(action, 0) + 1
    return counts


def export_markdown(memory: Memory) -> str:
    """Memory (the scopes recalled here, live items) as MEMORY.md text."""
    backend = memory.backend
    out = ["# Memory", ""]
    profile = memory.profile()
    if profile:
        out += ["## Profile", *[f"- {i.key or 'preference'}: {i.text}" for i in profile], ""]
    for kind, title in ((MemoryKind.FACT, "Facts"), (MemoryKind.PROJECT, "Projects"),
                        (MemoryKind.TOPIC, "Topics")):
        items = sorted(backend.list(kind=kind, scopes=memory.scopes),
                       key=lambda i: i.created_at)
        by_scope = {s: [i for i in items if i.scope == s] for s in memory.scopes}
        both = len([s for s in by_scope if by_scope[s]]) > 1
        for scope_name, group in by_scope.items():
            if not group:
                continue
            suffix = ("" if not both else " (global)" if scope_name == "global"
                      else " (this project)")
            out.append(f"## {title}{suffix}")
            category = None
            for item in sorted(group, key=lambda i: (i.category, i.created_at)):
                if kind == MemoryKind.FACT and item.category != category:
                    category = item.category
                    if category:
                        out.append(f"### {category}")
                out.append(f"- {item.text}")
            out.append("")
    notes = sorted(backend.list(kind=MemoryKind.DAILY, scopes=memory.scopes),
                   key=lambda i: (i.key, i.created_at))
    if notes:
        out.append("## Daily notes")  # untranslated: MEMORY.md's headings, read back by import
        day = None
        for item in notes:
            if item.key != day:
                day = item.key
                out.append(f"### {day}")
            out.append(f"- {item.text}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
