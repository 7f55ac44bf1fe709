"""What is remembered, and how it ages: the memory model over any
:class:`chatcli_memory_api.MemoryBackend`.

- **Confidence** by provenance: stated 0.9, corrected 1.0, extracted 0.6; each time a fact is
  seen again it is reinforced (+0.05, at most 1).
- **De-duplication**: a fact whose normalised token set is near-identical to a live one
  (Jaccard ≥ ``merge_similarity``) merges into it; a fact on the same subject (or a profile
  field of the same single-valued key, or one the extraction names in ``supersedes``) replaces
  the older one, which is archived with ``superseded_by`` set.
- **Strength** by use and age: ``min(1, confidence × (1 + 0.2·ln(1 + uses))) × ½^(idle /
  half-life)``; facts, topics and projects below ``archive_below`` are archived by
  :meth:`Memory.maintain`, daily notes after ``daily_days``. Nothing is deleted but by
  ``forget``.
- **Profile**: name and role (one each), preferences and directives (several), global unless
  given a project scope.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Any

from chatcli import translation
from chatcli_memory_api import MemoryBackend, MemoryItem, MemoryKind, Provenance
from chatcli_records_lite import dataclass

from chatcli_memory.secrets import MASK, find_secret, redact_secrets
from chatcli_memory.settings import MemoryOptions

__all__ = [
    "CONFIDENCE",
    "DECAYING",
    "REINFORCE",
    "SINGLE_KEYS",
    "Maintenance",
    "Memory",
    "Outcome",
    "SecretRefused",
    "action_count",
    "similarity",
    "tokens",
]

_, ngettext = translation(__name__)

CONFIDENCE = {Provenance.STATED: 0.9, Provenance.CORRECTED: 1.0, Provenance.EXTRACTED: 0.6}
REINFORCE = 0.05
#: kinds whose items fade when unused
DECAYING = (MemoryKind.FACT, MemoryKind.TOPIC, MemoryKind.PROJECT)
#: profile fields that hold one value (a newer one supersedes); others hold several
SINGLE_KEYS = frozenset({"name", "role"})
_RANK = {Provenance.EXTRACTED: 0, Provenance.STATED: 1, Provenance.CORRECTED: 2}
_DAY = 86_400.0
_WORD = re.compile(r"\w+")
_FILLER_WORDS = """
a an the is are was were be been to of and or in on at for with that this it its as by from
we our us i my me you your they their please remember note always
"""
_FILLER = frozenset(_FILLER_WORDS.split())
#: Compiled (by ``re``'s cache) when an item is first added, not at import.
_PREFIX = r"(?i)^\s*(?:please\s+)?(?:remember|note)(?:\s+that)?\s*[:,\-–]?\s*"
MAX_TEXT = 1_000


class SecretRefused(ValueError):
    """Text holding a secret was refused; the message is the one line to show."""


def tokens(text: str) -> frozenset[str]:
    """The normalised words of ``text`` that tell facts apart: case folded, filler words
    dropped, a plural ``s`` taken off."""
    words = set()
    for word in _WORD.findall(text.casefold()):
        if word in _FILLER:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return frozenset(words)


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' :func:`tokens` (1.0 for two empty sets)."""
    ta, tb = tokens(a), tokens(b)
    if not ta and not tb:
        return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0
    return len(ta & tb) / len(ta | tb)


def clean(text: str) -> str:
    """``text`` on one line, without a leading "remember:", at most :data:`MAX_TEXT` long, with
    NUL and lone surrogates replaced (PostgreSQL's text holds neither)."""
    from chatcli import safe_text

    text = " ".join(safe_text(text).split())
    text = re.sub(_PREFIX, "", text, count=1) if re.match(_PREFIX, text) else text
    return text[:MAX_TEXT].strip()


def _subject(text: str) -> str:
    return " ".join(sorted(tokens(text)))


@dataclass
class Outcome:
    """What :meth:`Memory.remember` did: ``stored``, ``merged`` (into ``item``),
    ``superseded`` (``replaced`` is the older item, now archived) or ``skipped``."""

    action: str
    item: MemoryItem | None = None
    replaced: MemoryItem | None = None
    note: str = ""


@dataclass
class Maintenance:
    """What one :meth:`Memory.maintain` archived."""

    decayed: list[str] = field(default_factory=list)
    expired: list[str] = field(default_factory=list)


class Memory:
    """The memory model for one workspace: ``scope`` is where new project items go (None when
    the workspace is no project), ``clock`` the time (tests move it)."""

    def __init__(self, backend: MemoryBackend, options: MemoryOptions | None = None, *,
                 project_scope: str | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.backend = backend
        self.options = options or MemoryOptions()
        self.project_scope = project_scope
        self.clock = clock

    # ------------------------------------------------------------------ scopes

    @property
    def scopes(self) -> list[str]:
        """The scopes recalled here: global and this project's."""
        return ["global", self.project_scope] if self.project_scope else ["global"]

    def scope_for(self, wanted: str | None) -> str:
        """``"project"`` → this project's scope (global when there is none); ``"global"`` or
        None → global; a full scope passes through."""
        if wanted in (None, "", "global"):
            return "global"
        if wanted == "project":
            return self.project_scope or "global"
        return wanted

    # ------------------------------------------------------------------ strength

    def strength(self, item: MemoryItem, now: float | None = None) -> float:
        """How alive ``item`` is (0–1): confidence, boosted by uses, halved per half-life
        unused."""
        now = self.clock() if now is None else now
        base = min(1.0, item.confidence * (1.0 + 0.2 * math.log1p(max(item.uses, 0))))
        if item.kind not in DECAYING:
            return base
        idle = max(0.0, now - max(item.updated_at, item.last_used_at or 0.0)) / _DAY
        half = self.options.half_life_days
        return base * (0.5 ** (idle / half)) if half > 0 else base

    # ------------------------------------------------------------------ remembering

    def remember(self, text: str, *, kind: MemoryKind = MemoryKind.FACT,
                 provenance: Provenance = Provenance.STATED, category: str = "",
                 subject: str = "", key: str = "", scope: str | None = None,
                 supersedes: str | None = None, secrets: str = "refuse",
                 metadata: dict[str, Any] | None = None) -> Outcome:
        """Remember ``text``: merge it into a near-identical item, supersede an older one on
        the same subject, or store it.

        ``secrets="refuse"`` raises :class:`SecretRefused` for text holding a secret (what the
        user types); ``"redact"`` masks it first (what a model extracted) and skips the text
        when little else is left.
        """
        text = clean(text)
        if secrets == "refuse":
            found = find_secret(text)
            if found:
                # i18n: {secret} is "an API key or token", "a bearer token"…
                raise SecretRefused(_("not remembered: the text holds {secret}; memory never "
                                      "stores secrets (put keys in `chatcli keys set`)").format(
                                          secret=found))
        else:
            text = redact_secrets(text)
            if len(text.replace(MASK, "").strip(" .,:;-")) < 3:
                return Outcome("skipped", note=_("only a secret"))
        subject, category = clean(subject)[:200], clean(category)[:100]
        if not text:
            return Outcome("skipped", note=_("empty"))
        scope = self.scope_for(scope)
        now = self.clock()
        live = self._candidates(text, kind, scope, subject, key)
        for old in live:
            if similarity(old.text, text) >= self.options.merge_similarity:
                return self._merge(old, provenance, subject, category)
        target = self._superseded(live, kind, subject, key, supersedes)
        item = MemoryItem(kind=kind, text=text, category=category, subject=subject, key=key,
                          confidence=CONFIDENCE[provenance], provenance=provenance,
                          scope=scope, created_at=now, updated_at=now,
                          metadata=dict(metadata or {}))
        self.backend.store(item)
        if target is None:
            return Outcome("stored", item)
        replaced = self.backend.update(target.model_copy(update={
            "archived": True, "superseded_by": item.id,
            "metadata": {**target.metadata, "archived_reason": "superseded"}}))
        return Outcome("superseded", item, replaced)

    def _candidates(self, text: str, kind: MemoryKind, scope: str, subject: str,
                    key: str) -> list[MemoryItem]:
        """Live items of ``kind`` in ``scope`` that ``text`` might repeat or replace."""
        found: dict[str, MemoryItem] = {}
        for query in (text, subject):
            if query:
                for hit in self.backend.search(query, kind=kind, scopes=[scope], limit=20):
                    found.setdefault(hit.item.id, hit.item)
        if kind == MemoryKind.PROFILE and key:
            for item in self.backend.list(kind=kind, scopes=[scope], limit=500):
                if item.key == key:
                    found.setdefault(item.id, item)
        if kind in (MemoryKind.PROFILE, MemoryKind.DAILY):  # a note of another day, a
            return [i for i in found.values() if i.key == key]  # preference vs a directive
        return list(found.values())

    def _superseded(self, live: Sequence[MemoryItem], kind: MemoryKind, subject: str,
                    key: str, supersedes: str | None) -> MemoryItem | None:
        if supersedes:
            old = self.backend.get(supersedes)
            if old is not None and not old.archived and old.kind == kind:
                return old
        if kind == MemoryKind.PROFILE and key in SINGLE_KEYS:
            return next((i for i in live if i.key == key), None)
        if subject:
            wanted = _subject(subject)
            return next((i for i in live if i.subject and _subject(i.subject) == wanted), None)
        return None

    def _merge(self, old: MemoryItem, provenance: Provenance, subject: str,
               category: str) -> Outcome:
        floor = CONFIDENCE[provenance]
        item = self.backend.reinforce(old.id, REINFORCE) or old
        changes: dict[str, Any] = {}
        if item.confidence < floor:
            changes["confidence"] = floor
        if _RANK[provenance] > _RANK[item.provenance]:
            changes["provenance"] = provenance
        if subject and not item.subject:
            changes["subject"] = subject
        if category and not item.category:
            changes["category"] = category
        if changes:
            item = self.backend.update(item.model_copy(update=changes))
        return Outcome("merged", item)

    def correct(self, item_id: str, text: str) -> Outcome:
        """The user corrected ``item_id``: a new item (confidence 1.0) supersedes it."""
        old = self.backend.get(item_id)
        if old is None:
            raise KeyError(item_id)
        text = clean(text)
        found = find_secret(text)
        if found:
            raise SecretRefused(_("not changed: the text holds {secret}; memory never stores "
                                  "secrets").format(secret=found))
        if not text:
            raise ValueError(_("the new text is empty"))
        now = self.clock()
        item = MemoryItem(kind=old.kind, text=text, category=old.category, subject=old.subject,
                          key=old.key, confidence=CONFIDENCE[Provenance.CORRECTED],
                          provenance=Provenance.CORRECTED, scope=old.scope, created_at=now,
                          updated_at=now, metadata={"corrects": old.id})
        self.backend.store(item)
        replaced = self.backend.update(old.model_copy(update={
            "archived": True, "superseded_by": item.id,
            "metadata": {**old.metadata, "archived_reason": "corrected"}}))
        return Outcome("superseded", item, replaced)

    # ------------------------------------------------------------------ ageing

    def maintain(self, now: float | None = None) -> Maintenance:
        """Archive what decayed below the threshold and daily notes past ``daily_days``."""
        now = self.clock() if now is None else now
        report = Maintenance()
        for kind in DECAYING:
            for item in self.backend.list(kind=kind):
                if self.strength(item, now) < self.options.archive_below:
                    self._archive(item, "decayed")
                    report.decayed.append(item.id)
        oldest = _dt.date.fromtimestamp(now) - _dt.timedelta(days=self.options.daily_days)
        for item in self.backend.list(kind=MemoryKind.DAILY):
            day = _day(item)
            if day is not None and day < oldest:
                self._archive(item, "expired")
                report.expired.append(item.id)
        return report

    def _archive(self, item: MemoryItem, reason: str) -> None:
        fresh = self.backend.get(item.id) or item
        self.backend.update(fresh.model_copy(update={
            "archived": True, "metadata": {**fresh.metadata, "archived_reason": reason}}))

    # ------------------------------------------------------------------ reading

    def profile(self) -> list[MemoryItem]:
        """The live profile items recalled here, a project's single keys over global ones."""
        items = self.backend.list(kind=MemoryKind.PROFILE, scopes=self.scopes, limit=200)
        single: dict[str, MemoryItem] = {}
        many: list[MemoryItem] = []
        oldest_first = list(reversed(items))  # newest first, ties by insertion
        for item in sorted(oldest_first, key=lambda i: (i.scope != "global", i.created_at)):
            if item.key in SINGLE_KEYS:
                single[item.key] = item
            else:
                many.append(item)
        return [*single.values(), *many]

    def strongest(self, kind: MemoryKind, limit: int, *, pool: int = 500) -> list[MemoryItem]:
        """The ``limit`` strongest live items of ``kind`` among the ``pool`` newest."""
        items = self.backend.list(kind=kind, scopes=self.scopes, limit=pool)
        now = self.clock()
        items.sort(key=lambda i: (-self.strength(i, now), -i.created_at, i.id))
        return items[:limit]

    def daily_notes(self, days: int = 2) -> list[MemoryItem]:
        """Daily notes of the last ``days`` days, oldest first."""
        first = _dt.date.fromtimestamp(self.clock()) - _dt.timedelta(days=max(days - 1, 0))
        notes = [i for i in self.backend.list(kind=MemoryKind.DAILY, scopes=self.scopes,
                                              limit=200)
                 if (_day(i) or _dt.date.min) >= first]
        return sorted(notes, key=lambda i: (i.key, i.created_at))

    def today(self) -> str:
        return _dt.date.fromtimestamp(self.clock()).isoformat()

    def find(self, ref: str) -> MemoryItem | None:
        """The item whose id is ``ref`` or starts with it (or with ``mem_`` + it), when one
        does."""
        ref = ref.strip()
        if not ref:
            return None
        exact = self.backend.get(ref) or self.backend.get("mem_" + ref)
        if exact is not None:
            return exact
        matches = [i for i in self.backend.list(include_archived=True)
                   if i.id.startswith(ref) or i.id.startswith("mem_" + ref)]
        return matches[0] if len(matches) == 1 else None


def _day(item: MemoryItem) -> _dt.date | None:
    try:
        return _dt.date.fromisoformat(item.key)
    except ValueError:
        return None


def action_count(action: str, count: int) -> str:
    """``3 stored``: how many items an import or an extraction ``action``-ed (stored, merged,
    superseded, skipped, refused)."""
    words = {"stored": ngettext("{count} stored", "{count} stored", count),
             "merged": ngettext("{count} merged", "{count} merged", count),
             "superseded": ngettext("{count} superseded", "{count} superseded", count),
             "skipped": ngettext("{count} skipped", "{count} skipped", count),
             "refused": ngettext("{count} refused", "{count} refused", count)}
    return words.get(action, "{count} " + action).format(count=count)
