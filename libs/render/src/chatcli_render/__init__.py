"""chatcli-render: how chatcli's front ends show an answer on a terminal.

:class:`MarkdownStream` renders a markdown answer that arrives in pieces (finished blocks print
once, the growing one is previewed), :func:`render_markdown` builds one rendering (rich's
``Markdown``, cheaper to build), :class:`Spinner` draws a "waiting…" line on stderr until the
model answers, :func:`activity` names what a running tool does (``edit calc.py``). Used by
``chatcli -p`` (chatcli-print) and the interactive chat (chatcli-repl).
rich, markdown-it-py and Pygments load when something is rendered, not on import.
"""

from __future__ import annotations

from chatcli_render.markdown import MarkdownStream, block_split, render_markdown
from chatcli_render.spinner import Spinner, activity

__all__ = ["MarkdownStream", "Spinner", "activity", "block_split", "render_markdown"]
