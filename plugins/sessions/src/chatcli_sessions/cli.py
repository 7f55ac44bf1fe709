"""``chatcli sessions …``: the session database from the shell, for people and scripts."""

from __future__ import annotations

import sys
from typing import Any

import click
from chatcli import translation
from chatcli_cli import one_line_errors

_, ngettext = translation(__name__)


class _Utf8Text(click.types.StringParamType):
    """A text argument that must be valid UTF-8 (a shell can pass any bytes in argv)."""

    name = "text"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                self.fail(_("holds bytes that are not UTF-8; type it again in UTF-8 text"),
                          param, ctx)
        return value


TEXT = _Utf8Text()


def _host() -> Any:
    """The plugin host of the command line (it finds the stores plugins register)."""
    context = click.get_current_context(silent=True)
    state = context.find_root().obj if context is not None else None
    return getattr(state, "host", None)


def _store() -> Any:
    """The store ``[sessions] backend`` names (the command line's host finds the plugins')."""
    from chatcli_sessions.stores import get_store

    return get_store(host=_host())


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


def _table(found: list[Any], width: int | None, folders: bool = False) -> list[str]:
    """The lines of ``sessions list``: a header, then one session per line (with ``folders``,
    a FOLDER column: the project each belongs to).

    With a terminal ``width`` the title (and overlong names/models/folders) are cut with … so
    no line wraps; without one (piped) nothing is cut.
    """
    from chatcli_sessions.project import shown_folder

    # i18n: the column headers of `chatcli sessions list` (upper case)
    headers = [_("ID"), _("NAME"), _("UPDATED"), _("MSGS"), _("MODEL"),
               *([_("FOLDER")] if folders else []), _("TITLE")]
    rows = [
        [
            info.id,
            _one_line(info.name or "") or "-",
            _time(info.updated_at),
            str(info.messages),
            _one_line("/".join(x for x in (info.provider, info.model) if x)) or "-",
            *([_one_line(shown_folder(info.project)) if info.project else _("(no project)")]
              if folders else []),
            _one_line(info.title) or _("(untitled)"),
        ]
        for info in found
    ]
    if width is not None:
        for row in rows:
            row[1], row[4] = _cut(row[1], _MAX_COLUMN), _cut(row[4], _MAX_COLUMN)
            if folders:
                row[5] = _cut(row[5], 2 * _MAX_COLUMN)
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


@click.group(name="sessions",
             help=_("Saved conversations: list, show, export, import, delete and search them."))
def sessions() -> None:
    """The ``sessions`` group."""


@sessions.command(name="list", help=_("List this project's sessions (--all: every project's), "
                                       "most recently used first."))
@click.option("--all", "every", is_flag=True,
              help=_("Every project's sessions (with their folder), not only this project's."))
@click.option("--json", "as_json", is_flag=True, help=_("Print JSON (one array) for scripts."))
@click.option("-n", "--limit", type=click.IntRange(min=1), default=None,
              help=_("Show at most this many (newest first)."))
@one_line_errors
def list_sessions(every: bool, as_json: bool, limit: int | None) -> None:
    """List this project's sessions (--all: every project's), most recently used first."""
    from chatcli_sessions.project import current_project, shown_folder

    store = _store()
    project = None if every else current_project()
    found = store.list(limit=limit, project=project)
    if as_json:
        import json

        click.echo(json.dumps([s.to_dict() for s in found], ensure_ascii=False, indent=2))
        return
    if not found:
        others = store.count() if project is not None else 0
        if project is None:
            click.echo(_("No saved sessions."))
        elif not others:
            click.echo(_("No saved sessions in this project ({folder}).").format(
                folder=shown_folder(project)))
        else:
            click.echo(ngettext(
                "No saved sessions in this project ({folder}); {count} in other projects: "
                "chatcli sessions list --all.",
                "No saved sessions in this project ({folder}); {count} in other projects: "
                "chatcli sessions list --all.", others).format(folder=shown_folder(project),
                                                              count=others))
        return
    import shutil

    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    for line in _table(found, width, folders=every):
        click.echo(line)
    others = store.count() - store.count(project) if project is not None else 0
    if others and width is not None:  # on a terminal: say that there is more
        click.echo(ngettext("({count} more in other projects: chatcli sessions list --all)",
                            "({count} more in other projects: chatcli sessions list --all)",
                            others).format(count=others))


@sessions.command(name="show",
                  help=_("Print a session as markdown (REF: id, unique id prefix, or name)."))
@click.argument("ref", type=TEXT)
@one_line_errors
def show_session(ref: str) -> None:
    """``sessions show``."""
    from chatcli_sessions.export import to_markdown

    store = _store()
    info = store.resolve(ref)
    click.echo(to_markdown(store.load(info.id), info), nl=False)
    workers = store.workers(info.id)
    if workers:  # the workers it delegated to: each a session of its own
        click.echo("\n## " + _("Workers") + "\n")
        for worker, said in workers:
            kind = said.get("type") or "?"
            click.echo(f"- {said.get('id') or '?'} ({kind}): {worker.title} — "
                       f"`chatcli sessions show {worker.id}`")
    if info.parent is not None:
        click.echo("\n" + _("(a worker of session {session})").format(session=info.parent))


@sessions.command(name="export",
                  help=_("Export a session (REF: id, unique id prefix, or name)."))
@click.argument("ref", type=TEXT)
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True,
              help=_("markdown: the conversation as read; json: the whole log."))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help=_("Write to this file instead of standard output."))
@one_line_errors
def export_session(ref: str, fmt: str, output: str | None) -> None:
    """``sessions export``."""
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
        raise UsageError(_("cannot write {path}: {reason}").format(path=output,
                                                                    reason=err.strerror),
                         _("choose another path")) from None
    click.echo(_("Wrote {path}").format(path=click.format_filename(output)), err=True)


@sessions.command(name="import", help=_(
    "Import a session from FILE, written by `sessions export ID --format json` ('-': stdin)."))
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=str))
@click.option("--new-id", is_flag=True,
              help=_("Import under a new id (a copy), e.g. when the session already exists."))
@click.option("--name", type=TEXT, default=None, help=_("Name the imported session NAME."))
@one_line_errors
def import_session(file: str, new_id: bool, name: str | None) -> None:
    """``sessions import``."""
    from chatcli import UsageError
    from chatcli import new_id as make_id
    from chatcli_sessions_api import HERE

    from chatcli_sessions.restore import read_export

    shown = _("standard input") if file == "-" else click.format_filename(file)
    try:
        from pathlib import Path

        raw = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    except OSError as err:
        raise UsageError(_("cannot read {path}: {reason}").format(
            path=shown, reason=err.strerror or err), _("check the path")) from None
    found = read_export(raw, shown, new_id=make_id("s_") if new_id else None)
    conversation = found.conversation
    _store().import_session(
        conversation, name=(name.strip() or None) if name is not None else found.name,
        created_at=found.created_at, updated_at=found.updated_at,
        provider=found.provider, model=found.model, forked_from=found.forked_from,
        project=found.project or HERE,  # an export without one: this project's from now on
    )
    counts = {"session": conversation.id, "original": found.original_id,
              "messages": len(conversation.log), "checkpoints": len(conversation.checkpoints)}
    if conversation.id != found.original_id:
        said = ngettext(
            "Imported session {session} (a copy of {original}): {messages} messages, "
            "{checkpoints} checkpoints",
            "Imported session {session} (a copy of {original}): {messages} messages, "
            "{checkpoints} checkpoints", len(conversation.log))
    else:
        said = ngettext(
            "Imported session {session}: {messages} messages, {checkpoints} checkpoints",
            "Imported session {session}: {messages} messages, {checkpoints} checkpoints",
            len(conversation.log))
    click.echo(said.format(**counts))


@sessions.command(name="delete",
                  help=_("Delete sessions (REFS: ids, unique id prefixes, or names)."))
@click.argument("refs", nargs=-1, required=True, type=TEXT)
@one_line_errors
def delete_session(refs: tuple[str, ...]) -> None:
    """``sessions delete``."""
    store = _store()
    infos = [store.resolve(ref) for ref in refs]  # all or nothing: resolve before deleting
    for info in infos:
        store.delete(info.id)
        click.echo(_("Deleted {session}").format(session=info.id))


@sessions.command(name="search", help=_(
    "Find messages containing every word of TEXT (full-text), newest first."))
@click.argument("text", nargs=-1, required=True, type=TEXT)
@click.option("--json", "as_json", is_flag=True, help=_("Print JSON (one array) for scripts."))
@click.option("-n", "--limit", type=click.IntRange(min=1), default=20, show_default=True)
@one_line_errors
def search_sessions(text: tuple[str, ...], as_json: bool, limit: int) -> None:
    """``sessions search``."""
    hits = _store().search(" ".join(text), limit=limit)
    if as_json:
        import json

        click.echo(json.dumps([h.to_dict() for h in hits], ensure_ascii=False, indent=2))
        return
    if not hits:
        click.echo(_("No matches."))
        return
    for hit in hits:
        click.echo(f"{hit.session_id}  {hit.role:<9} {hit.snippet}")


@sessions.command(name="migrate", help=_(
    "Copy every session into another store (e.g. --to postgres), then read each one back and "
    "compare. Sessions already there with the same content are skipped; run it again at will."))
@click.option("--to", "target", required=True, type=TEXT,
              help=_("The store to copy into: a name a plugin registers (postgres)."))
@click.option("--from", "source", default="sqlite", show_default=True, type=TEXT,
              help=_("The store to copy from."))
@one_line_errors
def migrate_sessions(target: str, source: str) -> None:
    """``sessions migrate``."""
    from chatcli import UsageError, load_settings

    from chatcli_sessions.migrate import migrate
    from chatcli_sessions.stores import open_named

    if target.strip() == source.strip():
        raise UsageError(_("--to and --from name the same store ({store!r})").format(
            store=target), _("give the store to copy into: --to postgres"))
    settings, host = load_settings(), _host()
    origin = open_named(source.strip(), host, settings, flag="--from")
    try:
        destination = open_named(target.strip(), host, settings, flag="--to")
        try:
            result = migrate(origin, destination)
        finally:
            destination.close()
    finally:
        origin.close()
    for problem in result.problems:
        click.echo(f"chatcli: {problem}", err=True)  # untranslated: the program's name
    click.echo(result.summary())
    if not result.ok:
        sys.exit(1)
