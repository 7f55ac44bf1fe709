"""A test plugin with one read-only tool, ``read``: every path reads as its own long text (so
the scenarios grow the conversation with tool results, and no two results are copies). Loaded
in process by the tests and by entry point in the real command line (``install``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from chatcli import Risk, Tool, hookimpl
from pydantic import BaseModel

#: Characters a file reads as.
SIZE = 2_000


class PathArgs(BaseModel):
    path: str


def file_text(path: str, size: int = SIZE) -> str:
    """What ``read`` returns for ``path``: lines naming the path, ``size`` characters."""
    lines = []
    total = 0
    number = 0
    while total < size:
        line = f"{path} line {number}: def function_{number}(): return {number * 7}\n"
        lines.append(line)
        total += len(line)
        number += 1
    return "".join(lines)[:size]


@hookimpl
def register_tools(register: Callable[[Tool], None]) -> None:
    register(Tool(name="read", description="Read a file of the project", args_model=PathArgs,
                  risk=Risk.READ, run=lambda args, context: file_text(args.path)))


def install(site: Path) -> str:
    """Make this module a plugin of the real ``chatcli`` run with ``PYTHONPATH`` = the returned
    value (``site`` gets the entry point; this folder holds the module)."""
    info = site / "compaction_files-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: compaction-files\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[chatcli.plugins]\ncompaction-files = compaction_files_plugin\n")
    return f"{site}:{Path(__file__).parent}"
