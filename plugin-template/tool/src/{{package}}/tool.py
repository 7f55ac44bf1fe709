"""The tool: counts the lines, words and characters of a text file in the workspace.

A tool is a pydantic model of its arguments (whose JSON schema is what the model sees), a
function ``run(args, context) -> str`` and a risk class. Whatever ``run`` raises becomes an error
result the model reads; it never ends the conversation.
"""

from __future__ import annotations

from pathlib import Path

from chatcli import Risk, Tool, ToolContext
from pydantic import BaseModel, Field

#: The name the model calls the tool by (letters, digits, "_" and "-"; unique among tools).
TOOL_NAME = "{{ident}}"

#: Files larger than this are refused rather than read into memory.
MAX_BYTES = 10_000_000


class CountArgs(BaseModel):
    """Arguments of the {{name}} tool."""

    path: str = Field(description="Path of a text file, relative to the workspace root.")


def resolve_in_workspace(path: str, workspace: str) -> Path:
    """``path`` as an absolute path inside ``workspace``; refuses anything outside it.

    Symbolic links are resolved first, so a link pointing out of the workspace is refused too.
    """
    root = Path(workspace).resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        raise PermissionError(f"'{path}' is outside the workspace; use a path inside {root}")
    return target


def count_words(args: CountArgs, context: ToolContext) -> str:
    """Count lines, words and characters of ``args.path``."""
    target = resolve_in_workspace(args.path, context.workspace)
    if not target.is_file():
        raise FileNotFoundError(f"no file '{args.path}' in the workspace")
    if target.stat().st_size > MAX_BYTES:
        raise ValueError(f"'{args.path}' is larger than {MAX_BYTES} bytes")
    text = target.read_text(encoding="utf-8", errors="replace")
    lines = len(text.splitlines())
    words = len(text.split())
    return f"{args.path}: {lines} lines, {words} words, {len(text)} characters"


def make_tool() -> Tool:
    """The :class:`~chatcli.Tool` this plugin registers."""
    return Tool(
        name=TOOL_NAME,
        description=(
            "Count the lines, words and characters of a text file in the workspace. "
            "Use it instead of guessing the length of a file."
        ),
        args_model=CountArgs,
        run=count_words,
        risk=Risk.READ,  # reads only: runs without asking (write/execute/network tools ask)
    )
