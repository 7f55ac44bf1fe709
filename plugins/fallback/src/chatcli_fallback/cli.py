"""``chatcli providers status|reset`` and ``/providers``: the health table of every group.

Imported only when one of them runs (the root command line names the group through
``LazyGroup``).
"""

from __future__ import annotations

import json
import time
from typing import Any

import click
from chatcli import translation

from chatcli_fallback.settings import Entry, Group, load_groups
from chatcli_fallback.state import Health, State

__all__ = ["health_rows", "providers", "render_table", "slash_providers"]

_, ngettext = translation(__name__)

HEADERS = [_("GROUP"), _("STRATEGY"), _("ENTRY"), _("STATE"), _("ERRORS"), _("REQUESTS"),
           _("LAST CHECK"), _("RESPONSE"), _("LAST ERROR")]

NO_GROUPS = _("no fallback chain or pool is configured — set [fallback] chain = "
              "[\"provider/model\", …] or [fallback.pools.NAME] (see chatcli-fallback's README)")


def _ago(seconds: float) -> str:
    if seconds < 90:
        return _("{count:.0f}s ago").format(count=seconds)
    if seconds < 5400:
        return _("{count:.0f}m ago").format(count=seconds / 60)
    if seconds < 86_400 * 2:
        return _("{count:.0f}h ago").format(count=seconds / 3600)
    return _("{count:.0f}d ago").format(count=seconds / 86_400)


def _span(seconds: float) -> str:
    return f"{seconds:.0f}s" if seconds < 90 else f"{seconds / 60:.0f}m"


def entry_state(group: Group, health: Health | None, now: float) -> tuple[str, bool]:
    """What the group makes of an entry now, in words, and whether it would be asked first."""
    if health is None or not health.requests:
        return _("untried"), True
    options = group.options
    if group.strategy == "chain":
        left = health.cooling(now)
        if left > 0:
            return _("cooling down ({span} left)").format(span=_span(left)), False
        return (_("ok") if health.errors == 0 else _("ready (cooldown over)")), True
    if health.unhealthy(now, options.unhealthy_after, options.recovery):
        left = options.recovery - (now - health.last_failure)
        return _("unavailable (tried again in {span})").format(span=_span(left)), False
    if health.errors >= options.unhealthy_after:
        return _("recovering (next call probes it)"), True
    return (_("ok") if health.errors == 0 else ngettext(
        "ok ({count} recent error)", "ok ({count} recent errors)", health.errors).format(
            count=health.errors)), True


def health_rows(groups: dict[str, Group], state: State) -> list[dict[str, Any]]:
    """One record per group entry: its state and health numbers."""
    snapshot = state.snapshot()
    now = state.clock()
    rows = []
    listed = {entry.key for group in groups.values() for entry in group.entries}
    others = tuple(Entry(*key.partition("/")[::2]) for key in sorted(snapshot)
                   if key not in listed)
    if others:  # entries of a chain named with --model, or of a group no longer configured
        groups = {**groups, "(other)": Group("(other)", "chain", others)}
    for group in groups.values():
        for entry in group.entries:
            health = snapshot.get(entry.key)
            words, available = entry_state(group, health, now)
            rows.append({
                "group": group.name, "strategy": group.strategy, "entry": entry.key,
                "state": words, "available": available,
                "errors": health.errors if health else 0,
                "requests": health.requests if health else 0,
                "failures": health.failures if health else 0,
                "cooldown_left": round(health.cooling(now), 1) if health else 0.0,
                "last_check": health.last_check or None if health else None,
                "response_ms": round(health.response_ms, 1)
                if health and health.response_ms is not None else None,
                "last_error": health.last_error if health else "",
                "last_error_type": health.last_kind if health else "",
            })
    return rows


def render_table(rows: list[dict[str, Any]], now: float | None = None) -> str:
    """The rows as aligned columns."""
    now = time.time() if now is None else now
    cells = []
    for row in rows:
        error = " ".join(row["last_error"].split())
        if len(error) > 60:
            error = error[:59] + "…"
        cells.append([
            row["group"], row["strategy"].replace("_", "-"), row["entry"], row["state"],
            str(row["errors"]), _("{requests} ({failures} failed)").format(
                requests=row["requests"], failures=row["failures"]),
            _ago(now - row["last_check"]) if row["last_check"] else _("never"),
            f"{row['response_ms']:,.0f} ms" if row["response_ms"] is not None else "-",
            error or "-",
        ])
    widths = [max(len(HEADERS[i]), *(len(c[i]) for c in cells)) for i in range(len(HEADERS))]
    lines = ["  ".join(text.ljust(widths[i]) for i, text in enumerate(line)).rstrip()
             for line in [HEADERS, *cells]]
    return "\n".join(lines)


def _groups_from_settings() -> dict[str, Group]:
    from chatcli import load_settings

    settings = load_settings()
    return load_groups({"fallback": settings.plugin_table("fallback")})


@click.group("providers", help=_("Health of the fallback chain and the provider pools."))
def providers() -> None:
    """Health of the fallback chain and the provider pools."""


@providers.command("status", help=_(
    "Each entry of each chain and pool: state, errors in a row, requests, last check, "
    "average time to the first answer event, last error."))
@click.option("--json", "as_json", is_flag=True, help=_("Print the table as one JSON object."))
def status_command(as_json: bool) -> int:
    """Each entry of each chain and pool: state, errors in a row, requests, last check,
    average time to the first answer event, last error."""
    groups = _groups_from_settings()
    state = State()
    rows = health_rows(groups, state)
    if as_json:
        click.echo(json.dumps({"entries": rows, "state_file": str(state.path)}))
        return 0
    if not rows:
        click.echo(NO_GROUPS)
        return 0
    click.echo(render_table(rows, state.clock()))
    return 0


@providers.command("reset", help=_(
    "Forget every entry's health (cooldowns, error counts) and the pools' positions."))
def reset_command() -> int:
    """Forget every entry's health (cooldowns, error counts) and the pools' positions."""
    count = State().reset()
    click.echo(_forgot(count))
    return 0


def _forgot(count: int) -> str:
    return ngettext("forgot the health of {count} entry", "forgot the health of {count} entries",
                    count).format(count=count)


def slash_providers(app: Any, text: str) -> None:
    """``/providers`` (or ``/providers status``): the table; ``/providers reset``."""
    from chatcli import UsageError

    word = text.strip().lower()
    if word == "reset":
        count = State().reset()
        app.console.print(_forgot(count), markup=False)
        return
    if word not in ("", "status"):
        raise UsageError(_("/providers has no '{word}'").format(word=word),
                         _("use /providers or /providers reset"))
    groups = load_groups({"fallback": app.settings.plugin_table("fallback")})
    state = State()
    rows = health_rows(groups, state)
    if not rows:
        app.console.print(NO_GROUPS, markup=False)
        return
    app.console.print(render_table(rows, state.clock()), markup=False, soft_wrap=True)
