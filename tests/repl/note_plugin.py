"""A plugin for the REPL tests: one write tool, ``note``, which needs approval and appends each
text it is given to a file — discoverable by a chatcli process through an entry point."""

from __future__ import annotations

import textwrap
from pathlib import Path

#: A plugin with one write tool (it needs approval) that notes each run in a file.
NOTE_TOOL = """
import os
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class _Args(BaseModel):
    text: str

def _run(args, context):
    with open(os.environ["NOTE_FILE"], "a") as out:
        out.write(args.text + "\\n")
    return "noted"

@hookimpl
def register_tools(register):
    register(Tool(name="note", description="write a note", args_model=_Args, risk=Risk.WRITE,
                  run=_run))
"""


def note_tool_env(folder: Path) -> dict[str, str]:
    """Environment that makes the ``note`` tool plugin discoverable (an entry point on
    PYTHONPATH) and says where it writes."""
    (folder / "note_tool.py").write_text(textwrap.dedent(NOTE_TOOL))
    info = folder / "note_tool-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: note-tool\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[chatcli.plugins]\nnote = note_tool\n")
    return {"PYTHONPATH": str(folder), "NOTE_FILE": str(folder / "notes.txt")}
