"""The pytest plugin (entry point ``pytest11: chatcli``): server fixtures and ``chatcli_home``.

PostgreSQL: ``pg_server`` is one throwaway server per xdist worker, started from the installed
binaries (its files in memory, ``/dev/shm``, when there is room); ``pg_url`` a team member's URL
to a new database of the test's own; ``pg_schema_url`` a new schema of one database the worker's
tests share (far cheaper). Without PostgreSQL's binaries those tests are skipped with a message
naming what installs them; with ``CHATCLI_REQUIRE_POSTGRES=1`` (``.ci/run`` sets it) they fail,
so CI cannot pass by skipping them.

Loaded by every pytest run in an environment where chatcli-testing is installed (a test
dependency, never chatcli itself), so it imports only the standard library and pytest at
start-up; the servers load when a fixture is first used.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from chatcli_testing.anthropic_wire import AnthropicServer
    from chatcli_testing.ollama_wire import OllamaServer
    from chatcli_testing.openai_wire import OpenAIServer
    from chatcli_testing.postgres_server import PostgresServer

__all__ = [
    "anthropic_server",
    "chatcli_home",
    "isolate_environment",
    "ollama_server",
    "openai_server",
    "pg_database",
    "pg_schema_url",
    "pg_server",
    "pg_shared_database",
    "pg_url",
]

#: Variables that would let the user's real environment leak into a test.
LEAKY_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_HOST",
    "GITHUB_TOKEN",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN",
    "OPENAI_API_VERSION",
)


def isolate_environment(monkeypatch: pytest.MonkeyPatch, home: Path) -> Path:
    """Point chatcli's config, data and cache dirs at ``home``/config, /data and /cache (made
    here), clear provider keys, base URLs and CHATCLI_*, and speak English (``CHATCLI_LANG=en``:
    a test of another language sets it); returns ``home``."""
    for name in list(os.environ):
        if (name in LEAKY_VARIABLES or name.startswith("CHATCLI_")
                or name.endswith("_API_KEY")):
            monkeypatch.delenv(name, raising=False)
    config, data, cache = home / "config", home / "data", home / "cache"
    for folder in (config, data, cache):
        folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("CHATCLI_CACHE_DIR", str(cache))
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(config))
    monkeypatch.setenv("CHATCLI_DATA_DIR", str(data))
    monkeypatch.setenv("CHATCLI_LANG", "en")
    return home


@pytest.fixture
def chatcli_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary chatcli home: ``CHATCLI_CONFIG_DIR`` = ``<home>/config``, ``CHATCLI_DATA_DIR``
    = ``<home>/data``, ``CHATCLI_CACHE_DIR`` = ``<home>/cache`` (all three made); provider keys,
    base URLs and other ``CHATCLI_*`` variables are cleared."""
    return isolate_environment(monkeypatch, tmp_path / "chatcli-home")


@pytest.fixture
def chatcli_language(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[str], None]]:
    """``chatcli_language("pt_BR")``: chatcli speaks that language from then on in the test
    (``CHATCLI_LANG`` set, catalogs read again). Text made when a module was imported (click's
    help, constants) keeps the language it was made in: run the command line in a subprocess
    with ``CHATCLI_LANG`` to see those."""
    from chatcli import forget_language

    def use(code: str) -> None:
        monkeypatch.setenv("CHATCLI_LANG", code)
        forget_language()

    yield use
    monkeypatch.setenv("CHATCLI_LANG", "en")
    forget_language()


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    """A started :class:`chatcli_testing.OpenAIServer` (``url`` ends in ``/v1``)."""
    from chatcli_testing.openai_wire import OpenAIServer

    with OpenAIServer() as server:
        yield server


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    """A started :class:`chatcli_testing.AnthropicServer`."""
    from chatcli_testing.anthropic_wire import AnthropicServer

    with AnthropicServer() as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    """A started :class:`chatcli_testing.OllamaServer`."""
    from chatcli_testing.ollama_wire import OllamaServer

    with OllamaServer() as server:
        yield server


#: Where the PostgreSQL servers keep their files when it has room: memory. A database is some 300
#: files and a test makes one; on a disk mounted with ``discard`` each unlink takes milliseconds
#: (removing a server's folder took 21 s at the end of a quick run).
MEMORY = Path("/dev/shm")


def _in_memory() -> bool:
    return (MEMORY.is_dir() and os.access(MEMORY, os.W_OK)
            and shutil.disk_usage(MEMORY).free > 2 * 1024**3)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for this worker's tests (removed at the end)."""
    from chatcli_testing.postgres_server import PostgresServer, PostgresUnavailable

    saved = tempfile.tempdir  # where PostgresServer.start's mkdtemp makes the server's folder
    try:
        if _in_memory():
            tempfile.tempdir = str(MEMORY)
        server = PostgresServer().start()
    except PostgresUnavailable as err:
        if os.environ.get("CHATCLI_REQUIRE_POSTGRES") == "1":
            pytest.fail(str(err))
        pytest.skip(str(err))
    finally:
        tempfile.tempdir = saved
    yield server
    server.stop()


@pytest.fixture
def pg_database(pg_server: PostgresServer) -> str:
    """A new, empty database owned by the team role (as a team's administrator would make)."""
    from chatcli_testing.postgres_server import PASSWORD_ROLE

    return pg_server.create_database(owner=PASSWORD_ROLE)


@pytest.fixture
def pg_url(pg_server: PostgresServer, pg_database: str) -> str:
    """The team member's URL (password included) to the test's own database."""
    return pg_server.team_url(pg_database)


@pytest.fixture(scope="session")
def pg_shared_database(pg_server: PostgresServer) -> str:
    """One database for this worker's tests that each take a fresh schema in it."""
    from chatcli_testing.postgres_server import PASSWORD_ROLE

    return pg_server.create_database(owner=PASSWORD_ROLE)


@pytest.fixture
def pg_schema_url(pg_server: PostgresServer, pg_shared_database: str) -> str:
    """A URL whose ``search_path`` is a new, empty schema of the shared database (unqualified
    tables land there, as they land in ``public`` by default)."""
    from chatcli_testing.postgres_server import PASSWORD_ROLE

    schema = f"t_{uuid.uuid4().hex[:12]}"
    pg_server.psql(f"CREATE SCHEMA {schema} AUTHORIZATION {PASSWORD_ROLE}",
                   dbname=pg_shared_database)
    return f"{pg_server.team_url(pg_shared_database)}?options=-csearch_path%3D{schema}"
