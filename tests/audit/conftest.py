"""Fixtures of the audit tests: a throwaway PostgreSQL server for this worker's tests of the
audit table (started from the installed binaries, its files in memory when there is room), a
fresh database per test.

Without PostgreSQL's binaries those tests are skipped with a message saying that ``.ci/run``
installs them; with ``CHATCLI_REQUIRE_POSTGRES=1`` (set by ``.ci/run``) they fail instead.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_testing.postgres_server import PostgresServer, PostgresUnavailable

MEMORY = Path("/dev/shm")


def _in_memory() -> bool:
    return MEMORY.is_dir() and os.access(MEMORY, os.W_OK) and \
        shutil.disk_usage(MEMORY).free > 2 * 1024**3


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for this worker's audit tests (removed at the end)."""
    saved = tempfile.tempdir
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
def pg_url(pg_server: PostgresServer) -> str:
    """A team member's URL (password included) to a new, empty database."""
    from chatcli_testing.postgres_server import PASSWORD_ROLE

    return pg_server.team_url(pg_server.create_database(owner=PASSWORD_ROLE))
