"""Extraction: the prompt that asks a model what is worth remembering, the parsing of its JSON
answer (tolerant of fences and chatter, never raising on any text), and applying it.

The answer is one JSON object; every field is optional and ``{}`` means nothing new::

    {"daily": ["…"],
     "long_term": [{"text": "…", "category": "…", "subject": "…", "scope": "project",
                    "correction": false, "supersedes": "mem_…"}],
     "profile": {"name": "…", "role": "…", "preferences": ["…"], "directives": ["…"]},
     "topics": ["…"], "projects": ["…"]}

Malformed output (no object, broken JSON, the wrong shape at the top) changes nothing; entries
of the wrong type inside a good object are skipped and counted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from chatcli import Message, translation
from chatcli_memory_api import MemoryItem, MemoryKind, Provenance

from chatcli_memory.model import Memory, action_count
from chatcli_memory.secrets import redact_secrets

__all__ = [
    "EXTRACTION_PROMPT",
    "Extraction",
    "ExtractionError",
    "Fact",
    "apply_extraction",
    "parse_extraction",
    "system_prompt",
    "transcript",
]

_, ngettext = translation(__name__)

EXTRACTION_PROMPT = """\
You maintain the long-term memory of a coding assistant. Read the conversation excerpt the \
user sends and pick out only what will still matter in later conversations. Answer with ONE \
JSON object and nothing else:

{"daily": ["what was worked on or decided today, one short line each"],
 "long_term": [{"text": "a durable fact, one self-contained sentence",
                "category": "tooling|architecture|convention|decision|person|other",
                "subject": "what it is about, 1-4 words (e.g. 'package manager')",
                "scope": "project or global",
                "correction": true if the user corrected an earlier fact,
                "supersedes": "the id of the known fact it replaces, if any"}],
 "profile": {"name": "…", "role": "…", "preferences": ["…"], "directives": ["…"]},
 "topics": ["recurring subjects, 1-3 words each"],
 "projects": ["projects the user is actively working on"]}

Rules:
- Leave out fields with nothing new; answer {} when nothing is worth remembering.
- Durable facts only: tools, conventions, decisions, constraints, the user's preferences and \
directives ("never touch the staging database"). Not chit-chat, not this task's details.
- Do not repeat what is already known (listed below); when the conversation changes a known \
fact, give the new fact with "supersedes" set to its id.
- Never include secrets: no API keys, tokens, passwords or credentials, even masked.
"""

_LIMIT = 500
_MAX_ENTRIES = 30
#: (compiled by ``re``'s cache when an extraction answer is read, not at import)
_FENCE = r"```(?:json|JSON)?\s*(.*?)```"
_NOTHING = r"^\W*(nothing( new)?|none|null|n/?a|no new (memories|facts))\W*$"


class ExtractionError(ValueError):
    """The model's answer is no usable extraction; the message says why, in a few words."""


@dataclass(frozen=True)
class Fact:
    """One long-term fact of an extraction."""

    text: str
    category: str = ""
    subject: str = ""
    scope: str = "project"
    correction: bool = False
    supersedes: str = ""


@dataclass
class Extraction:
    """A parsed answer. ``skipped`` counts entries of the wrong type that were left out."""

    daily: list[str] = field(default_factory=list)
    long_term: list[Fact] = field(default_factory=list)
    name: str = ""
    role: str = ""
    preferences: list[str] = field(default_factory=list)
    directives: list[str] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    projects: list[str] = field(default_factory=list)
    skipped: int = 0

    @property
    def empty(self) -> bool:
        return not (self.daily or self.long_term or self.name or self.role or self.preferences
                    or self.directives or self.topics or self.projects)


# ------------------------------------------------------------------------------ the prompt


def system_prompt(known: Sequence[MemoryItem], limit: int = 4_000) -> str:
    """The extraction instructions and the known facts (with ids, so the model can name the
    one a new fact supersedes)."""
    lines = [f"- [{item.id}] {item.text}" for item in known]
    listing = "\n".join(lines)
    if len(listing) > limit:
        listing = listing[:limit].rsplit("\n", 1)[0] + "\n- …"
    return EXTRACTION_PROMPT + "\nAlready known:\n" + (listing or "- nothing yet")


def transcript(messages: Iterable[Message], limit: int) -> str:
    """The messages as plain text for the extraction model: secrets redacted, tool results
    shortened, at most ``limit`` characters (the most recent kept)."""
    lines: list[str] = []
    for message in messages:
        role = getattr(message.role, "value", str(message.role))
        text = message.text.strip()
        if text:
            lines.append(f"{role.upper()}: {text[:4_000]}")
        for call in message.tool_calls:
            lines.append(f"{role.upper()} called "
                         f"{call.name}({str(call.arguments)[:300]})")  # untranslated: for the model
        for result in message.tool_results:
            lines.append(f"TOOL RESULT {result.name}: {result.content[:300]}")
    text = redact_secrets("\n".join(lines))
    if len(text) > limit:
        text = "…" + text[-limit:]
    return text


# ------------------------------------------------------------------------------ parsing


def _object(text: str) -> Any:
    """The first JSON value in ``text`` that is an object (fences and prose around it are
    fine); raises :class:`ExtractionError`."""
    stripped = text.strip()
    if not stripped or re.match(_NOTHING, stripped, re.I):
        return {}
    candidates = [m.group(1) for m in re.finditer(_FENCE, stripped, re.DOTALL)] + [stripped]
    decoder = json.JSONDecoder()
    seen_json = False
    for candidate in candidates:
        candidate = candidate.strip()
        try:
            value = json.loads(candidate)
        except (ValueError, RecursionError):
            pass
        else:
            seen_json = True
            if isinstance(value, dict):
                return value
            if value is None or value == []:
                return {}
            continue
        for tries, match in enumerate(re.finditer(r"\{", candidate)):
            if tries >= 20:
                break
            try:
                value, _end = decoder.raw_decode(candidate, match.start())
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict):
                return value
    if seen_json:
        raise ExtractionError(_("the answer is JSON but not an object"))
    raise ExtractionError(_("the answer holds no JSON object"))


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        text = " ".join(value.split())
        return text[:_LIMIT] if text else None
    return None


def _texts(value: Any, extraction: Extraction) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        extraction.skipped += 1
        return []
    out: list[str] = []
    for entry in value[:_MAX_ENTRIES]:
        if isinstance(entry, dict):  # {"name": …} / {"text": …}
            entry = entry.get("text") or entry.get("name")
        text = _text(entry)
        if text is None:
            extraction.skipped += 1
        elif text not in out:
            out.append(text)
    return out


def _bool(value: Any) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def _fact(entry: Any, extraction: Extraction) -> Fact | None:
    if isinstance(entry, str):
        entry = {"text": entry}
    if not isinstance(entry, dict):
        extraction.skipped += 1
        return None
    text = _text(entry.get("text") or entry.get("fact"))
    if text is None:
        extraction.skipped += 1
        return None
    scope = _text(entry.get("scope")) or "project"
    return Fact(text=text, category=(_text(entry.get("category")) or "")[:100],
                subject=(_text(entry.get("subject")) or "")[:200],
                scope="global" if scope.lower() == "global" else "project",
                correction=_bool(entry.get("correction")),
                supersedes=(_text(entry.get("supersedes")) or "")[:64])


def _field(data: dict[str, Any], *names: str) -> Any:
    folded = {str(k).lower().replace("-", "_"): v for k, v in data.items()}
    for name in names:
        if name in folded:
            return folded[name]
    return None


def parse_extraction(text: str) -> Extraction:
    """The extraction in a model's answer; raises :class:`ExtractionError` when there is
    none (and for nothing else)."""
    data = _object(text if isinstance(text, str) else "")
    extraction = Extraction()
    extraction.daily = _texts(_field(data, "daily", "daily_notes"), extraction)
    facts = _field(data, "long_term", "longterm", "facts", "long_term_facts")
    if isinstance(facts, (dict, str)):
        facts = [facts]
    if facts is not None and not isinstance(facts, list):
        extraction.skipped += 1
        facts = []
    for entry in (facts or [])[:_MAX_ENTRIES]:
        fact = _fact(entry, extraction)
        if fact is not None:
            extraction.long_term.append(fact)
    profile = _field(data, "profile", "profile_update", "profile_updates")
    if isinstance(profile, dict):
        extraction.name = _text(_field(profile, "name")) or ""
        extraction.role = _text(_field(profile, "role")) or ""
        extraction.preferences = _texts(_field(profile, "preferences", "preference"),
                                        extraction)
        extraction.directives = _texts(_field(profile, "directives", "directive"),
                                       extraction)
    elif profile is not None:
        extraction.skipped += 1
    extraction.topics = _texts(_field(data, "topics"), extraction)
    extraction.projects = _texts(_field(data, "projects"), extraction)
    return extraction


# ------------------------------------------------------------------------------ applying


@dataclass
class Applied:
    """What applying an extraction did, by action (stored, merged, superseded, skipped)."""

    counts: dict[str, int] = field(default_factory=dict)
    items: list[MemoryItem] = field(default_factory=list)

    def add(self, action: str, item: MemoryItem | None) -> None:
        self.counts[action] = self.counts.get(action, 0) + 1
        if item is not None and action in ("stored", "superseded"):
            self.items.append(item)

    def summary(self) -> str:
        order = ("stored", "merged", "superseded", "skipped")
        parts = [action_count(a, self.counts[a]) for a in order if self.counts.get(a)]
        return ", ".join(parts) or _("nothing new")


def apply_extraction(memory: Memory, extraction: Extraction, *,
                     should_stop: Any = None) -> Applied:
    """Remember everything ``extraction`` holds (secrets masked, near-duplicates merged).
    ``should_stop()`` is asked between items: True ends the run early (exit)."""
    applied = Applied()
    extracted = Provenance.EXTRACTED
    jobs: list[dict[str, Any]] = []
    for fact in extraction.long_term:
        jobs.append({"text": fact.text, "kind": MemoryKind.FACT, "category": fact.category,
                     "subject": fact.subject, "scope": fact.scope,
                     "supersedes": fact.supersedes or None,
                     "provenance": Provenance.CORRECTED if fact.correction else extracted})
    for key, value in (("name", extraction.name), ("role", extraction.role)):
        if value:
            jobs.append({"text": value, "kind": MemoryKind.PROFILE, "key": key,
                         "scope": "global", "provenance": extracted})
    for key, values in (("preference", extraction.preferences),
                        ("directive", extraction.directives)):
        jobs += [{"text": v, "kind": MemoryKind.PROFILE, "key": key, "scope": "global",
                  "provenance": extracted} for v in values]
    jobs += [{"text": t, "kind": MemoryKind.TOPIC, "scope": "project", "provenance": extracted}
             for t in extraction.topics]
    jobs += [{"text": p, "kind": MemoryKind.PROJECT, "scope": "global", "provenance": extracted}
             for p in extraction.projects]
    today = memory.today()
    jobs += [{"text": d, "kind": MemoryKind.DAILY, "key": today, "scope": "project",
              "provenance": extracted} for d in extraction.daily]
    for job in jobs:
        if should_stop is not None and should_stop():
            break
        outcome = memory.remember(secrets="redact", metadata={"source": "extraction"}, **job)
        applied.add(outcome.action, outcome.item)
    return applied
