"""The ``[audit]`` table, checked: whether the log is kept, where, how much of a command or of
arguments it keeps, and how it rotates.

```toml
[audit]
enabled = true          # on whenever the plugin is installed; false turns it off
path = "~/audit"        # the folder (default: chatcli's data folder, audit/)
excerpt = 200           # characters of a command or of a call's arguments kept (redacted)
max_bytes = 10000000    # the file is rotated before it would pass this size
keep = 5                # rotated files kept (audit.jsonl.1 … audit.jsonl.5)
postgres = true         # also the chatcli_audit table where sessions live in PostgreSQL
```

No key of the table comes from a project's ``.chatcli/config.toml`` (the plugin declares
``SettingRule("audit", "never")``): a repository must not turn the log off, move it, shorten its
history or make it keep more of what the agent saw.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import ConfigError, translation
from chatcli_records_lite import NamedTuple

if TYPE_CHECKING:
    from chatcli import Settings

__all__ = ["DEFAULT_EXCERPT", "DEFAULT_KEEP", "DEFAULT_MAX_BYTES", "FILE_NAME", "AuditConfig",
           "read_config"]

#: The log's file name in its folder; rotated files add ``.1``, ``.2``… (``.1`` the newest).
FILE_NAME = "audit.jsonl"
DEFAULT_EXCERPT = 200
DEFAULT_MAX_BYTES = 10_000_000
DEFAULT_KEEP = 5
_, ngettext = translation(__name__)

_KEYS = ("enabled", "path", "excerpt", "max_bytes", "keep", "postgres")


class AuditConfig(NamedTuple):
    """The ``[audit]`` settings in force.

    :param enabled: whether records are written.
    :param folder: the folder holding ``audit.jsonl`` and its rotated files.
    :param excerpt: characters kept of a command, of a call's arguments, of a reason.
    :param max_bytes: the size past which the file is rotated.
    :param keep: how many rotated files are kept (0: the old records are dropped).
    :param postgres: whether records also go to the PostgreSQL table where sessions live in
        PostgreSQL.
    """

    enabled: bool = True
    folder: Path | None = None
    excerpt: int = DEFAULT_EXCERPT
    max_bytes: int = DEFAULT_MAX_BYTES
    keep: int = DEFAULT_KEEP
    postgres: bool = True

    @property
    def file(self) -> Path:
        """The file records are appended to."""
        return (self.folder or default_folder()) / FILE_NAME


def default_folder() -> Path:
    """``audit/`` in chatcli's data folder."""
    from chatcli import data_dir

    return data_dir() / "audit"


def read_config(settings: Settings | None) -> AuditConfig:
    """The ``[audit]`` table of ``settings`` (defaults without settings).

    :raises ConfigError: a key that is not one of the table's, or a value of the wrong type or
        out of range; the message names the key and the fix.
    """
    table: dict[str, Any] = settings.plugin_table("audit") if settings is not None else {}
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise ConfigError(_("audit: unknown setting [audit] {key}").format(key=unknown[0]),
                          _("the [audit] keys are {keys}").format(keys=", ".join(_KEYS)))
    enabled = _flag(table, "enabled")
    postgres = _flag(table, "postgres")
    folder = None
    raw_path = table.get("path")
    if raw_path is not None:
        if not isinstance(raw_path, str) or not raw_path.strip():
            raise ConfigError(_("audit: [audit] path must be a folder's path"),
                              _("chatcli config set audit.path ~/chatcli-audit, or unset it"))
        folder = Path(os.path.expanduser(raw_path.strip()))
        if not folder.is_absolute():
            raise ConfigError(
                _("audit: [audit] path must be absolute, not {path!r}").format(path=raw_path),
                _("give the whole path (~/… works)"))
    return AuditConfig(
        enabled=enabled, folder=folder, postgres=postgres,
        excerpt=_number(table, "excerpt", DEFAULT_EXCERPT, 0, 100_000),
        max_bytes=_number(table, "max_bytes", DEFAULT_MAX_BYTES, 4096, 10**12),
        keep=_number(table, "keep", DEFAULT_KEEP, 0, 1000))


def _flag(table: dict[str, Any], key: str) -> bool:
    value = table.get(key, True)
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "1", "0", "yes",
                                                            "no", "on", "off"):
        value = value.strip().lower() in ("true", "1", "yes", "on")
    if not isinstance(value, bool):
        raise ConfigError(
            _("audit: [audit] {key} must be true or false, not {value!r}").format(key=key,
                                                                                  value=value),
            _("chatcli config set audit.{key} false").format(key=key))
    return value


def _number(table: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = table.get(key, default)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(
            _("audit: [audit] {key} must be a whole number from {low} to {high}, not {value!r}"
              ).format(key=key, low=low, high=high, value=value),
            _("chatcli config set audit.{key} {default}").format(key=key, default=default))
    return value
