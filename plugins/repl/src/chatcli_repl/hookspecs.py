"""The hooks chatcli-repl offers other plugins (declared through ``add_hookspecs``): what the
chat's status line shows, and what a sent line runs. A plugin implements them without
importing this one::

    @chatcli.hookimpl(optionalhook=True)  # chatcli-repl declares it, when installed
    def status_items(session):
        return {"mode": "plan mode"}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


@hookspec(firstresult=True)
def route_input(app: Any, text: str) -> str | None:
    """Another line to run instead of the line the user sent.

    Called by chatcli-repl on its worker thread for each line sent that is not a ``/command``,
    before it becomes a message, with the chat's ``ChatApp`` and the line as typed. The first
    plugin returning a text wins: a ``/command`` line runs as that command (chatcli-personas
    turns ``@reviewer check the diff`` into ``/delegate reviewer check the diff`` when
    chatcli-subagents is installed), any other text is sent instead. A plugin that raises is
    reported and the line is sent as typed.

    The return value: the line to run, or None to send ``text`` as it is.
    """
