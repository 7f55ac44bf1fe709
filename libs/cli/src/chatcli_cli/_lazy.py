"""Click groups and commands whose code is imported only when they run.

``chatcli --help`` imports every plugin's entry module and lists every command; a plugin with a
big command group registers ``LazyGroup("sessions", "Saved conversations…",
"chatcli_sessions.cli:sessions")`` instead, so only ``chatcli sessions …`` pays for it. The help
line may be a function giving it (``lambda: _("Saved conversations…")``): then a run that never
shows it (``chatcli models``) reads no catalog for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["LazyCommand", "LazyGroup"]


def _load(command: LazyGroup | LazyCommand, target: str) -> None:
    """Import the real command ``target`` (``module:attribute``) names and make ``command`` it:
    its parameters, callback, text (and sub-commands); then ``command.after_load`` (the
    kernel's UTF-8 check of text parameters, set by ``chatcli.require_utf8``)."""
    from importlib import import_module

    module, _, attribute = target.partition(":")
    real = getattr(import_module(module), attribute)
    command.params, command.callback = real.params, real.callback
    command.help, command.epilog, command.short_help = real.help, real.epilog, real.short_help
    if isinstance(command, click.Group):
        command.commands = real.commands
    if command.after_load is not None:
        command.after_load(command)


class _LazyHelp:
    """``help`` given as a function is called when something reads it (once)."""

    _help: str | Callable[[], str] | None

    @property
    def help(self) -> str | None:
        if callable(self._help):
            self._help = self._help()
        return self._help

    @help.setter
    def help(self, value: str | Callable[[], str] | None) -> None:
        self._help = value


class LazyGroup(_LazyHelp, click.Group):
    """A sub-command group whose code is imported only when it is used: ``target`` is
    ``module:attribute`` naming the real :class:`click.Group`; ``help`` is the line the root
    help shows, or a function giving it (keep it the real group's first help line)."""

    #: called with the group once its real commands are in (the kernel's UTF-8 check)
    after_load: Callable[[click.Command], None] | None = None

    def __init__(self, name: str, help: str | Callable[[], str], target: str) -> None:
        super().__init__(name=name, help=help)
        self._target = target
        self._loaded = False

    def _load(self) -> None:
        if not self._loaded:
            _load(self, self._target)
            self._loaded = True

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        self._load()
        return super().parse_args(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load()
        return super().list_commands(ctx)


class LazyCommand(_LazyHelp, click.Command):
    """A command whose module is imported only when it runs (as :class:`LazyGroup` does for
    groups): ``target`` is ``module:attribute``; ``help`` and ``short_help`` are what the root
    help lists (keep them the real command's)."""

    #: called with the command once its real parameters are in (the kernel's UTF-8 check)
    after_load: Callable[[click.Command], None] | None = None

    def __init__(self, name: str, help: str | Callable[[], str], target: str,
                 short_help: str | None = None) -> None:
        self._target = target
        self._loaded = False
        super().__init__(name=name, help=help, short_help=short_help)  # type: ignore[arg-type]

    @property
    def callback(self) -> Callable[..., Any] | None:
        """The real command's callback (``ctx.invoke(command)`` from another command too)."""
        self._load()
        return self._callback

    @callback.setter
    def callback(self, value: Callable[..., Any] | None) -> None:
        self._callback = value

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True  # first: reading the callback loads
            _load(self, self._target)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        self._load()
        return super().parse_args(ctx, args)
