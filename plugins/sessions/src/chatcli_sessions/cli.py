"""``chatcli sessions …``: the session database from the shell, for people and scripts."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click
from chatcli import ChatcliError

if TYPE_CHECKING:
    pass

F = TypeVar("F", bound=Callable[..., Any])


def _one_line_errors(func: F) -> F:
    """Turn chatcli errors into click's one-line ``Error: …`` (exit code 2 for usage, else 1)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except ChatcliError as err:
            exc = click.ClickException(str(err))
            # click declares exit_code a ClassVar, yet reads it from the instance it catches
            exc.exit_code = getattr(err, "exit_code", 1)  # type: ignore[misc]
            raise exc from None

    return wrapper  # type: ignore[return-value]


class _Utf8Text(click.types.StringParamType):
    """A text argument that must be valid UTF-8 (a shell can pass any bytes in argv)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                self.fail("holds bytes that are not UTF-8; type it again in UTF-8 text",
                          param, ctx)
        return value


TEXT = _Utf8Text()


def _store() -> Any:
    from chatcli_sessions.stores import get_store

    return get_store()


def _time(timestamp: float) -> str:
    import datetime

    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


def _one_line(text: str) -> str:
    """``text`` with line breaks, tabs and other control characters turned into spaces."""
    import unicodedata

    return "".join(" " if unicodedata.category(c) == "Cc" else c for c in text).strip()


def _cells(text: str) -> int:
    """How many terminal columns ``text`` takes (wide characters two, combining marks none)."""
    import unicodedata

    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def _cut(text: str, width: int) -> str:
    """``text`` shortened with … to at most ``width`` columns."""
    if _cells(text) <= width:
        return text
    kept, used = [], 0
    for char in text:
        used += _cells(char)
        if used > width - 1:
            break
        kept.append(char)
    return "".join(kept) + "…"


#: On a terminal, the widest NAME and MODEL columns; longer values are cut with ….
_MAX_COLUMN = 24
#: On a terminal, the fewest columns a title is cut to, however narrow the terminal.
_MIN_TITLE = 12


def _table(found: list[Any], width: int | None) -> list[str]:
    """The lines of ``sessions list``: a header, then one session per line.

    With a terminal ``width`` the title (and overlong names/models) are cut with … so no line
    wraps; without one (piped) nothing is cut.
    """
    headers = ["ID", "NAME", "UPDATED", "MSGS", "MODEL", "TITLE"]
    rows = [
        [
            info.id,
            _one_line(info.name or "") or "-",
            _time(info.updated_at),
            str(info.messages),
            _one_line("/".join(x for x in (info.provider, info.model) if x)) or "-",
            _one_line(info.title) or "(untitled)",
        ]
        for info in found
    ]
    if width is not None:
        for row in rows:
            row[1], row[4] = _cut(row[1], _MAX_COLUMN), _cut(row[4], _MAX_COLUMN)
    widths = [max(_cells(r[i]) for r in [headers, *rows]) for i in range(len(headers) - 1)]
    title_room = None if width is None else max(width - sum(widths) - 2 * len(widths), _MIN_TITLE)
    lines = []
    for row in [headers, *rows]:
        cells = [
            cell.rjust(w) if i == 3 else cell + " " * (w - _cells(cell))
            for i, (cell, w) in enumerate(zip(row, widths, strict=False))
        ]
        title = row[-1] if title_room is None else _cut(row[-1], title_room)
        lines.append("  ".join([*cells, title]).rstrip())
    return lines


@click.group(name="sessions")
def sessions() -> None:
    """Saved conversations: list, show, export, import, delete and search them."""


@sessions.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one array) for scripts.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=None,
              help="Show at most this many (newest first).")
@_one_line_errors
def list_sessions(as_json: bool, limit: int | None) -> None:
    """List sessions, most recently used first."""
    found = _store().list(limit=limit)
    if as_json:
        import json

        click.echo(json.dumps([s.to_dict() for s in found], ensure_ascii=False, indent=2))
        return
    if not found:
        click.echo("No saved sessions.")
        return
    import shutil

    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for line in _table(found, width):
        click.echo(line)


@sessions.command(name="show")
@click.argument("ref", type=TEXT)
@_one_line_errors
def show_session(ref: str) -> None:
    """Print a session as markdown (REF: id, unique id prefix, or name)."""
    from chatcli_sessions.export import to_markdown

    store = _store()
    info = store.resolve(ref)
    click.echo(to_markdown(store.load(info.id), info), nl=False)


@sessions.command(name="export")
@click.argument("ref", type=TEXT)
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True, help="markdown: the conversation as read; json: the whole log.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write to this file instead of standard output.")
@_one_line_errors
def export_session(ref: str, fmt: str, output: str | None) -> None:
    """Export a session (REF: id, unique id prefix, or name)."""
    from chatcli import UsageError, atomic_write

    from chatcli_sessions.export import render

    store = _store()
    info = store.resolve(ref)
    text = render(store.load(info.id), fmt, info)
    if output is None:
        sys.stdout.write(text)
        return
    from pathlib import Path

    try:
        atomic_write(Path(output), text)
    except OSError as err:
        raise UsageError(f"cannot write {output}: {err.strerror}", "choose another path") from None
    click.echo(f"Wrote {click.format_filename(output)}", err=True)


@sessions.command(name="import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@click.option("--new-id", is_flag=True,
              help="Import under a new id (a copy), e.g. when the session already exists.")
@click.option("--name", type=TEXT, default=None, help="Name the imported session NAME.")
@_one_line_errors
def import_session(file: str, new_id: bool, name: str | None) -> None:
    """Import a session from FILE, written by `sessions export ID --format json` ('-': stdin)."""
    from chatcli import UsageError
    from chatcli import new_id as make_id

    from chatcli_sessions.restore import read_export

    shown = "standard input" if file == "-" else click.format_filename(file)
    try:
        from pathlib import Path

        raw = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as err:
        raise UsageError(f"cannot read {shown}: {err.strerror or err}", "check the path") from None
    found = read_export(raw, shown, new_id=make_id("s_") if new_id else None)
    conversation = found.conversation
    _store().import_session(
        conversation, name=(name.strip() or None) if name is not None else found.name,
        created_at=found.created_at, updated_at=found.updated_at,
        provider=found.provider, model=found.model, forked_from=found.forked_from,
    )
    copy = f" (a copy of {found.original_id})" if conversation.id != found.original_id else ""
    click.echo(f"Imported session {conversation.id}{copy}: {len(conversation.log)} messages, "
               f"{len(conversation.checkpoints)} checkpoints")


@sessions.command(name="delete")
@click.argument("refs", nargs=-1, required=True, type=TEXT)
@_one_line_errors
def delete_session(refs: tuple[str, ...]) -> None:
    """Delete sessions (REFS: ids, unique id prefixes, or names)."""
    store = _store()
    infos = [store.resolve(ref) for ref in refs]  # all or nothing: resolve before deleting
    for info in infos:
        store.delete(info.id)
        click.echo(f"Deleted {info.id}")


@sessions.command(name="search")
@click.argument("text", nargs=-1, required=True, type=TEXT)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one array) for scripts.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=20, show_default=True)
@_one_line_errors
def search_sessions(text: tuple[str, ...], as_json: bool, limit: int) -> None:
    """Find messages containing every word of TEXT (full-text), newest first."""
    hits = _store().search(" ".join(text), limit=limit)
    if as_json:
        import json

        click.echo(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return
    if not hits:
        click.echo("No matches.")
        return
    for hit in hits:
        click.echo(f"{hit.session_id}  {hit.role:<9} {hit.snippet}")
