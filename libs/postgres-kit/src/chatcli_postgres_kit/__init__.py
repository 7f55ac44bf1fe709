"""What chatcli's PostgreSQL plugins share: the server a URL names, printable without its
password, and psycopg's failures as chatcli's one-line errors — the cause, the fix, never a
password. chatcli-memory-postgres and chatcli-sessions-postgres wrap these with their own
feature name, README and error classes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import psycopg
from chatcli import ChatcliError, ConfigError, redact, register_secret, translation
from psycopg.conninfo import conninfo_to_dict

__all__ = ["Target", "connection_error", "query_error"]

E = TypeVar("E", bound=ChatcliError)
_, ngettext = translation(__name__)


class Target:
    """The server ``url`` names (a ``postgresql://`` URL or a libpq ``key=value`` string),
    printable without its password (which is registered as a secret, so
    :func:`chatcli.redact` hides it wherever else it might appear).

    :param source: where the URL came from, for errors (``[memory] postgres_url``).
    :param feature: what uses the server, the errors' first word (``memory``, ``sessions``).
    :raises ConfigError: ``url`` is no PostgreSQL URL.
    """

    def __init__(self, url: str, source: str, feature: str) -> None:
        self.url = url
        self.source = source
        self.feature = feature
        try:
            params = conninfo_to_dict(url)
        except psycopg.ProgrammingError as err:
            register_secret(_password_of(url))
            raise ConfigError(
                _("{feature}: {source} is not a PostgreSQL URL ({reason})").format(
                    feature=feature, source=source, reason=_detail(err)),
                _("use postgresql://USER@HOST:5432/DBNAME")) from None
        register_secret(str(params.get("password") or "") or None)
        self.params = params

    def __str__(self) -> str:
        p = self.params
        host = str(p.get("host") or p.get("hostaddr") or "localhost")
        port = f":{p['port']}" if p.get("port") else ""
        user = f"{p['user']}@" if p.get("user") else ""
        dbname = f"/{p['dbname']}" if p.get("dbname") else ""
        return f"postgresql://{user}{host}{port}{dbname}"


def _password_of(url: str) -> str | None:
    """The password of a URL's userinfo, best effort (to hide it even from a bad URL)."""
    head, at, _rest = url.rpartition("@")
    if not at or ":" not in head.partition("://")[2]:
        return None
    return head.partition("://")[2].partition(":")[2] or None


def _detail(err: BaseException) -> str:
    """psycopg's message as one line, without its ``connection failed:`` prefixes."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    text = lines[0] if lines else type(err).__name__
    for prefix in ("connection failed:", "connection is bad:"):
        if text.lower().startswith(prefix):
            text = text[len(prefix):].strip()
    # 'connection to server at "HOST", port N failed: WHY': the target is named already
    text = re.sub(r'^connection to server (?:at|on) .*? failed:\s*', "", text) or text
    return redact(text)[:300]


def connection_error(err: BaseException, target: Target, *, readme: str,
                     make: Callable[[str, str], E]) -> E:
    """The one line for a server that cannot be reached, refuses us, or lacks the database or
    the role.

    :param readme: the distribution whose README says how to make the role.
    :param make: the plugin's error class (or a function) taking ``(message, hint)``.
    """
    detail = _detail(err)
    low = detail.lower()
    source = target.source
    if "password authentication failed" in low or "no password supplied" in low:
        hint = _("check the user and password, then fix {source}").format(source=source)
    elif "does not exist" in low and "database" in low:
        name = target.params.get("dbname", "")
        hint = (_("create it on the server (createdb {name}) or fix {source}") if name else
                _("fix {source}")).format(name=name, source=source)
    elif "role" in low and "does not exist" in low:
        hint = _("create the role on the server (see {readme}'s README) or fix {source}").format(
            readme=readme, source=source)
    elif "timeout" in low or "timed out" in low:
        hint = _("check that the server is up and reachable from here, or fix {source}").format(
            source=source)
    else:
        hint = _("start the server, or fix {source} to one that answers").format(source=source)
    return make(_("{feature}: cannot use PostgreSQL at {server}: {reason}").format(
        feature=target.feature, server=target, reason=detail), hint)


def query_error(err: BaseException, target: Target, action: str, *, readme: str, tables: str,
                make: Callable[[str, str], E]) -> E:
    """The one line for a statement the server refused (a missing grant, a broken schema).

    :param action: what was being done (``store a memory``), after "refused to".
    :param tables: the tables' description for the grant hint (``the memory tables``).
    """
    detail = _detail(err)
    if isinstance(err, psycopg.errors.InsufficientPrivilege):
        hint = _("grant the role CREATE on the database and USAGE, SELECT, INSERT, UPDATE, "
                 "DELETE on {tables} (see {readme}'s README)").format(tables=tables, readme=readme)
    else:
        hint = _("check the server's log; {tables} may have been changed by hand").format(
            tables=tables)
    return make(_("{feature}: PostgreSQL at {server} refused to {action}: {reason}").format(
        feature=target.feature, server=target, action=action, reason=detail), hint)
