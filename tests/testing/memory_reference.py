"""Memory backends for testing ``MemoryBackendContract`` itself: an honest in-memory one and
variants that each break one rule."""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Sequence

from chatcli_memory_api import MemoryHit, MemoryItem, MemoryKind


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


class ListBackend:
    """The smallest honest backend: a dict behind a lock; word overlap, then recency and
    confidence, as the score."""

    name = "list"

    def __init__(self, items: dict[str, MemoryItem] | None = None,
                 lock: threading.Lock | None = None) -> None:
        self.items: dict[str, MemoryItem] = {} if items is None else items
        self.lock = lock or threading.Lock()

    def store(self, item: MemoryItem) -> MemoryItem:
        with self.lock:
            if item.id in self.items:
                raise ValueError(f"memory item {item.id} exists")
            self.items[item.id] = item.model_copy(deep=True)
            return item

    def update(self, item: MemoryItem) -> MemoryItem:
        with self.lock:
            if item.id not in self.items:
                raise KeyError(item.id)
            item = item.model_copy(update={"updated_at": time.time()}, deep=True)
            self.items[item.id] = item
            return item

    def delete(self, item_id: str) -> bool:
        with self.lock:
            return self.items.pop(item_id, None) is not None

    def get(self, item_id: str) -> MemoryItem | None:
        with self.lock:
            found = self.items.get(item_id)
            return found.model_copy(deep=True) if found else None

    def _select(self, kind: MemoryKind | None, scopes: Sequence[str] | None,
                include_archived: bool) -> list[MemoryItem]:
        return [i.model_copy(deep=True) for i in self.items.values()
                if (kind is None or i.kind == kind)
                and (scopes is None or i.scope in scopes)
                and (include_archived or not i.archived)]

    def list(self, *, kind: MemoryKind | None = None, scopes: Sequence[str] | None = None,
             include_archived: bool = False, limit: int | None = None) -> list[MemoryItem]:
        with self.lock:
            found = sorted(self._select(kind, scopes, include_archived),
                           key=lambda i: i.created_at, reverse=True)
        return found[:limit] if limit is not None else found

    def search(self, query: str, *, kind: MemoryKind | None = None,
               scopes: Sequence[str] | None = None, include_archived: bool = False,
               limit: int = 10) -> list[MemoryHit]:
        wanted = set(_words(query))
        if not wanted:
            return []
        now = time.time()
        hits = []
        with self.lock:
            for item in self._select(kind, scopes, include_archived):
                words = _words(item.text)
                matched = wanted & set(words)
                if not matched:
                    continue
                text = len(matched) + sum(words.count(w) for w in matched) / (len(words) + 5)
                age = now - max(item.updated_at, item.last_used_at or 0.0)
                recency = math.exp(-max(age, 0.0) / (30 * 86_400))
                hits.append(MemoryHit(item, text + 0.01 * recency + 0.01 * item.confidence))
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits[:limit]

    def touch(self, item_ids: Sequence[str], when: float | None = None) -> None:
        with self.lock:
            for item_id in item_ids:
                item = self.items.get(item_id)
                if item is not None:
                    item.uses += 1
                    item.last_used_at = time.time() if when is None else when

    def reinforce(self, item_id: str, delta: float) -> MemoryItem | None:
        with self.lock:
            item = self.items.get(item_id)
            if item is None:
                return None
            item.confidence = min(1.0, max(0.0, item.confidence + delta))
            return item.model_copy(deep=True)

    def close(self) -> None:
        pass



class LosesTouches(ListBackend):
    """Reads, waits, writes: concurrent touches overwrite each other."""

    def touch(self, item_ids: Sequence[str], when: float | None = None) -> None:
        for item_id in item_ids:
            item = self.get(item_id)
            if item is None:
                continue
            uses = item.uses
            time.sleep(0.0005)
            with self.lock:
                self.items[item_id].uses = uses + 1
                self.items[item_id].last_used_at = time.time() if when is None else when


class IgnoresRecency(ListBackend):
    """Scores text only; ties fall to insertion order (the older item first)."""

    def search(self, query: str, **kwargs: object) -> list[MemoryHit]:
        hits = super().search(query, **kwargs)  # type: ignore[arg-type]
        rescored = [MemoryHit(h.item, float(round(h.score))) for h in hits]
        rescored.sort(key=lambda h: (-h.score, h.item.created_at))
        return rescored


class NoClamp(ListBackend):
    def reinforce(self, item_id: str, delta: float) -> MemoryItem | None:
        with self.lock:
            item = self.items.get(item_id)
            if item is None:
                return None
            item.__dict__["confidence"] = item.confidence + delta  # skip validation
            return item.model_copy(deep=True)
