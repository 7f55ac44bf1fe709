"""The ``chatcli`` command line: the root command, its sub-commands and error handling.

:func:`run` loads the plugins once, builds the click group (built-in sub-commands plus those
plugins add through ``register_commands``) and turns every failure into one line on stderr and
an exit code: 0 ok, 1 provider error, 2 usage or config error, 130 interrupted.

Only click and the light kernel modules are imported here; the engine, settings and renderers load
inside the commands, so ``chatcli --help`` stays fast and imports no provider SDK.
"""

from __future__ import annotations

import errno
import os
import sys
import traceback
from typing import TYPE_CHECKING, Any

import click

from chatcli import __version__
from chatcli._cli.common import AppState, debug_enabled, error_line

if TYPE_CHECKING:
    from chatcli._plugins import PluginHost

__all__ = ["RISK_CLASSES", "build_cli", "run"]

EXIT_OK, EXIT_PROVIDER, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: What ``--allow`` accepts (besides ``all``).
RISK_CLASSES = ("read", "write", "execute", "network")


def _parse_allow(_ctx: click.Context, _param: click.Parameter, value: str | None) -> frozenset[str]:
    if not value:
        return frozenset()
    names = {part.strip().lower() for part in value.split(",") if part.strip()}
    if "all" in names:
        return frozenset(RISK_CLASSES)
    unknown = sorted(names - set(RISK_CLASSES))
    if unknown:
        raise click.BadParameter(
            f"unknown risk class {', '.join(unknown)}; use {','.join(RISK_CLASSES)} or all"
        )
    return frozenset(names)


class _RootGroup(click.Group):
    """The root command: sub-commands, or a prompt given with ``-p``."""

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[override]
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as err:
            if args and not args[0].startswith("-") and (len(args) > 1 or " " in args[0]):
                words = " ".join(args)
                err.message += f' To ask a question: chatcli -p "{words[:60]}"'
            raise

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        formatter.write_paragraph()
        formatter.write_text(
            "Exit codes: 0 ok, 1 provider error, 2 usage or config error, 130 interrupted."
        )


@click.group(
    cls=_RootGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option("-p", "--prompt", metavar="TEXT",
              help="Answer TEXT and exit ('-' reads the prompt from stdin). Piped stdin is "
                   "appended to the prompt.")
@click.option("--provider", metavar="NAME", help="Provider to use (see `chatcli models`).")
@click.option("-m", "--model", metavar="NAME", help="Model to use.")
@click.option("-s", "--system", metavar="TEXT", help="Extra system prompt text.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object: text, provider, model, usage, stop_reason.")
@click.option("--raw", is_flag=True, help="Print the answer as plain text (no markdown).")
@click.option("--allow", metavar="CLASSES", callback=_parse_allow,
              help="Pre-approve tool risk classes: read,write,execute,network or all.")
@click.option("-c", "--continue", "continue_last", is_flag=True,
              help="Continue the most recent session.")
@click.option("--resume", metavar="ID", help="Resume the session ID.")
@click.option("--trace-hooks", is_flag=True,
              help="Print every plugin hook call and its result on stderr.")
@click.version_option(__version__, "-V", "--version", prog_name="chatcli",
                      message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context, **options: Any) -> int | None:
    """chatcli: an AI assistant in your terminal.

    \b
    chatcli                       interactive chat (needs chatcli-repl)
    chatcli -p "question"         answer once and exit
    git diff | chatcli -p review  send piped text along with the prompt
    """
    host = get_host(ctx)
    if options.pop("trace_hooks"):
        host.enable_tracing()
    if ctx.invoked_subcommand is not None:
        return None
    from chatcli._cli.oneshot import main_command

    return main_command(host, options)


def get_host(ctx: click.Context) -> PluginHost:
    """The plugin host of this run."""
    state = ctx.find_object(AppState)
    assert state is not None
    return state.host


def _add_builtin_commands(group: click.Group) -> None:
    from chatcli._cli.config import config_group
    from chatcli._cli.keys import keys_group
    from chatcli._cli.models import models_command
    from chatcli._cli.plugins import plugins_group

    for command in (models_command, keys_group, config_group, plugins_group):
        group.add_command(command)


def build_cli(host: PluginHost) -> click.Group:
    """A fresh root group with the built-in commands and those ``host``'s plugins register."""
    import copy

    group = copy.copy(cli)
    group.commands = {}
    _add_builtin_commands(group)
    host.hooks.register_commands(cli=group)
    return group


def _default_host() -> PluginHost:
    from chatcli._plugins import PluginHost

    host = PluginHost()
    host.load_entry_points()
    return host


def run(argv: list[str] | None = None, host: PluginHost | None = None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code.

    ``host`` is the plugin host to use; by default one is built and the installed plugins are
    loaded (once). Tests pass a host with scripted providers registered.
    """
    from chatcli._errors import ChatcliError

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if host is None:
            host = _default_host()
        group = build_cli(host)
        result = group.main(
            args=args, prog_name="chatcli", standalone_mode=False, obj=AppState(host=host)
        )
    except ChatcliError as err:
        if debug_enabled():
            traceback.print_exc()
        error_line(str(err))
        return err.exit_code
    except click.exceptions.Exit as done:
        return int(done.exit_code)
    except click.exceptions.Abort:
        return EXIT_INTERRUPTED
    except click.ClickException as err:
        where = err.ctx.command_path if isinstance(err, click.UsageError) and err.ctx else "chatcli"
        hint = f" (see `{where} --help`)" if isinstance(err, click.UsageError) else ""
        error_line(err.format_message() + hint)
        return EXIT_USAGE if isinstance(err, click.UsageError) else err.exit_code
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OK
    except OSError as err:
        if err.errno not in _DISK_FULL:
            return _unexpected(err)
        _silence_stdout()
        error_line(f"cannot write: {os.strerror(err.errno)}"
                   " — free some space, or send the output to another disk")
        return EXIT_PROVIDER
    except Exception as err:
        return _unexpected(err)
    if isinstance(result, int):
        return result
    return EXIT_OK


#: errno values that mean the output (or a file chatcli writes) has no room left.
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


def _unexpected(err: Exception) -> int:
    """A bug: still one line unless CHATCLI_DEBUG asks for more."""
    if debug_enabled():
        traceback.print_exc()
    from chatcli._errors import redact

    first = (str(err).splitlines() or [""])[0]
    error_line(
        redact(f"unexpected {type(err).__name__}: {first}")
        + " (set CHATCLI_DEBUG=1 for the traceback)"
    )
    return EXIT_PROVIDER


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
