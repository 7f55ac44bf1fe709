"""chatcli-postgres-kit's one-line errors in English and in Brazilian Portuguese (no server
needed: a URL that is none, and a connection failure as psycopg words it)."""

from __future__ import annotations

import pytest
from chatcli import ChatcliError, ConfigError
from chatcli_postgres_kit import Target, connection_error


def test_the_errors_in_both_languages(chatcli_language) -> None:
    with pytest.raises(ConfigError, match=r"^memory: \[memory\] postgres_url is not a "
                                          r"PostgreSQL URL .* — use postgresql://"):
        Target("host=x =", "[memory] postgres_url", "memory")
    chatcli_language("pt_BR")
    with pytest.raises(ConfigError, match=r"^memory: \[memory\] postgres_url não é uma URL do "
                                          r"PostgreSQL .* — use postgresql://"):
        Target("host=x =", "[memory] postgres_url", "memory")
    target = Target("postgresql://me@db/notes", "[memory] postgres_url", "memory")
    error = connection_error(OSError("connection failed: timeout expired"), target,
                             readme="chatcli-memory-postgres", make=ChatcliError)
    assert str(error) == (
        "memory: não foi possível usar o PostgreSQL em postgresql://me@db/notes: timeout "
        "expired — confira se o servidor está no ar e acessível daqui, ou corrija "
        "[memory] postgres_url")
