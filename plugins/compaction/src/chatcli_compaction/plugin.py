"""Entry module of chatcli-compaction (hook implementations only; strategies load when used).

The kernel calls ``compact_view`` when the view passes its threshold (and for ``/compact``);
the run (:mod:`chatcli_compaction.runner`) then asks for the strategies, and each one's module is
imported when it first runs, so ``chatcli --help`` and a chat that never compacts import none of
them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import (
        Compaction,
        Conversation,
        Engine,
        PluginHost,
        Settings,
        SlashCommand,
        Use,
    )
    from chatcli_plugin_records import CompactionJob, CompactionReport, CompactionStrategy


_, ngettext = translation(__name__)


def _lazy(module: str) -> Callable[[CompactionJob], list[Compaction]]:
    """``run`` of ``chatcli_compaction.<module>``, imported on first use."""

    def run(job: CompactionJob) -> list[Compaction]:
        from importlib import import_module

        strategy: Callable[[CompactionJob], list[Compaction]] = import_module(
            f"chatcli_compaction.{module}").run
        return strategy(job)

    run.__name__ = f"{module}_run"
    return run


@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare ``register_compaction_strategies`` (:mod:`chatcli_compaction.hookspecs`)."""
    from chatcli_compaction import hookspecs

    add(hookspecs)


@hookimpl
def compact_view(engine: Engine, conversation: Conversation, reason: str,
                 instruction: str | None, use: Use, settings: Settings
                 ) -> CompactionReport | None:
    """Run the registered strategies (:func:`chatcli_compaction.runner.compact_view`)."""
    from chatcli_compaction import runner

    return runner.compact_view(engine, conversation, reason, instruction, use, settings)


@hookimpl
def configure(host: PluginHost, settings: Settings, workspace: Path) -> None:
    """Check the ``[compaction]`` table once: each wrong value is one warning (defaults used)."""
    table = settings.plugin_table("compaction")
    if table:
        from chatcli_compaction.settings import read_config

        read_config(table, host.warn)


@hookimpl
def register_compaction_strategies(register: Callable[[CompactionStrategy], None]) -> None:
    """trim (100), summarise (200, the model), truncate (300, the last resort)."""
    from chatcli_plugin_records import CompactionStrategy

    register(CompactionStrategy(
        "trim", _lazy("trim"), order=100,
        description=_("no model call: reasoning blocks, verbose markup, duplicates, injected "
                      "copies; long and old tool results cut to head and tail or one line")))
    register(CompactionStrategy(
        "summarise", _lazy("summarise"), order=200, uses_model=True,
        description=_("the model summarises the middle of the conversation (files, commands, "
                      "decisions, errors, task state); recent and pinned messages stay")))
    register(CompactionStrategy(
        "truncate", _lazy("truncate"), order=300,
        description=_("last resort: the oldest middle messages are dropped, with a note")))


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """``/compact [instruction]``, ``/compact undo [all]``, ``/compact status``."""
    from chatcli import SlashCommand

    register(SlashCommand(
        name="compact", run=_compact, subcommands=["undo", "status"],
        help=_("shrink the conversation's view now (the log keeps everything): /compact "
               "[instruction] | undo [all] | status")))


def _compact(app: Any, argument: str) -> None:
    from chatcli_compaction.commands import compact_command

    compact_command(app, argument)
