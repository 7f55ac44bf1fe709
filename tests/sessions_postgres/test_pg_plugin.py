"""The plugin: its entry point registers the ``postgres`` store, its entry module imports no
driver, the settings come from ``[sessions]`` and the environment (checked, never from a
project)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from chatcli import ConfigError, PluginHost, load_settings
from chatcli_sessions_api import SessionStore, SessionStoreSpec
from chatcli_sessions_postgres.settings import resolve
from chatcli_sessions_postgres.store import PostgresSessionStore


def _write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


def _host(monkeypatch: pytest.MonkeyPatch) -> PluginHost:
    def warn(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    monkeypatch.setenv("CHATCLI_PLUGINS", "sessions-postgres")
    host = PluginHost(warn=warn)
    host.load_entry_points()
    return host


def test_entry_module_imports_no_driver() -> None:
    code = ("import sys, chatcli_sessions_postgres.plugin as p; "
            "assert 'psycopg' not in sys.modules, 'psycopg imported'; "
            "assert 'chatcli_sessions_postgres.store' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def test_entry_point_registers_the_store_and_opens_it_from_config(
        monkeypatch: pytest.MonkeyPatch, no_database_url: Path, pg_url: str) -> None:
    _write_config(no_database_url,
                  f'[sessions]\nbackend = "postgres"\npostgres_url = "{pg_url}"\n')
    host = _host(monkeypatch)
    spec = host.collect("register_session_stores", SessionStoreSpec, "session store")[
        "postgres"]
    assert "PostgreSQL" in spec.description
    store = spec.factory(load_settings())
    try:
        assert isinstance(store, SessionStore) and isinstance(store, PostgresSessionStore)
        assert store.list() == [] and store.integrity() == "ok"
    finally:
        store.close()


def test_url_sources_in_order(monkeypatch: pytest.MonkeyPatch, no_database_url: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://from-database-url/db")
    config = resolve(load_settings())
    assert (config.url, config.source) == ("postgresql://from-database-url/db", "DATABASE_URL")
    _write_config(no_database_url, '[sessions]\npostgres_url = "postgresql://from-config/db"\n')
    config = resolve(load_settings())
    assert (config.url, config.source) == ("postgresql://from-config/db",
                                           "[sessions] postgres_url")
    monkeypatch.setenv("CHATCLI_SESSIONS_POSTGRES_URL", "postgresql://from-env/db")
    config = resolve(load_settings())
    assert (config.url, config.source) == ("postgresql://from-env/db",
                                           "CHATCLI_SESSIONS_POSTGRES_URL")


def test_the_kernel_variable_fills_the_table(monkeypatch: pytest.MonkeyPatch,
                                             no_database_url: Path) -> None:
    monkeypatch.setenv("CHATCLI_SESSIONS__POSTGRES_URL", "postgresql://dunder/db")
    assert resolve(load_settings()).url == "postgresql://dunder/db"


def test_no_server_configured_says_how_to_set_one(no_database_url: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    line = str(caught.value)
    assert "no server" in line and "sessions.postgres_url" in line and "DATABASE_URL" in line
    assert "\n" not in line


@pytest.mark.parametrize("table, key", [
    ("postgres_url = 5", "postgres_url"),
    ('postgres_url = ""', "postgres_url"),
    ('postgres_url = "postgresql://h/db"\npostgres_schema = "bad-name; drop"', "postgres_schema"),
    ('postgres_url = "postgresql://h/db"\npostgres_connect_timeout = "soon"',
     "postgres_connect_timeout"),
    ('postgres_url = "postgresql://h/db"\npostgres_connect_timeout = 0',
     "postgres_connect_timeout"),
])
def test_wrong_settings_name_the_key(no_database_url: Path, table: str, key: str) -> None:
    _write_config(no_database_url, f"[sessions]\n{table}\n")
    with pytest.raises(ConfigError, match=key):
        resolve(load_settings())


def test_schema_setting_puts_the_tables_in_their_own_schema(
        no_database_url: Path, pg_server, pg_database: str, pg_url: str) -> None:
    _write_config(no_database_url, f'[sessions]\npostgres_url = "{pg_url}"\n'
                                   'postgres_schema = "team_sessions"\n'
                                   "postgres_connect_timeout = 2.5\n")
    config = resolve(load_settings())
    assert (config.schema, config.connect_timeout) == ("team_sessions", 2.5)
    PostgresSessionStore.open(config).close()
    tables = pg_server.psql("SELECT string_agg(table_name, ',' ORDER BY table_name) FROM "
                            "information_schema.tables WHERE table_schema = 'team_sessions'",
                            dbname=pg_database)
    assert "chatcli_session_messages" in tables and "chatcli_sessions" in tables


@pytest.mark.parametrize(("key", "value"), [
    ("sessions.postgres_url", "postgresql://u:p@attacker.example/loot"),
    ("sessions.postgres_schema", "loot"),
    ("sessions.postgres_connect_timeout", 600),
])
@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_a_project_cannot_point_sessions_at_a_server(key: str, value: object,
                                                     trusted: bool) -> None:
    from chatcli._trust import filter_project_layer, setting_rules

    host = PluginHost(warn=lambda line: None)
    host.load_entry_points()
    table, name = key.split(".")
    kept, waiting, never = filter_project_layer({table: {name: value}}, Path("/srv/p"), {},
                                                trusted, setting_rules(host))
    assert kept == {} and never == [key] and waiting == []
