"""``chatcli audit``: the audit log, filtered, as a table or as JSON."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click
from chatcli import translation
from chatcli_cli import one_line_errors

from chatcli_audit.query import DECISIONS, Filters, Reading, read_records
from chatcli_audit.records import KINDS

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["audit", "row"]

_, ngettext = translation(__name__)


def _when(text: str | None, name: str) -> Any:
    if text is None:
        return None
    from chatcli import UsageError

    from chatcli_audit.when import parse_when

    try:
        return parse_when(text)
    except UsageError as err:
        raise UsageError(f"{name}: {err.message}", err.hint) from None


def _clean(text: Any) -> str:
    """One line of printable text (a record comes from a file anyone could edit)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in str(text)).split())


def row(record: dict[str, Any]) -> tuple[str, str, str, str, str, str]:
    """A record as the table's cells: time, session, kind, what, decision, detail."""
    kind = str(record.get("kind", "?"))
    what = decision = detail = ""
    if kind == "tool_call":
        what = str(record.get("tool", ""))
        decision = f"{record.get('decision', '')} ({record.get('decided_by', '?')})"
        detail = str(record.get("rule") or record.get("arguments") or "")
    elif kind == "command":
        what = str(record.get("tool", ""))
        code = record.get("exit_code")
        decision = (_("exit {code}").format(code=code) if code is not None
                    else str(record.get("outcome", "")))
        detail = str(record.get("command", ""))
    elif kind == "file_change":
        what = str(record.get("tool", ""))
        decision = str(record.get("action", ""))
        detail = str(record.get("path", ""))
    elif kind == "model_call":
        what = f"{record.get('provider')}/{record.get('model')}"
        decision = str(record.get("purpose", ""))
        cost = record.get("cost_usd")
        money = f" ${cost:.4f}" if isinstance(cost, int | float) else ""
        detail = (_("{input} in, {output} out").format(input=record.get("input_tokens", 0),
                                                       output=record.get("output_tokens", 0))
                  + money + (f"; {record['error']}" if record.get("error") else ""))
    elif kind == "session":
        what = str(record.get("event", ""))
        decision = str(record.get("mode") or "")
        detail = " ".join(str(record[key]) for key in ("provider", "model", "workspace")
                          if record.get(key))
    time = str(record.get("time", ""))[:19].replace("T", " ")
    session = str(record.get("session", ""))[:12]
    return tuple(_clean(cell) for cell in (time, session, kind, what, decision,  # type: ignore[return-value]
                                           detail))


@click.command("audit", help=_(
    "The audit log: tool calls and who decided them, commands, files, model calls.\n\n"
    "Every tool call with its decision and who made it (a rule, the mode, the user, the managed "
    "policy), commands with their exit codes, files changed, model calls with tokens and cost, "
    "oldest first. The log is audit.jsonl in [audit] path (default: chatcli's data folder, "
    "audit/) with its rotated files, or the chatcli_audit table where sessions live in "
    "PostgreSQL."))
@click.option("--session", "session", metavar="ID",
              help=_("Only this session (an id's prefix)."))
@click.option("--since", metavar="TIME",
              help=_("From this time: ISO (2026-12-07T10:00, UTC unless it says) or ago (2h, "
                     "1d)."))
@click.option("--until", metavar="TIME", help=_("Up to this time (the same forms as --since)."))
@click.option("--tool", metavar="NAME", help=_("Only records about this tool (exec, edit…)."))
@click.option("--decision", type=click.Choice(DECISIONS),
              help=_("Tool calls allowed or denied, or those a person was asked about."))
@click.option("--kind", type=click.Choice(KINDS), help=_("Only records of this kind."))
@click.option("--limit", type=click.IntRange(min=1), metavar="N",
              help=_("Only the last N records kept."))
@click.option("--json", "as_json", is_flag=True, help=_("The records as a JSON array."))
@click.option("--file", "local", is_flag=True,
              help=_("This machine's log file, even where sessions (and the audit) live in "
                     "PostgreSQL."))
@one_line_errors
def audit(session: str | None, since: str | None, until: str | None, tool: str | None,
          decision: str | None, kind: str | None, limit: int | None, as_json: bool,
          local: bool) -> None:
    """The audit log, filtered: a table, or the records as JSON (the help is above)."""
    from chatcli import load_settings

    from chatcli_audit.settings import read_config

    settings = load_settings()
    config = read_config(settings)
    filters = Filters(session=session, since=_when(since, "--since"),
                      until=_when(until, "--until"), tool=tool, decision=decision, kind=kind)
    place = None
    if not local and config.postgres:
        from chatcli_audit.postgres import table_config

        place = table_config(settings)
    if place is not None:
        from chatcli_audit.postgres import read_table

        reading = Reading(read_table(place, filters, limit))
    else:
        reading = read_records(config.file, filters)
    records = reading.records[-limit:] if limit else reading.records
    if reading.skipped:
        click.echo(ngettext(
            "chatcli: warning: {count} line(s) of the audit log are not records and were skipped",
            "chatcli: warning: {count} line(s) of the audit log are not records and were skipped",
            reading.skipped).format(count=reading.skipped), err=True)
    if as_json:
        sys.stdout.write(json.dumps(records, ensure_ascii=False) + "\n")
        return
    if not records:
        click.echo(_no_records(_filtered(filters),
                               None if place is not None or config.file.exists() else
                               config.file))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(show_edge=False, pad_edge=False)
    headers = (_("time (UTC)"), _("session"), _("kind"), _("what"), _("decision"), _("detail"))
    for number, header in enumerate(headers):
        table.add_column(header, overflow="fold" if number == len(headers) - 1 else "ellipsis")
    for record in records:
        table.add_row(*(Text(cell) for cell in row(record)), style=_style(record))
    Console(highlight=False).print(table)


def _no_records(filtered: bool, missing: Path | None) -> str:
    """The line said when no record is shown (``missing``: the log file, not made yet)."""
    if missing is not None:
        if filtered:
            return _("No audit records match ({path} does not exist yet).").format(path=missing)
        return _("No audit records ({path} does not exist yet).").format(path=missing)
    return _("No audit records match.") if filtered else _("No audit records.")


def _filtered(filters: Filters) -> bool:
    return any(value is not None for value in vars(filters).values())


def _style(record: dict[str, Any]) -> str | None:
    if record.get("kind") == "tool_call" and record.get("decision") == "deny":
        return "red"
    if record.get("kind") == "command" and record.get("exit_code") not in (0, None):
        return "yellow"
    return None
