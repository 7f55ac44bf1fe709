"""The tool: counts the lines, words and characters of a text file in the workspace.

A tool is a pydantic model of its arguments (whose JSON schema is what the model sees), a
function ``run(args, context) -> str`` and a risk class. Whatever ``run`` raises becomes an error
result the model reads; it never ends the conversation.

What the model reads to use the tool (its description, the argument's description) stays in
English; the errors, which the user reads too (in the chat, under the tool call), are marked with
``_()`` and shown in the user's language from this package's own catalog, in its ``locale``
folder (see README.md, "Translations").
"""

from __future__ import annotations

from pathlib import Path

from chatcli import Risk, Tool, ToolContext, translation
from pydantic import BaseModel, Field

#: This package's messages in the user's language (English when its catalog lacks one).
_, ngettext = translation(__name__)

#: The name the model calls the tool by (letters, digits, "_" and "-"; unique among tools).
TOOL_NAME = "{{ident}}"

#: Files larger than this are refused rather than read into memory.
MAX_BYTES = 10_000_000


class CountArgs(BaseModel):
    """Arguments of the {{name}} tool."""

    # the model reads the schema's descriptions: they stay as written
    path: str = Field(description="Path of a text file, relative to the workspace root.")


def resolve_in_workspace(path: str, workspace: str) -> Path:
    """``path`` as an absolute path inside ``workspace``; refuses anything outside it.

    Symbolic links are resolved first, so a link pointing out of the workspace is refused too.
    """
    root = Path(workspace).resolve()
    target = (root / path).resolve()
    if not target.is_relative_to(root):
        # placeholders are named and filled with .format(): never an f-string inside _()
        raise PermissionError(_("'{path}' is outside the workspace; use a path inside {root}")
                              .format(path=path, root=root))
    return target


def count_words(args: CountArgs, context: ToolContext) -> str:
    """Count lines, words and characters of ``args.path``."""
    target = resolve_in_workspace(args.path, context.workspace)
    if not target.is_file():
        raise FileNotFoundError(_("no file '{path}' in the workspace").format(path=args.path))
    if target.stat().st_size > MAX_BYTES:
        raise ValueError(_("'{path}' is larger than {limit} bytes").format(
            path=args.path, limit=MAX_BYTES))
    text = target.read_text(encoding="utf-8", errors="replace")
    lines = len(text.splitlines())
    words = len(text.split())
    # the result is data for the model (its tests compare it too): it stays as written
    return f"{args.path}: {lines} lines, {words} words, {len(text)} characters"


def make_tool() -> Tool:
    """The :class:`~chatcli.Tool` this plugin registers."""
    return Tool(
        name=TOOL_NAME,
        description=(  # for the model: as written
            "Count the lines, words and characters of a text file in the workspace. "
            "Use it instead of guessing the length of a file."
        ),
        args_model=CountArgs,
        run=count_words,
        risk=Risk.READ,  # reads only: runs without asking (write/execute/network tools ask)
    )
