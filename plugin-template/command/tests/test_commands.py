"""Tests of ``chatcli {{name}}`` and ``/{{name}}``.

The click command is run on a real click group the way chatcli adds it (through the
``register_commands`` hook); the slash command is run with a small stand-in for the chat that has
the two things it uses from :class:`chatcli.ChatApp`: a rich console and the conversation. The
last tests run them in Brazilian Portuguese (``CHATCLI_LANG=pt_BR``), from the package's catalog.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import click
from chatcli import Conversation, Message, PluginHost, Usage
from click.testing import CliRunner
from rich.console import Console

from {{package}} import plugin


def host() -> PluginHost:
    """A plugin host with only this plugin registered."""
    host = PluginHost()
    assert host.register(plugin, "{{name}}")
    return host


def cli_with_plugin() -> click.Group:
    """A stand-in for chatcli's root command, extended by this plugin's hook."""

    @click.group()
    def cli() -> None:
        """chatcli."""

    host().hooks.register_commands(cli=cli)
    return cli


class ChatStandIn:
    """What ``/{{name}}`` uses of the chat: a console and the conversation."""

    def __init__(self) -> None:
        self.output = io.StringIO()
        self.console = Console(file=self.output, width=120, no_color=True)
        self.conversation = Conversation()


def test_the_command_is_added_to_the_command_line():
    result = CliRunner().invoke(cli_with_plugin(), ["{{name}}", "Ada"])
    assert result.exit_code == 0, result.output
    assert result.output == "Hello, Ada, from the {{title}} plugin!\n"


def test_the_command_prints_json_and_has_help():
    cli = cli_with_plugin()
    result = CliRunner().invoke(cli, ["{{name}}", "--json"])
    expected = "Hello, world, from the {{title}} plugin!"
    assert json.loads(result.output) == {"greeting": expected}
    assert "{{name}}" in CliRunner().invoke(cli, ["--help"]).output


def test_the_slash_command_is_registered_with_its_subcommands():
    command = host().slash_commands()["{{name}}"]
    assert command.subcommands == ["stats", "hello"]


def test_the_slash_command_reports_the_conversation():
    chat = ChatStandIn()
    chat.conversation.append(Message.user("What is chatcli?"))
    answer = Message.assistant("A terminal assistant.")
    answer.usage = Usage(input_tokens=120, output_tokens=30)
    chat.conversation.append(answer)

    host().slash_commands()["{{name}}"].run(chat, "stats")

    assert chat.output.getvalue().strip() == (
        "2 messages (1 from you), 120 input and 30 output tokens"
    )


def test_the_slash_command_greets_and_explains_unknown_subcommands():
    chat = ChatStandIn()
    command = host().slash_commands()["{{name}}"]
    command.run(chat, "hello Grace Hopper")
    command.run(chat, "frobnicate")
    lines = chat.output.getvalue().splitlines()
    assert lines[0] == "Hello, Grace Hopper, from the {{title}} plugin!"
    assert lines[1] == "unknown sub-command 'frobnicate': use stats or hello"


# ------------------------------------------------------------------------------ translations
# The package's catalog, locale/pt_BR/LC_MESSAGES/messages.po, is compiled into messages.mo
# by hatch-babel when the package is built or installed (`pip install -e` too).


def test_the_plugin_speaks_brazilian_portuguese(chatcli_language):
    chatcli_language("pt_BR")  # CHATCLI_LANG=pt_BR for the rest of the test
    chat = ChatStandIn()
    chat.conversation.append(Message.user("O que é o chatcli?"))
    command = host().slash_commands()["{{name}}"]
    command.run(chat, "hello Ada")
    command.run(chat, "stats")
    command.run(chat, "frobnicate")
    assert chat.output.getvalue().splitlines() == [
        "Olá, Ada, do plugin {{title}}!",
        "1 mensagem (1 de você), 0 tokens de entrada e 0 de saída",
        "subcomando desconhecido 'frobnicate': use stats ou hello",
    ]
    assert command.help == "Estatísticas da conversa (stats) ou um cumprimento (hello WHO)"


def test_the_command_line_help_is_translated_under_chatcli_lang():
    # click's help is made when the module is imported: a new process, in Portuguese
    code = ("from click.testing import CliRunner\n"
            "from {{package}}.commands import command\n"
            "print(CliRunner().invoke(command, ['--help']).output)")
    expected = {"pt_BR": "Imprime um objeto JSON.", "en": "Print one JSON object."}
    for language, words in expected.items():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, "CHATCLI_LANG": language}, check=True)
        assert words in done.stdout, done.stdout + done.stderr
