"""``chatcli memory list|search|add|forget|edit|status|export|import``: memory from the shell.

Imported only when one of these commands runs (the root command line names the group through
``LazyGroup``). Each command opens the backend ``memory.backend`` names (from the command
line's plugin host), prints its lines, and exits 1 with one line when it cannot do what was
asked.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from chatcli import translation

__all__ = ["memory"]

_, ngettext = translation(__name__)

F = TypeVar("F", bound=Callable[..., Any])


def _host() -> Any:
    context = click.get_current_context(silent=True)
    state = context.find_root().obj if context is not None else None
    return getattr(state, "host", None)


def _runtime() -> Any:
    from chatcli import load_settings

    from chatcli_memory.runtime import Runtime

    def warn(line: str) -> None:
        click.echo(_("chatcli: warning: {message}").format(message=line), err=True)

    return Runtime(_host(), load_settings(), Path.cwd().resolve(), warn=warn)


def _command(func: F) -> F:
    """Run ``func(runtime, …)``, print its lines; a refusal is one line and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        from chatcli import ChatcliError

        from chatcli_memory.commands import Refused

        runtime = _runtime()
        try:
            lines = func(runtime, *args, **kwargs)
        except (Refused, ChatcliError) as err:
            click.echo(_("Error: {message}").format(message=err), err=True)
            sys.exit(1)
        finally:
            runtime.close()
        for line in lines:
            click.echo(line)

    return wrapper  # type: ignore[return-value]


@click.group("memory", help=_(
    "Long-term memory: list, search, add, forget, edit, export and import it."))
def memory() -> None:
    """Long-term memory: list, search, add, forget, edit, export and import it."""


@memory.command("list", help=_("The items recalled here, newest first."))
@click.option("--all", "archived", is_flag=True, help=_("Archived items too."))
@click.option("--kind", help=_("Only this kind: fact, profile, topic, project, daily."))
@click.option("--limit", type=click.IntRange(1), default=50, show_default=True)
@_command
def list_(runtime: Any, archived: bool, kind: str | None, limit: int) -> list[str]:
    """The items recalled here, newest first."""
    from chatcli_memory.commands import listing

    return listing(runtime, archived=archived, kind=kind, limit=limit)


@memory.command("search", help=_("Items matching QUERY (words, any order), best first."))
@click.argument("query", nargs=-1, required=True)
@click.option("--all", "archived", is_flag=True, help=_("Archived items too."))
@_command
def search_(runtime: Any, query: tuple[str, ...], archived: bool) -> list[str]:
    """Items matching QUERY (words, any order), best first."""
    from chatcli_memory.commands import search

    return search(runtime, " ".join(query), archived=archived)


@memory.command("add", help=_("Remember TEXT (refused when it holds a secret)."))
@click.argument("text", nargs=-1, required=True)
@click.option("--subject", default="", help=_("What it is about (a newer fact on the same "
                                              "subject replaces the older one)."))
@click.option("--global", "everywhere", is_flag=True, help=_("For every project."))
@click.option("--project", "here", is_flag=True,
              help=_("For this project only (the default for facts, not for --profile)."))
@click.option("--profile", default="", help=_("A profile field: name, role, preference, "
                                              "directive."))
@_command
def add_(runtime: Any, text: tuple[str, ...], subject: str, everywhere: bool, here: bool,
         profile: str) -> list[str]:
    """Remember TEXT (refused when it holds a secret)."""
    from chatcli_memory.commands import add

    return add(runtime, " ".join(text), subject=subject,
               scope="global" if everywhere else "project" if here else None,
               profile=profile)


@memory.command("forget", help=_("Delete an item for good (ITEM_ID or a unique prefix)."))
@click.argument("item_id")
@_command
def forget_(runtime: Any, item_id: str) -> list[str]:
    """Delete an item for good (ITEM_ID or a unique prefix)."""
    from chatcli_memory.commands import forget

    return forget(runtime, item_id)


@memory.command("edit", help=_(
    "Correct an item: the new TEXT replaces it (the old one is kept, archived)."))
@click.argument("item_id")
@click.argument("text", nargs=-1, required=True)
@_command
def edit_(runtime: Any, item_id: str, text: tuple[str, ...]) -> list[str]:
    """Correct an item: the new TEXT replaces it (the old one is kept, archived)."""
    from chatcli_memory.commands import edit

    return edit(runtime, item_id, " ".join(text))


@memory.command("status", help=_(
    "The backend, counts per kind, archived items, the last extraction."))
@_command
def status_(runtime: Any) -> list[str]:
    """The backend, counts per kind, archived items, the last extraction."""
    from chatcli_memory.commands import status

    return status(runtime)


@memory.command("export", help=_("Memory as MEMORY.md markdown."))
@click.option("-o", "--output", default=None, help=_("Write to this file (default: print)."))
@_command
def export_(runtime: Any, output: str | None) -> list[str]:
    """Memory as MEMORY.md markdown."""
    from chatcli_memory.commands import export

    return export(runtime, output)


@memory.command("import", help=_(
    "Import a MEMORY.md (default: the project's and the config folder's)."))
@click.argument("path", required=False)
@_command
def import_(runtime: Any, path: str | None) -> list[str]:
    """Import a MEMORY.md (default: the project's and the config folder's)."""
    from chatcli_memory.commands import import_file

    return import_file(runtime, path)
