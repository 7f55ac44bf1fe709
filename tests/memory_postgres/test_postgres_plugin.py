"""The plugin: its entry point registers the ``postgres`` backend, its entry module imports no
driver, and the settings come from ``[memory]`` and the environment (checked)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from chatcli import ConfigError, PluginHost, load_settings
from chatcli_memory_api import MemoryBackend, MemoryBackendSpec, MemoryItem
from chatcli_memory_postgres.settings import resolve


def _write_config(home: Path, text: str) -> None:
    (home / "config" / "config.toml").write_text(text)


def _host(monkeypatch: pytest.MonkeyPatch) -> PluginHost:
    def warn(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    monkeypatch.setenv("CHATCLI_PLUGINS", "memory-postgres")
    host = PluginHost(warn=warn)
    host.load_entry_points()
    return host


def test_entry_module_imports_no_driver() -> None:
    code = ("import sys, chatcli_memory_postgres.plugin as p; "
            "assert 'psycopg' not in sys.modules, 'psycopg imported'; "
            "assert 'chatcli_memory_postgres.backend' not in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr


def test_entry_point_registers_the_backend_and_opens_it_from_config(
        monkeypatch: pytest.MonkeyPatch, no_database_url: Path, pg_url: str) -> None:
    _write_config(no_database_url, f'[memory]\nbackend = "postgres"\npostgres_url = "{pg_url}"\n')
    host = _host(monkeypatch)
    spec = host.collect("register_memory_backends", MemoryBackendSpec, "memory backend")[
        "postgres"]
    assert "PostgreSQL" in spec.description
    backend = spec.factory(load_settings())
    try:
        assert isinstance(backend, MemoryBackend) and backend.name == "postgres"
        item = backend.store(MemoryItem(text="opened through the entry point"))
        assert backend.get(item.id) == item
    finally:
        backend.close()


def test_database_url_is_the_fallback(monkeypatch: pytest.MonkeyPatch, no_database_url: Path,
                                      pg_url: str) -> None:
    monkeypatch.setenv("DATABASE_URL", pg_url)
    config = resolve(load_settings())
    assert (config.url, config.source) == (pg_url, "DATABASE_URL")
    _write_config(no_database_url, '[memory]\npostgres_url = "postgresql://from-config/db"\n')
    assert resolve(load_settings()).url == "postgresql://from-config/db"
    monkeypatch.setenv("CHATCLI_MEMORY_POSTGRES_URL", "postgresql://from-env/db")
    config = resolve(load_settings())
    assert (config.url, config.source) == ("postgresql://from-env/db",
                                           "CHATCLI_MEMORY_POSTGRES_URL")


def test_the_kernel_variable_fills_the_table(monkeypatch: pytest.MonkeyPatch,
                                             no_database_url: Path) -> None:
    monkeypatch.setenv("CHATCLI_MEMORY__POSTGRES_URL", "postgresql://dunder/db")
    assert resolve(load_settings()).url == "postgresql://dunder/db"


def test_no_server_configured_says_how_to_set_one(no_database_url: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    line = str(caught.value)
    assert "no server" in line and "memory.postgres_url" in line and "DATABASE_URL" in line
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
    _write_config(no_database_url, f"[memory]\n{table}\n")
    with pytest.raises(ConfigError, match=key):
        resolve(load_settings())


def test_schema_and_timeout_settings(no_database_url: Path) -> None:
    _write_config(no_database_url, '[memory]\npostgres_url = "postgresql://h/db"\n'
                                   'postgres_schema = "team_memory"\n'
                                   "postgres_connect_timeout = 2.5\n")
    config = resolve(load_settings())
    assert (config.schema, config.connect_timeout) == ("team_memory", 2.5)
