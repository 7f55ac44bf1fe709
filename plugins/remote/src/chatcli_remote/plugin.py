"""Entry module of chatcli-remote (entry point ``remote``): hook implementations only. It imports
chatcli and click; the ACP agent, the server (Starlette, uvicorn), the client (httpx) and the
web page load only in the commands that use them.

- ``add_hookspecs``: declares ``progress_items`` (:mod:`.hookspecs`).
- ``register_commands``: ``chatcli serve`` (a group: the server and ``token create/list/revoke``)
  and ``chatcli acp`` (the Agent Client Protocol over stdio), both imported when used.
- ``register_cli_options``: ``--remote URL`` (``chatcli`` and ``chatcli -p`` against a server).
- ``register_setting_rules``: ``[serve]``, ``[acp]`` and ``[remote]`` are the user's alone (a
  project's file cannot open the server to the network or send the token elsewhere).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    import click

_, ngettext = translation(__name__)


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare ``progress_items``: plugins say what a session is busy with (the subagents
    board), shown as ACP plan updates, SSE ``progress`` events and on the web page."""
    from chatcli_remote import hookspecs

    add(hookspecs)


@hookimpl
def register_commands(cli: click.Group) -> None:
    """``chatcli serve`` and ``chatcli acp`` (imported when used)."""
    from chatcli_cli import LazyCommand, LazyGroup

    serve = LazyGroup("serve",
        lambda: _("Serve chatcli over HTTP: an API with SSE streams, tokens and a web "
                  "page."),
        "chatcli_remote.serve.cli:serve")
    # `chatcli serve` alone runs the server (LazyGroup copies no group flags from the real one)
    serve.invoke_without_command, serve.no_args_is_help = True, False
    cli.add_command(serve)
    cli.add_command(LazyCommand("acp",
        lambda: _("Run as an Agent Client Protocol agent on stdin/stdout (for editors "
                  "such as Zed)."),
        "chatcli_remote.acp.cli:acp"))


def _remote_target(_ctx: Any, _param: Any, value: str | None) -> Any:
    """``--remote URL`` -> a ``RemoteTarget`` (chatcli-repl and chatcli-print open their session
    through it: ``options.extra["remote"].session(...)``)."""
    if not value:
        return None
    from chatcli_remote.client import RemoteTarget

    return RemoteTarget.from_option(value)


@hookimpl
def register_cli_options(register: Callable[[click.Option], None]) -> None:
    """``--remote URL``: the chat and ``-p`` run against a ``chatcli serve`` server."""
    import click

    register(click.Option(
        ["--remote"], metavar="URL", callback=_remote_target, expose_value=True,
        help=_("Talk to a chatcli server (chatcli serve) instead of running the model here; "
               "the token comes from CHATCLI_REMOTE_TOKEN or `chatcli keys set remote --force`.")))


@hookimpl
def register_setting_rules(register: Callable[[Any], None]) -> None:
    """``[serve]``, ``[acp]`` and ``[remote]`` come from the user's files only."""
    from chatcli import SettingRule

    for table in ("serve", "acp", "remote"):
        register(SettingRule(table, "never"))
