"""The root command without a sub-command: ``chatcli``, ``chatcli -p PROMPT``, piped stdin.

The front end checks what every root command needs (one session to go on with, a stdout to
write to), replaces the undecodable bytes of the command line's free text (``-p``,
``--system``) and hands the ``-p`` text (None without ``-p``) to the ``cmdline_main`` hook:
chatcli-repl runs the chat when there is no ``-p`` and stdin is a terminal, chatcli-print
answers otherwise (it reads piped stdin). When no plugin answers, one line names the plugin to
install.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli import PluginHost, SessionOptions

__all__ = ["main_command"]

_, ngettext = translation(__name__)


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _session_options(options: dict[str, Any]) -> SessionOptions:
    """The command line's options as the :class:`~chatcli.SessionOptions` of a session: a
    plugin's option named like one of its fields fills it, the others (``--json`` and ``--raw``
    among them) are its ``extra``."""
    from dataclasses import fields

    from chatcli import SessionOptions

    known = {field.name for field in fields(SessionOptions)} - {"extra"}
    given = {**(options.get("plugin_options") or {}), "as_json": bool(options.get("as_json")),
             "raw": bool(options.get("raw"))}
    named = {name: given.pop(name) for name in list(given) if name in known}
    return SessionOptions(**{
        "provider": options.get("provider"), "model": options.get("model"),
        "resume": options.get("resume"), "continue_last": bool(options.get("continue_last")),
        "system": options.get("system"), **named, "extra": given,
    })


def main_command(host: PluginHost, options: dict[str, Any]) -> int:
    """The root command without a sub-command: hand it to the plugin that runs it.

    With ``--json`` every failure, a usage error too, is also printed as one JSON object on
    stdout (by :func:`chatcli_cli.root.run`), so a script that parses stdout always gets an object.
    """
    from chatcli import UsageError, clean_text, load_settings

    if options.get("continue_last") and options.get("resume") is not None:
        raise UsageError(_("-c and --resume both choose the session to go on with"),
                         _("give one: -c for the most recent session, --resume ID for another"))
    if sys.stdout is None:  # started with stdout closed (`>&-`): the answer has nowhere to go
        raise UsageError(_("stdout is closed, so the answer has nowhere to go"),
                         _("redirect it instead, e.g. `> answer.txt` or `> /dev/null`"))
    prompt: str | None = options.get("prompt")
    if prompt is not None:
        prompt = clean_text(prompt)
    if options.get("system"):
        options = {**options, "system": clean_text(options["system"])}
    settings = load_settings({key: options.get(key) for key in ("provider", "model", "system")})
    result = host.hooks.cmdline_main(host=host, settings=settings, prompt=prompt,
                                     options=_session_options(options))
    if result is None:
        chat = prompt is None and _stdin_is_tty()
        name = "repl" if chat else "print"
        if name in host.skipped:  # installed, left out by the selection: not a pip matter
            raise UsageError((_("interactive chat needs chatcli-repl, which CHATCLI_PLUGINS or "
                                "CHATCLI_DISABLE_PLUGINS leaves out") if chat else
                              _("answering a prompt needs chatcli-print, which CHATCLI_PLUGINS "
                                "or CHATCLI_DISABLE_PLUGINS leaves out")),
                             _("add {name} to CHATCLI_PLUGINS (or take it out of the other)"
                               ).format(name=name))
        raise UsageError(_("interactive chat needs chatcli-repl: pip install chatcli-repl")
                         if chat else
                         _("answering a prompt needs chatcli-print: pip install chatcli-print"))
    return int(result)
