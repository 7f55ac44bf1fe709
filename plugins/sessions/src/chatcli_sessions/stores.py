"""The open stores of this process: the store the ``[sessions] backend`` setting names
(``sqlite``, the default: :class:`~chatcli_sessions.store.SessionStore` on the data folder's
file; another: what a plugin registers through ``register_session_stores``), opened when first
used and shared by the plugin's hooks, ``/session`` and ``chatcli sessions``. A module of its
own, so that the entry module and the commands both import it and not each other.

With the default backend nothing but the SQLite store is imported: the registered stores are
collected only when another one is named.
"""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost, Settings
    from chatcli_sessions_api import SessionStore, SessionStoreSpec

__all__ = ["backend_name", "close_stores", "configure", "get_store", "open_named", "release",
           "retain", "sqlite_factory", "store_specs"]

_, ngettext = translation(__name__)

#: the built-in store's name (always this plugin's SQLite file)
SQLITE = "sqlite"

#: (backend, where) -> (pid, store)
_stores: dict[tuple[str, str], tuple[int, SessionStore]] = {}
_lock = threading.Lock()
#: the plugin host and settings of this process (the ``configure`` hook), and settings loaded
#: when nothing configured them (forgotten by :func:`close_stores`)
_configured: dict[str, Any] = {}
_loaded: dict[str, Any] = {}
#: conversations of this process between their session_start and session_end (a server holds
#: many at once: the stores close when the last one ends, never under another's turn)
_open = {"count": 0}


def configure(host: PluginHost | None, settings: Settings | None) -> None:
    """Remember the plugin host (to find registered stores) and the settings of this run."""
    _configured["host"] = host
    _configured["settings"] = settings


def _settings() -> Settings:
    settings = _configured.get("settings") or _loaded.get("settings")
    if settings is None:
        from chatcli import load_settings

        settings = _loaded["settings"] = load_settings()
    return settings


def backend_name(settings: Settings) -> str:
    """The store ``[sessions] backend`` names (``sqlite`` when unset).

    :raises chatcli.ConfigError: a value that is not a name.
    """
    value = settings.plugin_table("sessions").get("backend", SQLITE)
    if not isinstance(value, str) or not value.strip():
        from chatcli import ConfigError

        raise ConfigError(_("[sessions] backend must be a store's name, not {value!r}").format(
            value=value), _("chatcli config set sessions.backend sqlite (or postgres)"))
    return value.strip()


def sqlite_factory(settings: Settings) -> SessionStore:
    """The ``sqlite`` store's factory: the data folder's ``sessions.db``."""
    from chatcli_sessions.store import SessionStore as SqliteStore
    from chatcli_sessions.store import default_path

    return SqliteStore(default_path())


def store_specs(host: PluginHost | None) -> dict[str, SessionStoreSpec]:
    """Every registered store by name (``sqlite`` always, ours)."""
    from chatcli_sessions_api import SessionStoreSpec

    specs = (host.collect("register_session_stores", SessionStoreSpec, "session store")
             if host is not None else {})
    specs = dict(specs)
    specs[SQLITE] = SessionStoreSpec(SQLITE, sqlite_factory,
                                     _("an embedded SQLite file in the data folder"))
    return specs


def open_named(name: str, host: PluginHost | None, settings: Settings, *,
               flag: str | None = None) -> SessionStore:
    """Open the store registered as ``name`` (named by ``[sessions] backend``, or by the
    command-line ``flag`` given).

    :raises chatcli.ConfigError: one line naming the setting (or flag) and the fix, when no
        store has that name or it fails to open.
    """
    from chatcli import ChatcliError, ConfigError, redact

    where = f"{flag} {name!r}" if flag else f"[sessions] backend = {name!r}"
    fix = _("fix its settings") if flag else _(
        "fix its settings, or chatcli config set sessions.backend sqlite")
    specs = store_specs(host)
    spec = specs.get(name)
    if spec is None:
        raise ConfigError(
            _("{where}: no session store of that name is installed (installed: {names})").format(
                where=where, names=", ".join(sorted(specs))),
            f"pip install chatcli-sessions-{name}" if flag else _(  # untranslated: a command
                "pip install chatcli-sessions-{name}, or chatcli config set sessions.backend "
                "sqlite").format(name=name))
    try:
        return spec.factory(settings)
    except ChatcliError as err:
        raise ConfigError(_("{where}: the store failed to open: {error}").format(
            where=where, error=err.message), err.hint or fix) from None
    except Exception as err:  # a store plugin's own failure
        text = str(err).strip().splitlines()
        cause = f"{type(err).__name__}: {text[0]}" if text else type(err).__name__
        raise ConfigError(_("{where}: the store failed to open: {error}").format(
            where=where, error=redact(cause)), fix) from None


def get_store(host: PluginHost | None = None, settings: Settings | None = None) -> SessionStore:
    """The store of this process (one per backend and data folder, opened on first use).

    A store inherited through ``fork()`` is never reused: connections must not cross a fork,
    so the child opens its own.

    :raises chatcli.ConfigError: the backend is unknown or fails to open (see
        :func:`open_named`).
    """
    settings = settings or _settings()
    name = backend_name(settings)
    from chatcli import data_dir

    key = (name, str(data_dir()))
    with _lock:
        found = _stores.get(key)
        if found is not None and found[0] == os.getpid():
            return found[1]
        if name == SQLITE:
            store = sqlite_factory(settings)
        else:
            store = open_named(name, host or _configured.get("host"), settings)
        _stores[key] = (os.getpid(), store)
        return store


def retain() -> None:
    """A conversation of this process starts (``session_start``)."""
    with _lock:
        _open["count"] += 1


def release() -> None:
    """A conversation of this process ends (``session_end``): the stores are closed when it was
    the last one open (they reopen on next use)."""
    with _lock:
        _open["count"] = max(_open["count"] - 1, 0)
        if _open["count"]:
            return
    close_stores()


def close_stores() -> None:
    """Close this process's stores now (they reopen on next use)."""
    with _lock:
        _open["count"] = 0
        for key, (pid, store) in list(_stores.items()):
            if pid == os.getpid():
                store.close()
            del _stores[key]
        _loaded.clear()
