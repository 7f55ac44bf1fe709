"""A click command (``chatcli NAME``) and an in-chat slash command (``/NAME``).

Keep heavy imports inside the functions: ``chatcli --help`` builds every plugin's click command.
"""

from __future__ import annotations

import json
from typing import Any

import click
from chatcli import Role, SlashCommand, Usage

#: The slash command's sub-commands (offered by tab completion in the chat).
SUBCOMMANDS = ["stats", "hello"]


def greeting(who: str) -> str:
    """The greeting both commands print."""
    return f"Hello, {who}, from the {{title}} plugin!"


@click.command(name="{{name}}")
@click.argument("who", required=False, default="world")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def command(who: str, as_json: bool) -> None:
    """Greet WHO (the {{title}} plugin's example command)."""
    if as_json:
        click.echo(json.dumps({"greeting": greeting(who)}))
    else:
        click.echo(greeting(who))


def conversation_stats(app: Any) -> str:
    """A one-line summary of the chat's conversation: messages and tokens so far."""
    messages = app.conversation.messages()
    asked = sum(1 for m in messages if m.role == Role.USER)
    usage = Usage()
    for message in messages:
        if message.usage is not None:
            usage = usage + message.usage
    return (
        f"{len(messages)} messages ({asked} from you), "
        f"{usage.input_tokens} input and {usage.output_tokens} output tokens"
    )


def run_slash(app: Any, text: str) -> None:
    """``/NAME [stats | hello WHO]``.

    ``app`` is the chat (:class:`chatcli.ChatApp`); ``text`` what follows the name.
    """
    words = text.split()
    action = words[0] if words else "stats"
    if action == "stats":
        app.console.print(conversation_stats(app))
    elif action == "hello":
        app.console.print(greeting(" ".join(words[1:]) or "world"))
    else:
        app.console.print(f"unknown sub-command '{action}': use {' or '.join(SUBCOMMANDS)}")


def slash_command() -> SlashCommand:
    """The :class:`~chatcli.SlashCommand` this plugin registers."""
    return SlashCommand(
        name="{{name}}",
        help="Conversation stats (stats) or a greeting (hello WHO)",
        run=run_slash,
        subcommands=SUBCOMMANDS,
    )
