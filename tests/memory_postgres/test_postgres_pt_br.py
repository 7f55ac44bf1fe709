"""chatcli-memory-postgres in Brazilian Portuguese: its setting errors and their fixes, in
process and through the real command line (and English unchanged). No server needed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli import ConfigError, load_settings
from chatcli_memory_postgres.settings import resolve

CHATCLI = Path(sys.executable).parent / "chatcli"
NO_SERVER = ("memory: o backend postgres não tem servidor para usar — defina [memory] "
             "postgres_url (chatcli config set memory.postgres_url "
             "postgresql://USER@HOST:5432/DBNAME) ou DATABASE_URL")


def _write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


def test_setting_errors_in_portuguese(no_database_url: Path,
                                      chatcli_language: Callable[[str], None]) -> None:
    chatcli_language("pt_BR")
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    assert str(caught.value) == NO_SERVER
    _write_config(no_database_url, '[memory]\npostgres_url = "postgresql://h/db"\n'
                                   'postgres_schema = "bad-name; drop"\n')
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    assert str(caught.value).startswith(
        "memory: [memory] postgres_schema precisa ser um nome SQL simples, não 'bad-name; drop'")
    chatcli_language("en")
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    assert "must be a plain SQL name, not 'bad-name; drop' — use letters" in str(caught.value)


def test_the_command_line_says_it_in_portuguese(no_database_url: Path) -> None:
    _write_config(no_database_url, '[memory]\nbackend = "postgres"\n')
    done = subprocess.run([str(CHATCLI), "memory", "list"], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "CHATCLI_LANG": "pt_BR"})
    assert done.returncode != 0
    assert NO_SERVER in done.stderr, done.stderr
    english = subprocess.run([str(CHATCLI), "memory", "list"], capture_output=True, text=True,
                             timeout=60, env={**os.environ, "CHATCLI_LANG": "en"})
    assert "memory: the postgres backend has no server to use" in english.stderr
