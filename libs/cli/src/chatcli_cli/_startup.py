"""What the console script and the command line share at start-up, importing nothing of
chatcli: the garbage collector held off until a command starts."""

from __future__ import annotations

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

