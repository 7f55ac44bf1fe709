"""The ``chatcli`` console script. ``--version`` answers here, before click or any plugin loads;
so does ``--help`` (or ``-h``, alone on the line) when its page is cached: the root help page is
click's once every installed plugin has added its commands and options (about four times the
start of Python), kept by :class:`chatcli_cli.help_cache.HelpCache` with the files it was
made from and printed again, importing neither click nor any plugin, while none changed.
"""

from __future__ import annotations

import sys

from chatcli_cli._startup import hold_collector


def main() -> int:
    """Run chatcli; returns the process exit code."""
    args = sys.argv[1:]
    if args == ["--version"] or args == ["-V"]:
        from chatcli import __version__

        print(f"chatcli {__version__}")  # untranslated: the program and its version
        return 0
    if args == ["--help"] or args == ["-h"]:
        return _help(args[0])
    hold_collector()  # until a command starts (chatcli_cli._startup.start_command)
    return _run()


def _help(flag: str) -> int:
    """``chatcli --help``: the cached page when it is still true, else click's (kept)."""
    from chatcli import __version__
    from chatcli._paths import directory

    from chatcli_cli.help_cache import HelpCache

    return HelpCache("chatcli", __version__, directory("cache"), "CHATCLI_", _entry_files,
                     _write_page).serve(flag, _run)


def _run() -> int:
    from chatcli_cli.root import run

    return run()


def _entry_files() -> list[str]:
    """Each installed plugin's entry module (the page lists what they add) and the user's
    settings file, even when there is none yet: its ``language`` chooses the page's language
    when no variable names one."""
    from chatcli._discovery import find_entry_points
    from chatcli._tomlfile import user_file

    return [*(ep.file for ep in find_entry_points() if ep.file), user_file()]


def _write_page(path: str, data: bytes) -> None:
    from pathlib import Path

    from chatcli import atomic_write

    atomic_write(Path(path), data, mode=0o600)
