"""Conversations are private: the database and its WAL files are 0600, a folder chatcli creates
for them is 0700 — also for files an older version left world-readable."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_sessions.store import SessionStore
from test_cli import run_chatcli


def mode(path: Path) -> int:
    """The permission bits of ``path``."""
    return stat.S_IMODE(path.stat().st_mode)


def db_files(db: Path) -> list[Path]:
    """The database and the -wal/-shm files SQLite keeps next to it."""
    return [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The common umask 022, under which new files are world-readable unless chatcli says not."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_database_and_the_folders_created_for_it_are_private(home: Path) -> None:
    db = home / "fresh" / "chatcli" / "sessions.db"
    with SessionStore(db):
        assert [mode(p) for p in db_files(db)] == [0o600, 0o600, 0o600]
        assert mode(db.parent) == 0o700 and mode(db.parent.parent) == 0o700
    assert mode(home) == 0o755  # the folder that existed is left alone


def test_files_an_older_version_left_readable_are_narrowed_on_open(home: Path) -> None:
    folder = home / "old"
    folder.mkdir(mode=0o755)
    db = folder / "sessions.db"
    older = sqlite3.connect(db)  # as an older chatcli did: default modes, WAL files present
    older.execute("PRAGMA journal_mode = WAL")
    older.execute("CREATE TABLE t(x)")
    older.execute("INSERT INTO t VALUES (1)")
    older.commit()
    try:
        assert [mode(p) for p in db_files(db)] == [0o644, 0o644, 0o644]
        with SessionStore(db) as store:
            assert store.integrity() == "ok"
            assert [mode(p) for p in db_files(db)] == [0o600, 0o600, 0o600]
    finally:
        older.close()
    assert mode(folder) == 0o755  # the user's folder: not chmodded


def test_the_real_command_line_creates_a_private_database(home: Path) -> None:
    data = home / "new-data"
    env = dict(os.environ, CHATCLI_DATA_DIR=str(data))
    result = run_chatcli("sessions", "list", env=env)
    assert result.returncode == 0, result.stderr
    assert mode(data) == 0o700
    assert mode(data / "sessions.db") == 0o600
