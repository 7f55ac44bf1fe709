"""A click command (``chatcli NAME``) and an in-chat slash command (``/NAME``).

Keep heavy imports inside the functions: ``chatcli --help`` builds every plugin's click command.

Every message a user reads is marked with ``_()`` (``ngettext()`` for counts): chatcli shows it
in the user's language (``CHATCLI_LANG``, the locale, or the ``language`` setting) from this
package's own catalog, in its ``locale`` folder (see README.md, "Translations").
"""

from __future__ import annotations

import json
from typing import Any

import click
from chatcli import Role, SlashCommand, Usage, translation

#: This package's messages in the user's language (English when its catalog lacks one).
_, ngettext = translation(__name__)

#: The slash command's sub-commands (offered by tab completion in the chat).
SUBCOMMANDS = ["stats", "hello"]


def greeting(who: str) -> str:
    """The greeting both commands print."""
    # placeholders are named and filled with .format(): never an f-string inside _()
    return _("Hello, {who}, from the {{title}} plugin!").format(who=who)


# click's help is given as help=_(...): a docstring cannot be translated
@click.command(
    name="{{name}}",
    help=_("Greet WHO (the {{title}} plugin's example command)."),
)
@click.argument("who", required=False, default="world")
@click.option("--json", "as_json", is_flag=True, help=_("Print one JSON object."))
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
    # a count picks its form with ngettext: "1 message", "2 messages" (each language's rules)
    return ngettext(
        "{count} message ({asked} from you), {input} input and {output} output tokens",
        "{count} messages ({asked} from you), {input} input and {output} output tokens",
        len(messages),
    ).format(count=len(messages), asked=asked, input=usage.input_tokens,
             output=usage.output_tokens)


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
        first, second = SUBCOMMANDS
        app.console.print(_("unknown sub-command '{action}': use {first} or {second}").format(
            action=action, first=first, second=second))


def slash_command() -> SlashCommand:
    """The :class:`~chatcli.SlashCommand` this plugin registers."""
    return SlashCommand(
        name="{{name}}",
        help=_("Conversation stats (stats) or a greeting (hello WHO)"),
        run=run_slash,
        subcommands=SUBCOMMANDS,
    )
