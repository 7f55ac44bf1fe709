"""Every help text of the real command line — each command's help and summary, each option's
help, the plugins' root options included — is a message of some distribution's catalog, so it
has a Portuguese translation (test_catalogs checks the catalogs are complete, their templates
included: each is what its distribution's sources mark)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import click
from chatcli import PluginHost
from chatcli._cli import set_running_host
from chatcli._cli.common import AppState
from chatcli_cli.root import build_cli
from i18n_support import translated_distributions


def _messages() -> set[str]:
    from babel.messages.pofile import read_po

    found = set()
    for dist in translated_distributions():
        if not dist.template.exists():
            continue
        with dist.template.open("rb") as handle:
            template = read_po(handle)
        for message in template:
            if not message.id:
                continue
            for text in message.id if isinstance(message.id, tuple) else (message.id,):
                found.add(inspect.cleandoc(str(text)))
    return found


def _help_texts(command: click.Command, path: str) -> Iterator[tuple[str, str]]:
    ctx = click.Context(command, info_name=path.split()[-1])
    for text in (command.help, command.short_help):
        if text:
            yield path, text
    for param in command.params:
        if isinstance(param, click.Option) and param.help and not param.hidden:
            yield f"{path} {param.opts[0]}", param.help
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from _help_texts(sub, f"{path} {name}")


def test_every_help_text_of_the_command_line_is_in_a_catalog(home):
    host = PluginHost()
    host.load_entry_points()
    set_running_host(host)
    root = build_cli(host, AppState(host=host))
    texts = list(_help_texts(root, "chatcli"))
    assert len(texts) > 100, len(texts)  # the whole tree: every plugin's commands
    messages = _messages()
    missing = [f"{where}: {text!r}" for where, text in texts
               if inspect.cleandoc(text) not in messages]
    assert not missing, f"{len(missing)} help texts not marked:\n" + "\n".join(missing)
