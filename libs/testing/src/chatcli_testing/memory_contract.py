"""A conformance kit for memory backends: subclass :class:`MemoryBackendContract`.

Every :class:`chatcli_memory_api.MemoryBackend` (the embedded SQLite one of chatcli-memory, the
PostgreSQL one of chatcli-memory-postgres, yours) must pass the same tests: store, get, update,
delete and list (kinds, scopes, the archived filter, newest first, limit); search (words in any
order, punctuation and query syntax ignored, unicode, an empty query gives nothing; ranking: a
better text match scores higher, and between equal text matches the more recent, then the more
confident, item wins); touch and reinforce (atomic, confidence kept within 0–1); update of a missing
id raises KeyError; metadata round-trips; concurrent writers from threads lose nothing.

pytest collects it only through a subclass whose name starts with ``Test``::

    import pytest
    from chatcli_testing import MemoryBackendContract

    class TestMyBackendContract(MemoryBackendContract):
        @pytest.fixture
        def backend(self, tmp_path):
            store = MyBackend(tmp_path / "memory.db")   # a fresh, empty store
            yield store
            store.close()

        @pytest.fixture
        def second_backend(self, backend, tmp_path):  # optional: another handle, same store
            store = MyBackend(tmp_path / "memory.db")
            yield store
            store.close()

What the suite takes as the contract, beyond the protocol's docstrings:

- ``store`` keeps every field as given (timestamps included: imports and tests set them);
  storing an id that exists raises ``ValueError`` and changes nothing.
- ``list`` orders by ``created_at``, newest first; ``scopes=[]`` matches nothing.
- ``search`` finds items holding *any* of the query's words (recall searches with a whole user
  message), ranks items holding more of them higher, and never raises on text a query language
  would parse (quotes, ``*``, ``NOT``, parentheses, ``col:``). Case is ignored. Recency is the
  latest of ``updated_at`` and ``last_used_at``.
- Timestamps are compared within a millisecond, ``updated_at`` set by ``update`` within a few
  seconds of the test's clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from chatcli_memory_api import MemoryBackend, MemoryHit, MemoryItem, MemoryKind, Provenance

__all__ = ["MemoryBackendContract"]

_DAY = 86_400.0


def _item(text: str, **fields: Any) -> MemoryItem:
    return MemoryItem(text=text, **fields)


def _ids(hits: list[MemoryHit]) -> list[str]:
    return [hit.item.id for hit in hits]


class MemoryBackendContract:
    """Conformance tests for a :class:`chatcli_memory_api.MemoryBackend`.

    Subclasses (named ``Test...``) override the :meth:`backend` fixture and, when the store can
    be opened twice, :meth:`second_backend`.
    """

    #: Items each writer thread stores (and touches) in the concurrency tests.
    writes_per_thread: ClassVar[int] = 25
    #: Writer threads per handle in the concurrency tests.
    threads_per_handle: ClassVar[int] = 2

    # -------------------------------------------------------------------------------- fixtures

    @pytest.fixture
    def backend(self) -> Iterator[MemoryBackend]:
        """A fresh, empty backend (closed after the test). Subclasses must override it."""
        raise NotImplementedError(
            f"{type(self).__name__} must override the 'backend' fixture")

    @pytest.fixture
    def second_backend(self, backend: MemoryBackend) -> Iterator[MemoryBackend]:
        """Another handle on the same store as :meth:`backend` (another connection, as another
        process would open it). Override it to run the cross-handle tests."""
        pytest.skip(f"{type(self).__name__} has no second_backend fixture")

    # -------------------------------------------------------------------------------- helpers

    def assert_same(self, got: MemoryItem | None, want: MemoryItem) -> None:
        """``got`` equals ``want`` field by field (timestamps within a millisecond)."""
        assert got is not None, f"item {want.id} not found"
        got_fields, want_fields = got.model_dump(), want.model_dump()
        for name in ("created_at", "updated_at", "last_used_at", "confidence"):
            g, w = got_fields.pop(name), want_fields.pop(name)
            if w is None:
                assert g is None, f"{name}: {g!r} != None"
            else:
                assert g == pytest.approx(w, abs=1e-3), f"{name}: {g!r} != {w!r}"
        assert got_fields == want_fields

    # -------------------------------------------------------------------------------- basics

    def test_has_a_name(self, backend: MemoryBackend) -> None:
        assert isinstance(backend.name, str) and backend.name
        assert isinstance(backend, MemoryBackend)

    def test_store_and_get_round_trip_every_field(self, backend: MemoryBackend) -> None:
        now = time.time()
        item = _item("The project uses uv, not pip.", kind=MemoryKind.PROFILE,
                     category="tooling", subject="package manager", key="tool",
                     confidence=0.9, provenance=Provenance.STATED, scope="project:abc123",
                     created_at=now - 3 * _DAY, updated_at=now - _DAY, last_used_at=now - 60,
                     uses=7, archived=True, superseded_by="mem_other",
                     metadata={"source": "MEMORY.md", "line": 3})
        stored = backend.store(item)
        assert stored.id == item.id
        self.assert_same(stored, item)
        self.assert_same(backend.get(item.id), item)

    def test_get_missing_is_none(self, backend: MemoryBackend) -> None:
        assert backend.get("mem_nosuch") is None

    def test_store_existing_id_raises_value_error(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("first text"))
        with pytest.raises(ValueError):
            backend.store(_item("second text", id=item.id))
        self.assert_same(backend.get(item.id), item)

    def test_metadata_round_trip(self, backend: MemoryBackend) -> None:
        metadata = {"nested": {"list": [1, 2.5, "three", None, True]}, "ünïcode": "naïve ✓",
                    "empty": {}, "quote": "it's \"quoted\"", "number": 12345678901}
        item = backend.store(_item("metadata carrier", metadata=metadata))
        got = backend.get(item.id)
        assert got is not None and got.metadata == metadata

    def test_text_with_quotes_and_sql_survives(self, backend: MemoryBackend) -> None:
        text = "it's a \"test\"; DROP TABLE items; -- \\ % _ \x7f ünïcode 日本語 🎉\nsecond line"
        item = backend.store(_item(text))
        got = backend.get(item.id)
        assert got is not None and got.text == text

    def test_update_replaces_the_item(self, backend: MemoryBackend) -> None:
        old = time.time() - 10 * _DAY
        item = backend.store(_item("uses pip", subject="package manager", created_at=old,
                                   updated_at=old))
        before = time.time()
        changed = item.model_copy(update={"text": "uses uv", "confidence": 1.0,
                                          "provenance": Provenance.CORRECTED, "archived": True,
                                          "superseded_by": "mem_x", "metadata": {"a": 1}})
        result = backend.update(changed)
        assert result.id == item.id and result.text == "uses uv"
        assert result.updated_at >= before - 5
        got = backend.get(item.id)
        assert got is not None
        assert (got.text, got.confidence, got.provenance, got.archived, got.superseded_by,
                got.metadata) == ("uses uv", 1.0, Provenance.CORRECTED, True, "mem_x", {"a": 1})
        assert got.created_at == pytest.approx(old, abs=1e-3)
        assert got.updated_at >= before - 5
        assert got.updated_at == pytest.approx(result.updated_at, abs=1e-3)

    def test_update_missing_raises_key_error(self, backend: MemoryBackend) -> None:
        with pytest.raises(KeyError):
            backend.update(_item("nobody stored me"))
        assert backend.list() == []

    def test_delete(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("forget me soon"))
        keep = backend.store(_item("keep me around"))
        assert backend.delete(item.id) is True
        assert backend.get(item.id) is None
        assert backend.delete(item.id) is False
        assert [i.id for i in backend.list()] == [keep.id]
        assert backend.search("forget") == []

    def test_close_twice_is_harmless(self, backend: MemoryBackend) -> None:
        backend.close()
        backend.close()

    # -------------------------------------------------------------------------------- list

    def test_list_newest_first_with_limit(self, backend: MemoryBackend) -> None:
        now = time.time()
        items = [backend.store(_item(f"item number {n}", created_at=now - (10 - n) * 60))
                 for n in range(5)]
        listed = backend.list()
        assert [i.id for i in listed] == [i.id for i in reversed(items)]
        assert [i.id for i in backend.list(limit=2)] == [items[4].id, items[3].id]

    def test_list_filters_kind(self, backend: MemoryBackend) -> None:
        fact = backend.store(_item("a fact"))
        profile = backend.store(_item("Ada", kind=MemoryKind.PROFILE, key="name"))
        daily = backend.store(_item("worked on memory", kind=MemoryKind.DAILY, key="2025-01-02"))
        assert [i.id for i in backend.list(kind=MemoryKind.FACT)] == [fact.id]
        assert [i.id for i in backend.list(kind=MemoryKind.PROFILE)] == [profile.id]
        assert [i.id for i in backend.list(kind=MemoryKind.DAILY)] == [daily.id]
        assert backend.list(kind=MemoryKind.TOPIC) == []

    def test_list_filters_scopes(self, backend: MemoryBackend) -> None:
        now = time.time()
        glob = backend.store(_item("global one", created_at=now - 3))
        abc = backend.store(_item("project abc", scope="project:abc", created_at=now - 2))
        backend.store(_item("project xyz", scope="project:xyz", created_at=now - 1))
        assert [i.id for i in backend.list(scopes=["global", "project:abc"])] == [abc.id,
                                                                                  glob.id]
        assert [i.id for i in backend.list(scopes=["project:abc"])] == [abc.id]
        assert backend.list(scopes=[]) == []
        assert len(backend.list(scopes=None)) == 3

    def test_list_leaves_out_archived_unless_asked(self, backend: MemoryBackend) -> None:
        live = backend.store(_item("still live"))
        gone = backend.store(_item("archived one", archived=True))
        assert [i.id for i in backend.list()] == [live.id]
        assert {i.id for i in backend.list(include_archived=True)} == {live.id, gone.id}

    # -------------------------------------------------------------------------------- search

    def test_search_finds_words_in_any_order(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("The project uses the uv package manager"))
        backend.store(_item("Completely unrelated sentence about cooking pasta"))
        for query in ("uv", "package manager", "manager package", "UV Package", "uv pasta"):
            hits = backend.search(query)
            assert item.id in _ids(hits), query
        assert _ids(backend.search("manager package"))[0] == item.id

    def test_search_matches_any_word_of_a_message(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("Deploys go through the staging cluster first"))
        hits = backend.search("how should I run my deploys tomorrow evening")
        assert _ids(hits) == [item.id]

    def test_search_ignores_punctuation(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("We run pre-commit hooks, always; then pytest."))
        for query in ("pytest?", "hooks!", "(pre-commit)", "always...", "pytest, hooks"):
            assert _ids(backend.search(query)) == [item.id], query

    def test_search_survives_query_syntax(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("uv builds the wheel"))
        for query in ('"uv', "uv*", "NOT uv", "uv OR", "(uv", "text:uv", "^uv", "uv NEAR wheel",
                      "uv AND", "'uv'", "uv - wheel", "{uv}", "uv:", "&|!", "\\uv", "%_"):
            hits = backend.search(query)
            assert isinstance(hits, list), query
        assert item.id in _ids(backend.search('"uv builds"'))

    def test_search_unicode(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("Der Kunde heißt Müller und trinkt Café crème"))
        other = backend.store(_item("日本語 のテスト"))
        assert _ids(backend.search("Müller")) == [item.id]
        assert _ids(backend.search("crème")) == [item.id]
        assert other.id not in _ids(backend.search("Müller"))

    def test_search_empty_or_unmatched_query(self, backend: MemoryBackend) -> None:
        backend.store(_item("something to find"))
        for query in ("", "   ", "?!.,;", "zzzqqqxxx"):
            assert backend.search(query) == [], query

    def test_search_returns_hits_best_first(self, backend: MemoryBackend) -> None:
        backend.store(_item("uv uv packaging"))
        backend.store(_item("uv is mentioned here among many many other unrelated words that "
                            "dilute the match"))
        hits = backend.search("uv packaging")
        assert len(hits) == 2
        assert all(isinstance(h, MemoryHit) and isinstance(h.item, MemoryItem) for h in hits)
        assert all(isinstance(h.score, float) for h in hits)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)

    def test_search_filters(self, backend: MemoryBackend) -> None:
        fact = backend.store(_item("alpha fact"))
        topic = backend.store(_item("alpha topic", kind=MemoryKind.TOPIC))
        scoped = backend.store(_item("alpha scoped", scope="project:p"))
        gone = backend.store(_item("alpha archived", archived=True))
        assert set(_ids(backend.search("alpha"))) == {fact.id, topic.id, scoped.id}
        assert set(_ids(backend.search("alpha", include_archived=True))) == {
            fact.id, topic.id, scoped.id, gone.id}
        assert _ids(backend.search("alpha", kind=MemoryKind.TOPIC)) == [topic.id]
        assert set(_ids(backend.search("alpha", scopes=["global"]))) == {fact.id, topic.id}
        assert _ids(backend.search("alpha", scopes=["project:p"])) == [scoped.id]
        assert backend.search("alpha", scopes=[]) == []

    def test_search_limit(self, backend: MemoryBackend) -> None:
        for n in range(15):
            backend.store(_item(f"repeated word number {n}"))
        assert len(backend.search("repeated")) == 10
        assert len(backend.search("repeated", limit=3)) == 3
        assert len(backend.search("repeated", limit=50)) == 15

    def test_search_sees_updates(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("the build uses make"))
        backend.update(item.model_copy(update={"text": "the build uses bazel"}))
        assert backend.search("make") == []
        assert _ids(backend.search("bazel")) == [item.id]

    def test_better_text_match_scores_higher(self, backend: MemoryBackend) -> None:
        now = time.time()
        common = {"created_at": now, "updated_at": now, "confidence": 0.6}
        both = backend.store(_item("postgres replication lag alert", **common))
        one = backend.store(_item("postgres is the database we use", **common))
        hits = backend.search("replication postgres")
        assert _ids(hits) == [both.id, one.id]
        assert hits[0].score > hits[1].score

    def test_recency_breaks_equal_text_matches(self, backend: MemoryBackend) -> None:
        now = time.time()
        year = now - 365 * _DAY
        old = backend.store(_item("the staging database is read only", created_at=year,
                                  updated_at=year, last_used_at=year))
        new = backend.store(_item("the staging database is read only", created_at=now,
                                  updated_at=now, last_used_at=now))
        hits = backend.search("staging database")
        assert _ids(hits) == [new.id, old.id]
        assert hits[0].score > hits[1].score

    def test_confidence_breaks_equal_text_matches(self, backend: MemoryBackend) -> None:
        now = time.time()
        low = backend.store(_item("prefers terse answers", confidence=0.2, created_at=now,
                                  updated_at=now))
        high = backend.store(_item("prefers terse answers", confidence=1.0, created_at=now,
                                   updated_at=now))
        hits = backend.search("terse answers")
        assert _ids(hits) == [high.id, low.id]
        assert hits[0].score > hits[1].score

    # -------------------------------------------------------------------------------- touch

    def test_touch_counts_uses(self, backend: MemoryBackend) -> None:
        a = backend.store(_item("touched twice"))
        b = backend.store(_item("touched once"))
        c = backend.store(_item("never touched"))
        when = time.time() - 100
        backend.touch([a.id, b.id], when=when)
        backend.touch([a.id])
        got_a, got_b, got_c = backend.get(a.id), backend.get(b.id), backend.get(c.id)
        assert got_a is not None and got_b is not None and got_c is not None
        assert (got_a.uses, got_b.uses, got_c.uses) == (2, 1, 0)
        assert got_b.last_used_at == pytest.approx(when, abs=1e-3)
        assert got_a.last_used_at is not None and got_a.last_used_at >= time.time() - 60
        assert got_c.last_used_at is None
        assert got_a.text == "touched twice"

    def test_touch_tolerates_missing_and_empty(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("present"))
        backend.touch([])
        backend.touch(["mem_nosuch", item.id])
        got = backend.get(item.id)
        assert got is not None and got.uses == 1

    # -------------------------------------------------------------------------------- reinforce

    def test_reinforce_adds_and_clamps(self, backend: MemoryBackend) -> None:
        item = backend.store(_item("reinforced", confidence=0.6))
        got = backend.reinforce(item.id, 0.05)
        assert got is not None and got.confidence == pytest.approx(0.65)
        stored = backend.get(item.id)
        assert stored is not None and stored.confidence == pytest.approx(0.65)
        top = backend.reinforce(item.id, 5.0)
        assert top is not None and top.confidence == pytest.approx(1.0)
        bottom = backend.reinforce(item.id, -7.0)
        assert bottom is not None and bottom.confidence == pytest.approx(0.0)

    def test_reinforce_missing_is_none(self, backend: MemoryBackend) -> None:
        assert backend.reinforce("mem_nosuch", 0.05) is None

    # -------------------------------------------------------------------------------- threads

    def _hammer(self, handles: list[MemoryBackend]) -> None:
        """Threads on each handle store items and touch and reinforce one shared item."""
        shared = handles[0].store(_item("shared counter", confidence=0.0))
        per = self.writes_per_thread
        errors: list[BaseException] = []
        start = threading.Barrier(len(handles) * self.threads_per_handle)

        def work(handle: MemoryBackend, tag: str) -> None:
            try:
                start.wait()
                for n in range(per):
                    handle.store(_item(f"written by {tag} number {n}"))
                    handle.touch([shared.id])
                    handle.reinforce(shared.id, 0.001)
            except BaseException as err:  # reported by the main thread
                errors.append(err)

        threads = [threading.Thread(target=work, args=(handle, f"h{h}t{t}"))
                   for h, handle in enumerate(handles) for t in range(self.threads_per_handle)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == [], errors
        writers = len(threads)
        for handle in handles:
            assert len(handle.list()) == writers * per + 1
            got = handle.get(shared.id)
            assert got is not None
            assert got.uses == writers * per
            assert got.confidence == pytest.approx(0.001 * writers * per, abs=1e-6)

    def test_concurrent_writers_on_one_handle_lose_nothing(self, backend: MemoryBackend) -> None:
        self._hammer([backend])

    def test_concurrent_writers_on_two_handles_lose_nothing(
            self, backend: MemoryBackend, second_backend: MemoryBackend) -> None:
        self._hammer([backend, second_backend])

    def test_second_handle_sees_writes(self, backend: MemoryBackend,
                                       second_backend: MemoryBackend) -> None:
        item = backend.store(_item("shared between handles"))
        self.assert_same(second_backend.get(item.id), item)
        assert _ids(second_backend.search("handles")) == [item.id]
        second_backend.update(item.model_copy(update={"text": "changed by the second"}))
        got = backend.get(item.id)
        assert got is not None and got.text == "changed by the second"
        assert second_backend.delete(item.id) is True
        assert backend.get(item.id) is None
