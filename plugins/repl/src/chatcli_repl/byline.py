"""The line above an answer that names who writes it, when a plugin speaks through someone (a
persona): the ``answer_author`` hook's label, in its style — plain under ``NO_COLOR``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli_repl.app import ReplApp

__all__ = ["announce"]


def announce(app: ReplApp) -> None:
    """Print the author's label above the answer about to show (nothing when chatcli answers
    as itself)."""
    from rich.text import Text

    host = getattr(app, "host", None)
    conversation = getattr(app, "conversation", None)
    if host is None or conversation is None:  # a display never fails: nothing to ask
        return
    author = host.hooks.answer_author(conversation=conversation)
    if author is None or not author.shown.strip():
        return
    style = None if app.console.no_color else (author.style or "bold")
    app.console.print(Text(author.shown, style=style or ""))
