"""The hook chatcli-repl offers other plugins (declared through ``add_hookspecs``): what the
chat's status line shows. A plugin implements it without importing this one::

    @chatcli.hookimpl(optionalhook=True)  # chatcli-repl declares it, when installed
    def status_items(session):
        return {"mode": "plan mode"}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatcli import hookspec

if TYPE_CHECKING:
    from chatcli import Session


@hookspec
def status_items(session: Session) -> dict[str, str] | None:
    """Short facts for the chat's status line, under the input line: ``{key: text}``.

    Called by chatcli-repl on its worker thread when a message or command is done, between the
    steps of an agent run and after Shift+Tab, and about once a second while tool calls run
    (workers, on a thread of its own: keep it quick and read-only) — never while the screen is
    drawn — with the chat's :class:`chatcli.Session`. Keys order the line: ``mode`` (the
    permission mode), ``context`` (how full the context window is), ``spend`` (money spent so
    far), then any other key alphabetically; of two results with one key, the first called
    wins. Texts are a few words (the line is cut to the terminal's width, control characters
    dropped).

    The return value: a dict of texts, or None (or ``{}``) to show nothing.
    """
