"""The caps on what a checkpoint records (``[checkpoints]`` settings), apart from the file
walker so that configuring the plugin imports no more than this."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    """The caps on what is recorded."""

    max_file_bytes: int = 2 * 2**20
    max_snapshot_bytes: int = 64 * 2**20
    max_total_bytes: int = 512 * 2**20
    max_files: int = 20_000
