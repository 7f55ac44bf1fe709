"""Where the server is: the ``[sessions]`` table and the environment, checked."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chatcli import ConfigError, translation

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = ["URL_VARIABLES", "PostgresConfig", "resolve"]

#: Variables naming the server, strongest first: ``CHATCLI_SESSIONS_POSTGRES_URL`` beats
#: ``[sessions] postgres_url``, which beats ``DATABASE_URL``.
URL_VARIABLES = ("CHATCLI_SESSIONS_POSTGRES_URL", "DATABASE_URL")

_SCHEMA_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$]{0,62}")
_, ngettext = translation(__name__)


def _set_url() -> str:
    return _("set [sessions] postgres_url (chatcli config set sessions.postgres_url "
             "postgresql://USER@HOST:5432/DBNAME) or DATABASE_URL")


@dataclass(frozen=True)
class PostgresConfig:
    """How to reach the shared sessions.

    ``url`` is a ``postgresql://`` URL or a libpq ``key=value`` string; ``schema`` (optional)
    puts the tables in their own schema, created on first use; ``connect_timeout`` bounds the
    wait for an unreachable server, in seconds; ``source`` names where the URL came from (the
    fix an error names).
    """

    url: str
    schema: str | None = None
    connect_timeout: float = 5.0
    source: str = "[sessions] postgres_url"


def resolve(settings: Settings) -> PostgresConfig:
    """Read ``postgres_url`` (``CHATCLI_SESSIONS_POSTGRES_URL`` first, ``DATABASE_URL`` last),
    ``postgres_schema`` and ``postgres_connect_timeout`` from the ``[sessions]`` table.

    :raises ConfigError: no URL anywhere, or a value of the wrong type.
    """
    table = settings.plugin_table("sessions")
    url, source = _url(table)
    schema = table.get("postgres_schema")
    if schema is not None and (not isinstance(schema, str) or not _SCHEMA_NAME.fullmatch(schema)):
        raise ConfigError(
            _("sessions: [sessions] postgres_schema must be a plain SQL name, not {value!r}"
              ).format(value=schema),
            _("use letters, digits and _ (for example chatcli_sessions), or unset it"))
    timeout = table.get("postgres_connect_timeout", 5)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 600:
        raise ConfigError(
            _("sessions: [sessions] postgres_connect_timeout must be seconds (1-600), "
              "not {value!r}").format(value=timeout),
            _("set it to a number such as 5, or unset it"))
    return PostgresConfig(url=url, schema=schema or None, connect_timeout=float(timeout),
                          source=source)


def _url(table: dict[str, object]) -> tuple[str, str]:
    env_first = os.environ.get(URL_VARIABLES[0], "").strip()
    if env_first:
        return env_first, URL_VARIABLES[0]
    value = table.get("postgres_url")
    if value is not None:
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(_("sessions: [sessions] postgres_url must be a non-empty string"),
                              _set_url())
        return value.strip(), "[sessions] postgres_url"
    fallback = os.environ.get(URL_VARIABLES[1], "").strip()
    if fallback:
        return fallback, URL_VARIABLES[1]
    raise ConfigError(_("sessions: the postgres store has no server to use"), _set_url())
