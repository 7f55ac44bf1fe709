"""The ``chatcli`` console script. ``--version`` answers here, before click or any plugin loads."""

from __future__ import annotations

import sys


def main() -> int:
    """Run chatcli; returns the process exit code."""
    if sys.argv[1:] == ["--version"] or sys.argv[1:] == ["-V"]:
        from chatcli import __version__

        print(f"chatcli {__version__}")
        return 0
    from chatcli._cli import run

    return run()
