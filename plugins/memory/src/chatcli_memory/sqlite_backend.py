"""The embedded memory backend: one SQLite file with an FTS5 index.

The file lives under chatcli's data folder (``memory/memory.db``; ``memory.path`` moves it), is
created 0600 in a 0700 folder, and runs in WAL mode so readers never wait for the extraction
worker's writes. Every write is one ``BEGIN IMMEDIATE`` transaction; ``touch`` and
``reinforce`` are single ``UPDATE`` statements, so concurrent writers (threads of this process
through one connection, other processes through theirs) never lose a change.

Search is FTS5 (``porter`` stems over ``unicode61``, diacritics folded) over text, subject and
category, with the query's words (stopwords left out) joined by ``OR`` — an item holding *any*
of them matches, in any form ("what testing frameworks" finds "pytest is the test framework") —
and ranked by BM25, blended with recency and confidence::

    score = bm25 × (0.6 + 0.25 × recency + 0.15 × confidence)
    recency = τ / (τ + age)            τ = 30 days, age since the latest of updated/used

(a rational decay, so no SQL math functions are needed). What costs is BM25 over every item a
query matches, so in a large memory the commonest words of a query are left out once together
they would match more than :data:`MATCH_BUDGET` items (their weight in BM25 is small; the
rarest word always stays), and the blend runs on the best :data:`CANDIDATES` text matches.
"""

from __future__ import annotations

import builtins
import json
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from chatcli import ChatcliError, translation
from chatcli_memory_api import MemoryHit, MemoryItem, MemoryKind

__all__ = ["SCHEMA_VERSION", "SqliteBackend", "fts_query", "query_words"]

_, ngettext = translation(__name__)

#: 2: the index stems words (``porter``); a version-1 file's index is rebuilt on open
SCHEMA_VERSION = 2
#: τ of the recency blend, in seconds
RECENCY_SCALE = 30 * 86_400.0
#: most distinct words of a query sent to FTS5 (a pasted log would be thousands)
MAX_QUERY_WORDS = 64
#: how many of the best text matches are blended with recency and confidence
CANDIDATES = 200
#: the most items a search ranks: the commonest words are left out beyond it
MATCH_BUDGET = 4_000
#: words too common to tell items apart (dropped from a query that has other words): FTS5
#: would rank every item holding "the"
_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_COLUMNS = ("id", "kind", "text", "category", "subject", "key", "confidence", "provenance",
            "scope", "created_at", "updated_at", "last_used_at", "uses", "archived",
            "superseded_by", "metadata")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    text TEXT NOT NULL,
    category TEXT NOT NULL DEFAULT '',
    subject TEXT NOT NULL DEFAULT '',
    key TEXT NOT NULL DEFAULT '',
    confidence REAL NOT NULL,
    provenance TEXT NOT NULL,
    scope TEXT NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    last_used_at REAL,
    uses INTEGER NOT NULL DEFAULT 0,
    archived INTEGER NOT NULL DEFAULT 0,
    superseded_by TEXT,
    metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS items_listing ON items (archived, kind, scope, created_at);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
    text, subject, category, content='items', content_rowid='rowid',
    tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (rowid, text, subject, category)
    VALUES (new.rowid, new.text, new.subject, new.category);
END;
CREATE TRIGGER IF NOT EXISTS items_ad AFTER DELETE ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, text, subject, category)
    VALUES ('delete', old.rowid, old.text, old.subject, old.category);
END;
CREATE TRIGGER IF NOT EXISTS items_au AFTER UPDATE OF text, subject, category ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, text, subject, category)
    VALUES ('delete', old.rowid, old.text, old.subject, old.category);
    INSERT INTO items_fts (rowid, text, subject, category)
    VALUES (new.rowid, new.text, new.subject, new.category);
END;
"""

_WORD = re.compile(r"\w+")


def query_words(text: str) -> list[str]:
    """The distinct words of ``text`` (case folded), stopwords left out unless nothing else is
    left, at most :data:`MAX_QUERY_WORDS`."""
    words = [w for w in dict.fromkeys(_WORD.findall(text.casefold())) if w.strip("_")]
    kept = [w for w in words if w not in STOPWORDS] or words
    return kept[:MAX_QUERY_WORDS]


def fts_query(text: str) -> str:
    """``text`` as an FTS5 query: each distinct word quoted (no query syntax survives), joined
    by OR, stopwords left out unless nothing else is left; empty when ``text`` holds no
    word."""
    return " OR ".join(f'"{word}"' for word in query_words(text))


def _fix(path: Path) -> str:
    return _("move {path} aside (or set memory.path) and chatcli starts a new memory file"
             ).format(path=path)


class SqliteBackend:
    """A :class:`chatcli_memory_api.MemoryBackend` on one SQLite file (thread-safe: one
    connection behind a lock; open the file twice for a second handle)."""

    name = "sqlite"

    def __init__(self, path: Path, *, clock: Any = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        #: word → how many items hold it (a pruning heuristic: never exact, cleared often)
        self._df: dict[str, int] = {}
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as err:
            if self._db is not None:
                self._db.close()
            raise ChatcliError(_("memory file {path} cannot be read ({reason})").format(
                                   path=self.path, reason=err),
                               _fix(self.path)) from None
        except OSError as err:
            raise ChatcliError(_("memory file {path} cannot be opened ({reason})").format(
                                   path=self.path, reason=err.strerror or err),
                               _("check the folder's permissions or set memory.path")) from None

    # ------------------------------------------------------------------ opening

    def _open(self) -> sqlite3.Connection:
        folder = self.path.parent
        if not folder.exists():
            folder.mkdir(parents=True, mode=0o700, exist_ok=True)
            os.chmod(folder, 0o700)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
        os.chmod(self.path, 0o600)
        db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None,
                             check_same_thread=False)
        self._db = db
        db.execute("PRAGMA busy_timeout = 30000")
        if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
            raise sqlite3.DatabaseError(_("WAL mode is not available"))
        db.execute("PRAGMA synchronous = NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(
                _("schema {version} is newer than this chatcli-memory ({supported}); "
                  "upgrade chatcli-memory").format(version=version, supported=SCHEMA_VERSION))
        if version < SCHEMA_VERSION:
            try:  # one transaction: a second process creating it at once waits, then redoes it
                # (the index is made again from the items: version 1's did not stem)
                db.executescript(f"BEGIN IMMEDIATE; DROP TABLE IF EXISTS items_fts; {_SCHEMA} "
                                 "INSERT INTO items_fts (items_fts) VALUES ('rebuild'); "
                                 f"PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        else:
            db.execute("SELECT count(*) FROM items").fetchone()
        for suffix in ("-wal", "-shm"):
            side = Path(f"{self.path}{suffix}")
            if side.exists():
                os.chmod(side, 0o600)
        return db

    @contextmanager
    def _write(self, db: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``: the write lock first, so a concurrent
        writer waits instead of failing to upgrade)."""
        with self._lock:
            db = db or self._connection()
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise ChatcliError(_("memory file {path} is closed").format(path=self.path),
                               _("open the memory backend again"))
        return self._db

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._connection()
            except sqlite3.DatabaseError as err:
                raise ChatcliError(_("memory file {path} cannot be read ({reason})").format(
                                       path=self.path, reason=err),
                                   _fix(self.path)) from None

    # ------------------------------------------------------------------ rows

    @staticmethod
    def _row(item: MemoryItem) -> tuple[Any, ...]:
        return (item.id, item.kind.value, item.text, item.category, item.subject, item.key,
                item.confidence, item.provenance.value, item.scope, item.created_at,
                item.updated_at, item.last_used_at, item.uses, int(item.archived),
                item.superseded_by, json.dumps(item.metadata, ensure_ascii=False))

    @staticmethod
    def _item(row: Sequence[Any]) -> MemoryItem:
        values = dict(zip(_COLUMNS, row, strict=False))
        values["archived"] = bool(values["archived"])
        values["metadata"] = json.loads(values["metadata"] or "{}")
        return MemoryItem.model_validate(values)

    _SELECT = "SELECT " + ", ".join(f"items.{c}" for c in _COLUMNS) + " FROM items"
    _SELECT_ROWID = ("SELECT items.rowid, " + ", ".join(f"items.{c}" for c in _COLUMNS)
                     + " FROM items")

    @staticmethod
    def _filters(kind: MemoryKind | None, scopes: Sequence[str] | None,
                 include_archived: bool) -> tuple[list[str], list[Any]]:
        where: list[str] = []
        args: list[Any] = []
        if not include_archived:
            where.append("items.archived = 0")
        if kind is not None:
            where.append("items.kind = ?")
            args.append(MemoryKind(kind).value)
        if scopes is not None:
            where.append(f"items.scope IN ({', '.join('?' * len(scopes))})")
            args.extend(scopes)
        return where, args

    # ------------------------------------------------------------------ the protocol

    def store(self, item: MemoryItem) -> MemoryItem:
        """Add ``item``; ``ValueError`` when its id exists."""
        self._df.clear()
        try:
            with self._write() as db:
                db.execute(f"INSERT INTO items ({', '.join(_COLUMNS)}) VALUES "
                           f"({', '.join('?' * len(_COLUMNS))})", self._row(item))
        except sqlite3.IntegrityError:
            raise ValueError(f"memory item {item.id} exists") from None
        return item

    def update(self, item: MemoryItem) -> MemoryItem:
        """Replace the item with ``item`` (``updated_at`` now); KeyError when there is none."""
        self._df.clear()
        item = item.model_copy(update={"updated_at": self._clock()})
        row = self._row(item)
        with self._write() as db:
            changed = db.execute(
                f"UPDATE items SET {', '.join(f'{c} = ?' for c in _COLUMNS[1:])} WHERE id = ?",
                (*row[1:], item.id)).rowcount
        if not changed:
            raise KeyError(item.id)
        return item

    def delete(self, item_id: str) -> bool:
        self._df.clear()
        with self._write() as db:
            return db.execute("DELETE FROM items WHERE id = ?", (item_id,)).rowcount > 0

    def get(self, item_id: str) -> MemoryItem | None:
        with self._reading() as db:
            row = db.execute(f"{self._SELECT} WHERE id = ?", (item_id,)).fetchone()
        return self._item(row) if row else None

    def list(self, *, kind: MemoryKind | None = None, scopes: Sequence[str] | None = None,
             include_archived: bool = False, limit: int | None = None) -> list[MemoryItem]:
        if scopes is not None and not scopes:
            return []
        where, args = self._filters(kind, scopes, include_archived)
        sql = self._SELECT + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY items.created_at DESC, items.rowid DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(max(0, limit))
        with self._reading() as db:
            return [self._item(row) for row in db.execute(sql, args)]

    def search(self, query: str, *, kind: MemoryKind | None = None,
               scopes: Sequence[str] | None = None, include_archived: bool = False,
               limit: int = 10) -> builtins.list[MemoryHit]:  # (`list`: the method above)
        words = query_words(query)
        if not words or (scopes is not None and not scopes) or limit <= 0:
            return []
        where, args = self._filters(kind, scopes, include_archived)
        now = self._clock()
        with self._reading() as db:
            match = " OR ".join(f'"{w}"' for w in self._affordable(db, words))
            # the best CANDIDATES by text (BM25, computed inside FTS5), then the blend with
            # recency and confidence on those; the whole match set when filters left too few
            wanted = max(CANDIDATES, limit * 20)
            ranked = db.execute("SELECT rowid, -bm25(items_fts, 1.0, 0.6, 0.3) AS text "
                                "FROM items_fts WHERE items_fts MATCH ? ORDER BY text DESC "
                                "LIMIT ?", (match, wanted)).fetchall()
            best = self._blend(db, ranked, where, args, now)
            if len(best) < limit and len(ranked) >= wanted:
                ranked = db.execute("SELECT rowid, -bm25(items_fts, 1.0, 0.6, 0.3) FROM "
                                    "items_fts WHERE items_fts MATCH ?", (match,)).fetchall()
                best = self._blend(db, ranked, where, args, now)
            best = best[:limit]
            rows = {row[0]: row[1:] for row in db.execute(
                f"{self._SELECT_ROWID} WHERE items.rowid IN ({', '.join('?' * len(best))})",
                [rowid for rowid, _score in best])} if best else {}
        return [MemoryHit(self._item(rows[rowid]), score) for rowid, score in best
                if rowid in rows]

    def _affordable(self, db: sqlite3.Connection, words: builtins.list[str]
                    ) -> builtins.list[str]:
        """``words`` without the commonest ones once together they would match more than
        :data:`MATCH_BUDGET` items (BM25 gives them little weight and ranking every item that
        holds them is what costs); the rarest word always stays."""
        counts = []
        for word in words:
            cached = self._df.get(word)
            if cached is None:
                cached = db.execute(  # counted up to the budget: enough to decide
                    "SELECT count(*) FROM (SELECT 1 FROM items_fts WHERE items_fts MATCH ? "
                    "LIMIT ?)", (f'"{word}"', MATCH_BUDGET + 1)).fetchone()[0]
                self._df[word] = cached
            counts.append((cached, word))
        if len(self._df) > 5_000:
            self._df.clear()
        total = 0
        kept: builtins.list[str] = []
        for count, word in sorted(counts):
            if kept and total + count > MATCH_BUDGET:
                break
            total += count
            kept.append(word)
        return [w for w in words if w in kept]

    def _blend(self, db: sqlite3.Connection, ranked: builtins.list[tuple[int, float]],
               where: builtins.list[str], args: builtins.list[Any], now: float
               ) -> builtins.list[tuple[int, float]]:
        """The filtered rows of ``ranked`` (rowid, text score) with their blended scores,
        best first."""
        text = dict(ranked)
        scored: list[tuple[float, float, int]] = []
        rowids = list(text)
        for start in range(0, len(rowids), 500):
            chunk = rowids[start:start + 500]
            sql = ("SELECT items.rowid, items.updated_at, items.last_used_at, items.confidence, "
                   # NOT INDEXED: look the rows up by rowid, never scan the listing index
                   f"items.created_at FROM items NOT INDEXED WHERE items.rowid IN "
                   f"({', '.join('?' * len(chunk))})" + "".join(f" AND {w}" for w in where))
            for rowid, updated, used, confidence, created in db.execute(sql, [*chunk, *args]):
                age = max(0.0, now - max(updated, used or 0.0))
                recency = RECENCY_SCALE / (RECENCY_SCALE + age)
                score = text[rowid] * (0.6 + 0.25 * recency + 0.15 * confidence)
                scored.append((score, created, rowid))
        scored.sort(reverse=True)
        return [(rowid, float(score)) for score, _created, rowid in scored]

    def touch(self, item_ids: Sequence[str], when: float | None = None) -> None:
        ids = list(dict.fromkeys(item_ids))
        if not ids:
            return
        when = self._clock() if when is None else when
        with self._write() as db:
            db.execute(f"UPDATE items SET uses = uses + 1, last_used_at = ? WHERE id IN "
                       f"({', '.join('?' * len(ids))})", (when, *ids))

    def reinforce(self, item_id: str, delta: float) -> MemoryItem | None:
        with self._write() as db:
            changed = db.execute("UPDATE items SET confidence = min(1.0, max(0.0, confidence "
                                 "+ ?)) WHERE id = ?", (delta, item_id)).rowcount
            row = db.execute(f"{self._SELECT} WHERE id = ?", (item_id,)).fetchone()
        return self._item(row) if changed and row else None

    def close(self) -> None:
        with self._lock:
            db, self._db = self._db, None
        if db is not None:
            db.close()

    # ------------------------------------------------------------------ beyond the protocol

    def counts(self) -> dict[tuple[str, bool], int]:
        """(kind, archived) → how many items (for ``/memory status``)."""
        with self._reading() as db:
            rows = db.execute("SELECT kind, archived, count(*) FROM items GROUP BY kind, "
                              "archived").fetchall()
        return {(kind, bool(archived)): count for kind, archived, count in rows}
