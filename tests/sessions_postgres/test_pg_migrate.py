"""``chatcli sessions migrate --to postgres`` (a real process) moves a user's SQLite sessions
into PostgreSQL, verifiably: every session — branches, checkpoints, the undo stack,
compactions, names, tool calls, a worker's session under its parent — reads back the same from
both stores, a second run copies nothing, and ``chatcli -c -p`` with the postgres backend goes
on with a migrated session."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatcli import Compaction, Message, ToolCallPart, ToolResultPart
from chatcli_sessions.store import SessionStore as SqliteStore
from chatcli_sessions_api import SessionStore
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.store import PostgresSessionStore
from chatcli_testing import OpenAIServer, Reply
from process_support import CHATCLI, process_env
from sessions_postgres_support import turn, wired

pytestmark = pytest.mark.slow


def _fill(store: SessionStore, project: Path) -> list[str]:
    """Sessions of every shape in ``store``; their ids."""
    first = wired(store, max_checkpoints=3)
    first.metadata["cwd"] = str(project)
    for n in range(4):
        turn(first, f"question {n} about café ☕ and \U0001f642")
    first.rewind(first.checkpoints[1].id)
    turn(first, "a second branch")
    first.undo()
    call = ToolCallPart(name="read", arguments={"path": "notes.txt"})
    first.append(Message.assistant("let me read", [call]))
    first.append(Message(role="tool", parts=[ToolResultPart(call_id=call.id, name="read",
                                                            content="hello notes")]))
    view = first.view()
    first.compact(Compaction(first=view[0].id, last=view[3].id,
                             replacement=[Message.user("summary of the start")],
                             strategy="summarise"))
    store.save(first, name="the first one")

    worker = wired(store)
    worker.metadata.update(cwd=str(project), parent=first.id,
                           subagent={"id": "w1", "type": "explore", "task": "look around"})
    turn(worker, "look around", "found two files")

    second = wired(store)
    second.metadata["cwd"] = str(project / "sub")
    turn(second, "another session", "with its answer")
    return [first.id, worker.id, second.id]


def _same(source: SessionStore, target: SessionStore, session_id: str) -> None:
    ours, theirs = source.info(session_id), target.info(session_id)
    assert ours is not None and theirs is not None
    assert theirs.to_dict() == ours.to_dict()
    for read in ("messages", "checkpoints", "compactions"):
        assert [x.model_dump() for x in getattr(target, read)(session_id)] == \
            [x.model_dump() for x in getattr(source, read)(session_id)], read
    assert target.head_history(session_id) == source.head_history(session_id)
    assert target.workers(session_id) == source.workers(session_id)
    resumed, expected = target.load(session_id), source.load(session_id)
    assert [m.id for m in resumed.view()] == [m.id for m in expected.view()]


def test_migrate_to_postgres_copies_and_verifies_every_session(tmp_path: Path,
                                                               pg_url: str) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    for folder in (home / "config", home / "data", home / "cache", project / ".git",
                   project / "sub"):
        folder.mkdir(parents=True)
    (home / "config" / "config.toml").write_text(f'[sessions]\npostgres_url = "{pg_url}"\n')
    sqlite = SqliteStore(home / "data" / "sessions.db")
    ids = _fill(sqlite, project)
    env = process_env(home, CHATCLI_CACHE_DIR=str(home / "cache"))

    done = subprocess.run([str(CHATCLI), "sessions", "migrate", "--to", "postgres"],
                          cwd=project, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    total = sum(len(sqlite.messages(i)) for i in ids)
    assert done.stdout.strip().splitlines()[-1] == \
        f"migrated 3 sessions ({total} messages), verified"

    postgres = PostgresSessionStore.open(PostgresConfig(url=pg_url))
    try:
        for session_id in ids:
            _same(sqlite, postgres, session_id)
        assert [i.id for i in postgres.list()] == [i.id for i in sqlite.list()]
        again = subprocess.run([str(CHATCLI), "sessions", "migrate", "--to", "postgres"],
                               cwd=project, env=env, capture_output=True, text=True,
                               timeout=120)
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip().splitlines()[-1] == \
            "migrated 0 sessions (0 messages), 3 already there, verified"

        with OpenAIServer() as server:  # the migrated session goes on in PostgreSQL
            server.script(Reply(text="Going on from PostgreSQL."))
            (home / "config" / "config.toml").write_text(
                f'[sessions]\nbackend = "postgres"\npostgres_url = "{pg_url}"\n')
            went_on = subprocess.run(
                [str(CHATCLI), "--resume", "the first one", "-p", "and now?",
                 "--model", "gpt-test"],
                cwd=project, capture_output=True, text=True, timeout=120,
                stdin=subprocess.DEVNULL,
                env={**env, "OPENAI_API_KEY": "sk-test-key-123456",
                     "OPENAI_BASE_URL": server.url, "CHATCLI_PROVIDER": "openai"})
            assert went_on.returncode == 0, went_on.stderr
            assert went_on.stdout.strip() == "Going on from PostgreSQL."
            sent = server.requests[-1].json["messages"]
            assert sent[-1]["content"] == "and now?"
            assert any("summary of the start" in str(m.get("content")) for m in sent)
        assert postgres.messages(ids[0])[-1].text == "Going on from PostgreSQL."
        assert len(sqlite.messages(ids[0])) == len(postgres.messages(ids[0])) - 2
    finally:
        postgres.close()
        sqlite.close()
