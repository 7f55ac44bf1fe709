"""chatcli-sessions-postgres in Brazilian Portuguese: its setting errors and their fixes, in
process and through the real command line (and English unchanged). No server needed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from chatcli import ConfigError, load_settings
from chatcli_sessions_postgres.settings import resolve

CHATCLI = Path(sys.executable).parent / "chatcli"


def _write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


def test_setting_errors_in_portuguese(no_database_url: Path,
                                      chatcli_language: Callable[[str], None]) -> None:
    chatcli_language("pt_BR")
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    assert str(caught.value) == (
        "sessions: o armazenamento postgres não tem servidor para usar — defina [sessions] "
        "postgres_url (chatcli config set sessions.postgres_url "
        "postgresql://USER@HOST:5432/DBNAME) ou DATABASE_URL")
    _write_config(no_database_url, '[sessions]\npostgres_url = "postgresql://h/db"\n'
                                   "postgres_connect_timeout = 0\n")
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    assert str(caught.value).startswith(
        "sessions: [sessions] postgres_connect_timeout precisa ser em segundos (1-600), não 0")
    chatcli_language("en")
    with pytest.raises(ConfigError) as caught:
        resolve(load_settings())
    assert "must be seconds (1-600), not 0 — set it to a number such as 5" in str(caught.value)


def test_the_command_line_says_it_in_portuguese(no_database_url: Path) -> None:
    _write_config(no_database_url, '[sessions]\nbackend = "postgres"\n')
    env = {**os.environ, "CHATCLI_PLUGINS": "sessions,sessions-postgres"}
    done = subprocess.run([str(CHATCLI), "sessions", "list"], capture_output=True, text=True,
                          timeout=60, env={**env, "CHATCLI_LANG": "pt_BR"})
    assert done.returncode == 2, done.stderr
    assert ("[sessions] backend = 'postgres': o armazenamento não abriu: sessions: o "
            "armazenamento postgres não tem servidor para usar") in done.stderr
    english = subprocess.run([str(CHATCLI), "sessions", "list"], capture_output=True,
                             text=True, timeout=60, env={**env, "CHATCLI_LANG": "en"})
    assert ("[sessions] backend = 'postgres': the store failed to open: sessions: the "
            "postgres store has no server to use") in english.stderr
