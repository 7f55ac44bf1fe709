"""The SQLite file itself: private (0600 in a 0700 folder, the WAL's side files too), in WAL
mode, under chatcli's data folder; two processes writing to it at once lose nothing; a file
from a newer chatcli-memory is refused in one line; queries never reach FTS5's syntax."""

from __future__ import annotations

import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from chatcli import ChatcliError
from chatcli_memory.runtime import Runtime
from chatcli_memory.sqlite_backend import SqliteBackend, fts_query
from chatcli_memory_api import MemoryItem


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_file_is_private_and_in_wal_mode(home: Path, workspace: Path) -> None:
    backend = Runtime(None, None, workspace).sqlite()
    try:
        backend.store(MemoryItem(text="private"))
        path = home / "data" / "memory" / "memory.db"
        assert backend.path == path
        assert _mode(path.parent) == 0o700 and _mode(path) == 0o600
        for side in (Path(f"{path}-wal"), Path(f"{path}-shm")):
            assert not side.exists() or _mode(side) == 0o600
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        backend.close()


def test_memory_path_moves_it(workspace: Path, tmp_path: Path) -> None:
    from chatcli import Settings

    target = tmp_path / "elsewhere" / "mem.sqlite"
    backend = Runtime(None, Settings(memory={"path": str(target)}), workspace).sqlite()
    backend.close()
    assert target.exists() and _mode(target) == 0o600


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    SqliteBackend(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(ChatcliError, match=r"schema 99 is newer than this chatcli-memory"):
        SqliteBackend(path)


WRITER = textwrap.dedent("""
    import sys
    from chatcli_memory_api import MemoryItem
    from chatcli_memory.sqlite_backend import SqliteBackend

    path, tag, shared = sys.argv[1], sys.argv[2], sys.argv[3]
    backend = SqliteBackend(path)
    for n in range(150):
        backend.store(MemoryItem(text=f"process {tag} wrote {n}"))
        backend.touch([shared])
        backend.reinforce(shared, 0.001)
    backend.close()
""")


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    backend = SqliteBackend(path)
    shared = backend.store(MemoryItem(text="shared", confidence=0.0))
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, shared.id])
             for tag in ("a", "b", "c")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    got = backend.get(shared.id)
    assert got is not None and got.uses == 450
    assert got.confidence == pytest.approx(0.45)
    assert len(backend.list()) == 451
    assert len(backend.search("process", limit=1000)) == 450
    backend.close()


@pytest.mark.parametrize(("text", "query"), [
    ("uv", '"uv"'),
    ('NOT "uv" OR col:x*', '"uv" OR "col" OR "x"'),
    ("how do I run the tests?", '"run" OR "tests"'),
    ("the and of", '"the" OR "and" OR "of"'),  # only stopwords: kept
    ("?!", ""),
    ("café CAFÉ", '"café"'),
])
def test_queries_are_words_only(text: str, query: str) -> None:
    assert fts_query(text) == query
