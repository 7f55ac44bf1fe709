"""``chatcli providers status|reset`` and ``/providers``: the health table of every group.

Imported only when one of them runs (the root command line names the group through
``LazyGroup``).
"""

from __future__ import annotations

import json
import time
from typing import Any

import click

from chatcli_fallback.settings import Entry, Group, load_groups
from chatcli_fallback.state import Health, State

__all__ = ["health_rows", "providers", "render_table", "slash_providers"]

HEADERS = ["GROUP", "STRATEGY", "ENTRY", "STATE", "ERRORS", "REQUESTS", "LAST CHECK",
           "RESPONSE", "LAST ERROR"]

NO_GROUPS = ("no fallback chain or pool is configured — set [fallback] chain = "
             "[\"provider/model\", …] or [fallback.pools.NAME] (see chatcli-fallback's README)")


def _ago(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s ago"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m ago"
    if seconds < 86_400 * 2:
        return f"{seconds / 3600:.0f}h ago"
    return f"{seconds / 86_400:.0f}d ago"


def _span(seconds: float) -> str:
    return f"{seconds:.0f}s" if seconds < 90 else f"{seconds / 60:.0f}m"


def entry_state(group: Group, health: Health | None, now: float) -> tuple[str, bool]:
    """What the group makes of an entry now, in words, and whether it would be asked first."""
    if health is None or not health.requests:
        return "untried", True
    options = group.options
    if group.strategy == "chain":
        left = health.cooling(now)
        if left > 0:
            return f"cooling down ({_span(left)} left)", False
        return ("ok" if health.errors == 0 else "ready (cooldown over)"), True
    if health.unhealthy(now, options.unhealthy_after, options.recovery):
        left = options.recovery - (now - health.last_failure)
        return f"unavailable (tried again in {_span(left)})", False
    if health.errors >= options.unhealthy_after:
        return "recovering (next call probes it)", True
    return ("ok" if health.errors == 0 else f"ok ({health.errors} recent error"
            f"{'s' * (health.errors > 1)})"), True


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
            str(row["errors"]), f"{row['requests']} ({row['failures']} failed)",
            _ago(now - row["last_check"]) if row["last_check"] else "never",
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


@click.group("providers")
def providers() -> None:
    """Health of the fallback chain and the provider pools."""


@providers.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the table as one JSON object.")
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


@providers.command("reset")
def reset_command() -> int:
    """Forget every entry's health (cooldowns, error counts) and the pools' positions."""
    count = State().reset()
    click.echo(f"forgot the health of {count} entr{'y' if count == 1 else 'ies'}")
    return 0


def slash_providers(app: Any, text: str) -> None:
    """``/providers`` (or ``/providers status``): the table; ``/providers reset``."""
    from chatcli import UsageError

    word = text.strip().lower()
    if word == "reset":
        count = State().reset()
        app.console.print(f"forgot the health of {count} entr{'y' if count == 1 else 'ies'}",
                          markup=False)
        return
    if word not in ("", "status"):
        raise UsageError(f"/providers has no '{word}'", "use /providers or /providers reset")
    groups = load_groups({"fallback": app.settings.plugin_table("fallback")})
    state = State()
    rows = health_rows(groups, state)
    if not rows:
        app.console.print(NO_GROUPS, markup=False)
        return
    app.console.print(render_table(rows, state.clock()), markup=False, soft_wrap=True)
