"""The ``chatcli`` command line: the root command, its sub-commands and error handling.
(Until kernel 2.0 this was the kernel's ``chatcli._cli``.)

:func:`run` loads the plugins once, builds the click group (the sub-commands plugins add
through ``register_commands``: chatcli-admin's ``config``, ``keys``, ``models``, ``plugins``,
``trust`` among them) and turns every failure into one line on stderr and an exit code: 0 ok,
1 provider error, 2 usage or config error, 130 interrupted.

Only click and the light kernel modules are imported here (its private front-end helpers,
:mod:`chatcli._cli.common`, among them: chatcli-cli is released with the kernel); the engine,
settings and renderers load inside the commands, so ``chatcli --help`` stays fast and imports
no provider SDK.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from typing import TYPE_CHECKING, Any

import click
from chatcli import __version__, error_line, require_utf8, translation
from chatcli._cli import set_running_host
from chatcli._cli.common import AppState, get_state

from chatcli_cli._click_words import install as install_click_words
from chatcli_cli._startup import help_width, start_command

if TYPE_CHECKING:
    from collections.abc import Callable

    from chatcli import PluginHost

__all__ = ["build_cli", "run"]

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
_, ngettext = translation(__name__)
install_click_words()  # before the options below: click's defaults (--version's help) are words


class FreeText(click.types.StringParamType):
    """Free text (a prompt) that :func:`chatcli.require_utf8` leaves alone: the command replaces
    bytes that are not UTF-8 itself (:func:`chatcli.clean_text`)."""


def debug_enabled() -> bool:
    """Whether ``CHATCLI_DEBUG`` asks for tracebacks."""
    return os.environ.get("CHATCLI_DEBUG", "") not in ("", "0", "false", "no")

def _json_mode(ctx: click.Context, _param: click.Parameter, value: bool) -> bool:
    """``--json`` is eager: known before any other option can fail, so that failure is a JSON
    object on stdout too."""
    if value:
        get_state(ctx).json_errors = True
    return value


class _ReaderGone(Exception):
    """stdout's reader closed the pipe (``chatcli -p … | head -1``): a normal end."""


class _RootGroup(click.Group):
    """The root command: sub-commands, or a prompt given with ``-p``."""

    #: adds every plugin's commands, when only those of the plugins adding the command asked
    #: for were added (``PluginHost.add_commands``): for a command not found, or a listing
    more_commands: Callable[[], None] | None = None

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            self._add_more()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_more()
        return super().list_commands(ctx)

    def _add_more(self) -> None:
        more, self.more_commands = self.more_commands, None
        if more is not None:
            more()
            require_utf8(self)

    def invoke(self, ctx: click.Context) -> Any:
        start_command()  # the garbage collector runs again (held off during start-up)
        try:
            return super().invoke(ctx)
        except BrokenPipeError as err:  # before click's own handler, which exits with 1
            raise _ReaderGone from err

    def resolve_command(self, ctx: click.Context, args: list[str]
                        ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as err:
            if args and not args[0].startswith("-") and (len(args) > 1 or " " in args[0]):
                words = " ".join(args)
                # (click declares message Final, yet it is a plain attribute its show() reads)
                err.message += " " + _('To ask a question: chatcli -p "{words}"').format(  # type: ignore[misc]
                    words=words[:60])
            raise

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        formatter.write_text(_("Exit codes: 0 ok, 1 provider error, 2 usage or config error, "
                               "130 interrupted."))


@click.group(
    cls=_RootGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    options_metavar=_("[OPTIONS]"), subcommand_metavar=_("[COMMAND] [ARGS]..."),
    # i18n: keep the three example command lines as they are, the columns aligned
    help=_("chatcli: an AI assistant in your terminal.\n\n\b\n"
           "chatcli                       interactive chat (needs chatcli-repl)\n"
           "chatcli -p \"question\"         answer once and exit\n"
           "git diff | chatcli -p review  send piped text along with the prompt"),
)
@click.option("-p", "--prompt", metavar=_("TEXT"), type=FreeText(),
              help=_("Answer TEXT and exit ('-' reads the prompt from stdin). Piped stdin is "
                     "appended to the prompt."))
@click.option("--provider", metavar=_("NAME"), help=_("Provider to use (see `chatcli models`)."))
@click.option("-m", "--model", metavar=_("NAME"), help=_("Model to use."))
@click.option("-s", "--system", metavar=_("TEXT"), type=FreeText(),
              help=_("Extra system prompt text."))
@click.option("--json", "as_json", is_flag=True, is_eager=True, callback=_json_mode,
              help=_("Print one JSON object: text, provider, model, usage, stop_reason."))
@click.option("--raw", is_flag=True, help=_("Print the answer as plain text (no markdown)."))
@click.option("-c", "--continue", "continue_last", is_flag=True,
              help=_("Continue this project's most recent session."))
@click.option("--resume", metavar="[ID]", is_flag=False, flag_value="",
              help=_("Resume the session ID; without ID, choose one of this project's."))
@click.option("--trace-hooks", is_flag=True,
              help=_("Print every plugin hook call and its result on stderr."))
@click.version_option(__version__, "-V", "--version", prog_name="chatcli",
                      message="%(prog)s %(version)s", help=_("Show the version and exit."))
@click.pass_context
def cli(ctx: click.Context, /, **options: Any) -> int | None:
    """The root command: a sub-command, or the chat or a prompt (``-p``)."""
    state = get_state(ctx)
    if options.pop("trace_hooks", False):  # (no root option before a sub-command: build_cli)
        state.host.enable_tracing()
    # the values of the options plugins added (register_cli_options), by name
    options["plugin_options"] = {name: options.pop(name) for name in state.plugin_options}
    if ctx.invoked_subcommand is not None:
        state.json_errors = False  # --json is -p's; sub-commands report as usual
        return None
    from chatcli_cli._oneshot import main_command

    return main_command(state.host, options)


def build_cli(host: PluginHost, state: AppState | None = None,
              args: list[str] | None = None) -> click.Group:
    """A fresh root group with the options and commands ``host``'s plugins add (``config``,
    ``keys``, ``models``, ``plugins`` and ``trust`` come from chatcli-admin); ``state`` learns
    the names of the plugins' options. With ``args`` starting with a sub-command (``chatcli
    models``), which takes no root option, the group has none (click would parse each to its
    default, and the root callback needs none of them for a sub-command), the plugins are not
    asked for theirs (nor imported for them), and only those known to add that command are asked
    for commands (:meth:`PluginHost.add_commands`; the others when click looks up another
    command)."""
    group = object.__new__(type(cli))  # a shallow copy of the root command
    group.__dict__.update(cli.__dict__)
    group.commands = {}
    sub_command = args is not None and len(args) > 0 and not args[0].startswith("-")
    if sub_command:
        group.params = []
    else:
        added = _plugin_options(host, group.params)
        if state is not None:
            state.plugin_options = tuple(option.name for option in added if option.name)
        where = next(i for i, param in enumerate(group.params) if param.name == "continue_last")
        group.params = [*group.params[:where], *added, *group.params[where:]]
    group.more_commands = host.add_commands(group, args[0] if sub_command and args else None)
    require_utf8(group)  # plugins' commands too: argv can hold bytes that are not UTF-8
    return group


def _plugin_options(host: PluginHost, taken: list[click.Parameter]) -> list[click.Option]:
    """The options plugins add through ``register_cli_options``; one whose name or flags are
    taken, or that is no ``click.Option``, is reported and left out."""
    names = {param.name for param in taken}
    flags = {flag for param in taken for flag in (*param.opts, *param.secondary_opts)}
    added: list[click.Option] = []

    def register(option: object) -> None:  # (what a plugin passed: checked below)
        from chatcli._guard import current_plugin

        plugin = current_plugin.get() or "?"
        if not isinstance(option, click.Option):
            shown = repr(option) if len(repr(option)) <= 60 else repr(option)[:59] + "…"
            host.warn(_("plugin {plugin!r} registered {kind} {value} as a command-line option, "
                        "expected click.Option (ignored)").format(
                plugin=plugin, kind=type(option).__name__, value=shown))
            return
        clash = sorted(flags.intersection((*option.opts, *option.secondary_opts)))
        if option.name in names or clash:
            host.warn(_("plugin {plugin!r} registered the option {option}, which another option "
                        "has (ignored)").format(plugin=plugin,
                                                option=repr(clash[0] if clash else option.name)))
            return
        names.add(option.name)
        flags.update((*option.opts, *option.secondary_opts))
        added.append(option)

    host.hooks.register_cli_options(register=register)
    return added


def run(argv: list[str] | None = None, host: PluginHost | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    ``host`` is the plugin host to use; by default one is built and the installed plugins are
    loaded (once). Tests pass a host with scripted providers registered.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    state: AppState | None = None
    try:
        if host is None:
            from chatcli import PluginHost

            host = PluginHost()
            host.load_entry_points()
        set_running_host(host)  # settings read without a host ask this one (chatcli._trust)
        state = AppState(host=host)
        result = build_cli(host, state, args).main(
            args=args, prog_name="chatcli", standalone_mode=False, obj=state,
            terminal_width=help_width(),
        )
    except (_ReaderGone, BrokenPipeError):
        _silence_stdout()
        return EXIT_OK
    except (Exception, KeyboardInterrupt) as err:
        code, message = _failure(err)
        # (a usage error click found in the root options comes before --json was seen)
        root_usage = (isinstance(err, click.UsageError) and err.ctx is not None
                      and err.ctx.parent is None)
        if message is not None and state is not None and (
                state.json_errors or (root_usage and "--json" in args)):
            _print_json_error(message, err)
        if isinstance(err, OSError) and err.errno in _DISK_FULL:  # quiet the final flush
            _silence_stdout()
        if message is not None and code != EXIT_INTERRUPTED:
            error_line(message)
        return code
    return result if isinstance(result, int) else EXIT_OK


def _failure(err: BaseException) -> tuple[int, str | None]:
    """The exit code of a failure and its one-line message (None when there is none to show;
    an interrupt's is only for ``--json``). A bug is one line too, unless CHATCLI_DEBUG asks
    for the traceback (as for chatcli's own errors)."""
    from chatcli import ChatcliError

    if isinstance(err, click.exceptions.Exit):
        return int(err.exit_code), None
    if isinstance(err, click.exceptions.Abort | KeyboardInterrupt):  # click printed a newline
        if isinstance(err, KeyboardInterrupt):
            print(file=sys.stderr)
        return EXIT_INTERRUPTED, _("interrupted before the answer started")
    if isinstance(err, click.ClickException):
        usage = isinstance(err, click.UsageError)
        where = err.ctx.command_path if isinstance(err, click.UsageError) and err.ctx else "chatcli"
        hint = " " + _("(see `{command} --help`)").format(command=where) if usage else ""
        return EXIT_USAGE if usage else err.exit_code, err.format_message() + hint
    if isinstance(err, OSError) and err.errno in _DISK_FULL:
        return EXIT_PROVIDER, _("cannot write: {reason} — free some space, or send the output to "
                                "another disk").format(reason=os.strerror(err.errno))
    if debug_enabled():
        import traceback

        traceback.print_exc()
    if isinstance(err, ChatcliError):
        return err.exit_code, str(err)
    first = (str(err).splitlines() or [""])[0]
    return EXIT_PROVIDER, _("unexpected {kind}: {message} (set CHATCLI_DEBUG=1 for the "
                            "traceback)").format(kind=type(err).__name__, message=first)


#: errno values that mean the output (or a file chatcli writes) has no room left.
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def _print_json_error(message: str, err: BaseException) -> None:
    """``--json``: the failure as the one JSON object on stdout (where a script reads)."""
    import json

    from chatcli import redact

    kind = "UsageError" if isinstance(err, click.UsageError) else type(err).__name__
    with contextlib.suppress(OSError, ValueError, AttributeError):  # stdout closed or full
        print(json.dumps({"error": redact(message), "type": kind}, ensure_ascii=False),
              flush=True)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
