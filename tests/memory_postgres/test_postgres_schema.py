"""The schema: created on first use, once, versioned; a generated tsvector with a GIN index;
its own schema when asked; usable by a role that may not create tables."""

from __future__ import annotations

import pytest
from chatcli import ChatcliError
from chatcli_memory_api import MemoryItem
from chatcli_memory_postgres.backend import PostgresMemoryBackend
from chatcli_memory_postgres.schema import SCHEMA_VERSION
from chatcli_memory_postgres.settings import PostgresConfig
from chatcli_testing.postgres_server import PostgresServer


def _tables(server: PostgresServer, db: str) -> list[str]:
    return server.psql("SELECT table_schema || '.' || table_name FROM information_schema.tables "
                       "WHERE table_name LIKE 'chatcli_memory%' ORDER BY 1", dbname=db).split()


def test_first_use_creates_the_versioned_schema_once(pg_server: PostgresServer,
                                                     pg_database: str, open_backend) -> None:
    assert _tables(pg_server, pg_database) == []
    open_backend()
    open_backend()  # idempotent
    assert _tables(pg_server, pg_database) == ["public.chatcli_memory_items",
                                               "public.chatcli_memory_meta"]
    assert pg_server.psql("SELECT name || '=' || value FROM chatcli_memory_meta",
                          dbname=pg_database) == f"schema_version={SCHEMA_VERSION}"
    indexes = pg_server.psql("SELECT indexdef FROM pg_indexes "
                             "WHERE tablename = 'chatcli_memory_items'", dbname=pg_database)
    assert "USING gin (tsv)" in indexes


def test_the_search_column_is_generated_from_text_subject_and_category(
        pg_server: PostgresServer, pg_database: str, open_backend) -> None:
    backend = open_backend()
    backend.store(MemoryItem(id="mem_a", text="We run pre-commit; always.", subject="Hooks",
                             category="file.py"))
    words = pg_server.psql("SELECT string_agg(word, ' ' ORDER BY word) FROM "
                           "ts_stat('SELECT tsv FROM chatcli_memory_items')", dbname=pg_database)
    # stems, English stop words left out ("we"): "hooking" finds "Hooks"
    assert words == "alway commit file hook pre py run"
    # a row written by hand (psql, another tool) is searchable too
    pg_server.psql("INSERT INTO chatcli_memory_items (id, kind, text, confidence, provenance, "
                   "scope, created_at, updated_at) VALUES ('mem_b', 'fact', 'Hand written row', "
                   "0.5, 'stated', 'global', 1, 1)", dbname=pg_database)
    assert [hit.item.id for hit in backend.search("written")] == ["mem_b"]


def test_search_uses_the_gin_index(pg_server: PostgresServer, pg_database: str,
                                   open_backend) -> None:
    open_backend()
    plan = pg_server.psql("SET enable_seqscan = off; EXPLAIN SELECT id FROM chatcli_memory_items "
                          "WHERE tsv @@ to_tsquery('simple', 'uv | pip')", dbname=pg_database)
    assert "chatcli_memory_items_tsv" in plan


def test_own_schema_when_asked(pg_server: PostgresServer, pg_database: str,
                               open_backend) -> None:
    backend = open_backend(schema="team_memory")
    backend.store(MemoryItem(text="kept in its own schema"))
    assert _tables(pg_server, pg_database) == ["team_memory.chatcli_memory_items",
                                               "team_memory.chatcli_memory_meta"]
    assert open_backend().list() == []  # the public schema's memory is another one


def test_a_newer_schema_is_refused(pg_server: PostgresServer, pg_database: str,
                                   open_backend) -> None:
    open_backend()
    pg_server.psql("UPDATE chatcli_memory_meta SET value = '99'", dbname=pg_database)
    with pytest.raises(ChatcliError, match="schema version 99, newer") as caught:
        open_backend()
    assert "upgrade chatcli-memory-postgres" in str(caught.value)


def test_a_member_without_create_uses_the_schema_the_owner_made(
        pg_server: PostgresServer, pg_database: str, open_backend) -> None:
    owner = open_backend()  # the database's owner opens it once: the tables exist
    owner.store(MemoryItem(id="mem_owner", text="written by the owner"))
    member_role = f"member_{pg_database}"
    pg_server.psql(f"CREATE ROLE {member_role} LOGIN PASSWORD 'member-pass-1'; "
                   "REVOKE CREATE ON SCHEMA public FROM PUBLIC; "
                   "GRANT SELECT, INSERT, UPDATE, DELETE ON chatcli_memory_items, "
                   f"chatcli_memory_meta TO {member_role}", dbname=pg_database)
    url = pg_server.url(pg_database, user=member_role, password="member-pass-1")
    member = PostgresMemoryBackend.open(PostgresConfig(url=url))
    try:
        member.touch(["mem_owner"])
        member.store(MemoryItem(text="written by a member"))
        assert len(owner.list()) == 2
        got = owner.get("mem_owner")
        assert got is not None and got.uses == 1
    finally:
        member.close()
        pg_server.psql(f"DROP OWNED BY {member_role}; DROP ROLE {member_role}",
                       dbname=pg_database)
