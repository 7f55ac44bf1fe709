"""The provider names the ``[fallback]`` table asks for, read from the raw settings.

Standard library only and no dataclasses: this runs while providers are registered
(``chatcli models``, ``--help``), which must stay cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CHAIN", "group_names"]

#: The provider name of the chain of ``[fallback] chain``.
CHAIN = "fallback"


def group_names(raw: Mapping[str, Any]) -> list[str]:
    """The provider names the raw settings ask for: ``fallback`` and each named pool (no
    validation: a bad table is reported when the group is built)."""
    table = raw.get("fallback")
    pools = table.get("pools") if isinstance(table, dict) else None
    names = [CHAIN]
    if isinstance(pools, dict):
        names.extend(str(name) for name in pools if str(name) != CHAIN)
    return names
