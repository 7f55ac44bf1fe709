"""Entry module of {{distribution}}: hookimpls only.

chatcli calls ``register_commands`` while it builds its command line and
``register_slash_commands`` when the chat starts; both import ``commands.py`` only then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl

if TYPE_CHECKING:
    import click
    from chatcli import SlashCommand


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``chatcli {{name}}`` to chatcli's command line."""
    from {{package}}.commands import command

    cli.add_command(command)


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """Add ``/{{name}}`` to the chat."""
    from {{package}}.commands import slash_command

    register(slash_command())
