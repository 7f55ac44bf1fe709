"""What the console script and the command line share at start-up, importing nothing of
chatcli: the garbage collector held off until a command starts, and the width help is wrapped at
(the help cache's and click's)."""

from __future__ import annotations

import os
import sys

#: Whether :func:`chatcli_cli.main.main` holds the garbage collector off until a command starts.
_collector_held = False


def hold_collector() -> None:
    """Hold the garbage collector off while chatcli starts (only :func:`chatcli_cli.main.main`)."""
    import gc

    global _collector_held
    gc.disable()
    _collector_held = True


def start_command() -> None:
    """The command line is parsed and its command starts: the garbage collector, held off while
    chatcli started, runs again.

    Start-up (imports, plugins, the command tree) makes many objects that live as long as the
    process and next to no garbage, yet the collector traversed them over and over, and once more
    at exit: about 10 % of ``chatcli models``. Here the start-up's objects are frozen out of later
    collections (``gc.freeze``) without a collection first: its garbage (about 460 objects of
    15,000) stays, and a collection would cost 3 % of ``chatcli models``; the command itself — a
    chat, ``-p``, a server — runs with the collector as usual. Only in the ``chatcli`` process
    (:func:`chatcli_cli.main.main`): an in-process :func:`chatcli_cli.root.run` changes nothing.
    """
    global _collector_held
    if _collector_held:
        import gc

        _collector_held = False
        gc.freeze()
        gc.enable()


def help_width() -> int:
    """The width the program wraps help at (its click context's ``terminal_width``), found
    without importing ``shutil`` (and the compression modules it pulls in): ``COLUMNS``, else
    the terminal's, at most 78."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 80
    return max(min(columns, 80) - 2, 50)
