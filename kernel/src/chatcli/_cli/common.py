"""Small helpers shared by the ``chatcli`` front end (chatcli-cli) and plugins' sub-commands:
the run state, one-line errors, the UTF-8 check of text arguments and the cleaning of free text
(``cli_host``, ``error_line``, ``require_utf8`` and ``clean_text`` are public).

Kept light (click only): ``chatcli --help`` imports this module.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from chatcli._i18n import translation

if TYPE_CHECKING:
    from chatcli._plugins import PluginHost

__all__ = ["UTF8_TEXT", "AppState", "Utf8Text", "clean_text", "cli_host", "error_line", "get_state",
           "require_utf8"]
_, ngettext = translation(__name__)


class AppState:
    """What every sub-command can reach through ``ctx.obj``: the loaded plugin host, whether
    a failure must also be printed as a JSON object on stdout (``chatcli -p … --json``), and the
    names of the root options plugins added."""

    def __init__(self, host: PluginHost, json_errors: bool = False) -> None:
        self.host = host
        self.json_errors = json_errors
        self.plugin_options: tuple[str, ...] = ()


def get_state(ctx: click.Context) -> AppState:
    """The :class:`AppState` of the running command line."""
    state = ctx.find_object(AppState)
    if state is None:  # pragma: no cover - run() always provides one
        raise RuntimeError("chatcli's command line was started without run()")
    return state


def cli_host(ctx: click.Context) -> PluginHost:
    """The plugin host of the running ``chatcli`` command line, for a plugin's click command
    (``chatcli models`` lists ``cli_host(ctx).providers()``): the plugins are loaded once."""
    return get_state(ctx).host


def error_line(message: str) -> None:
    """Print ``chatcli: error: MESSAGE`` (one line, known and key-shaped secrets redacted)
    on stderr."""
    from chatcli._errors import redact

    text = redact(" ".join(str(message).split("\n")).strip())
    print(_("chatcli: error: {message}").format(message=text),
          file=sys.stderr, flush=True)


class Utf8Text(click.types.StringParamType):
    """Text that must be valid UTF-8 (a name, a key, a value): other bytes are a usage error
    naming the parameter, before the command runs."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        text: str = super().convert(value, param, ctx)
        # Python keeps argv's bytes that are not UTF-8 as lone surrogates, which would fail far
        # from their cause (writing a file, sending a request): refused here, shown as typed
        try:
            text.encode("utf-8")
            return text
        except UnicodeEncodeError:
            pass
        from chatcli._errors import UsageError

        try:
            shown = text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:
            shown = text.encode("utf-8", "backslashreplace").decode("ascii")
        if isinstance(param, click.Option):
            name = max(param.opts, key=len)
        else:
            name = param.human_readable_name if param is not None else _("an argument")
        if len(shown) > 60:
            shown = shown[:59] + "…"
        raise UsageError(_("{name} is not valid UTF-8: '{text}'").format(name=name, text=shown),
                         _("type it again as UTF-8 text (check the terminal's encoding and "
                           "`locale`)"))


#: The type :func:`require_utf8` gives plain text parameters.
UTF8_TEXT = Utf8Text()


def require_utf8(command: click.Command) -> None:
    """Give every plain text parameter (``type=str`` or none) of ``command`` and its
    sub-commands the :class:`Utf8Text` check. A plugin's command opts out of it with any other
    type: ``click.Path`` for file names, or its own (the root's ``-p`` takes free text, whose
    undecodable bytes :func:`clean_text` replaces)."""
    for param in command.params:
        if type(param.type) is click.types.StringParamType:
            param.type = UTF8_TEXT
    if hasattr(command, "after_load"):  # a lazy command (chatcli-cli): once it is loaded
        command.after_load = require_utf8
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            require_utf8(sub)


def clean_text(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes in argv or stdin) replaced by U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        try:  # bytes that the OS decoding escaped: decode them again, replacing bad ones
            return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
        except UnicodeEncodeError:
            return text.encode("utf-8", "replace").decode("utf-8")
    return text
