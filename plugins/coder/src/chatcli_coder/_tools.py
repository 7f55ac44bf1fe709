"""The tools (filled in by the next commits)."""

from __future__ import annotations


def make_tools(settings, workspace):  # noqa: ANN001, ANN201 - placeholder
    return []
