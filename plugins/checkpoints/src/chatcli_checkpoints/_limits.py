"""The caps on what a checkpoint records (``[checkpoints]`` settings), apart from the file
walker so that configuring the plugin imports no more than this."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Limits", "limits_from"]


@dataclass(frozen=True)
class Limits:
    """The caps on what is recorded."""

    max_file_bytes: int = 2 * 2**20
    max_snapshot_bytes: int = 64 * 2**20
    max_total_bytes: int = 512 * 2**20
    max_files: int = 20_000


def limits_from(table: dict[str, Any]) -> tuple[bool, Limits]:
    """``[checkpoints]`` settings: ``enabled`` and the caps (whole numbers of bytes/files)."""
    from chatcli import ConfigError, translation

    _, _n = translation(__name__)
    defaults = Limits()
    values: dict[str, int] = {}
    for key in ("max_file_bytes", "max_snapshot_bytes", "max_total_bytes", "max_files"):
        value = table.get(key, getattr(defaults, key))
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(
                _("[checkpoints] {key} must be a whole number above 0, not {value!r}").format(
                    key=key, value=value),
                _("fix it: chatcli config set checkpoints.{key} N").format(key=key))
        values[key] = value
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise ConfigError(_("[checkpoints] enabled must be true or false, not {value!r}").format(
            value=enabled), _("fix it: chatcli config set checkpoints.enabled true"))
    return enabled, Limits(**values)
