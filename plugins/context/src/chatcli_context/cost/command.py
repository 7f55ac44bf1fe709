"""``/cost``: what the session spent, per provider and model, the budget, and the cache TTL.

Works in the chat and from the shell (``chatcli -c -p "/cost"``): the totals come from the
conversation's messages, so a resumed session shows everything it ever spent. When workers
(subagents) ran, their calls are in the totals (purpose "subagent") and two more tables split
them per worker and per type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import SlashCommand, translation

if TYPE_CHECKING:
    from chatcli_context.cost.ledger import Ledger, Purpose
    from chatcli_context.cost.plugin import CostPlugin

__all__ = ["HELP", "describe", "slash_command", "type_table", "usd", "worker_table"]

_, ngettext = translation(__name__)

HELP = _("cost: tokens and money per provider and model, per purpose (chat, agent, "
         "compaction, memory…) and per worker, the budget and the cache TTL")
# i18n: the columns of /cost's tables: provider and model, model calls, input tokens, tokens
# read from the provider's cache, tokens written to it, output tokens, money
_HEADERS = (_("provider/model"), _("calls"), _("input"), _("cache read"), _("cache write"),
            _("output"), "USD")


def usd(amount: float) -> str:
    """``$12.34``, or ``$0.0123`` below a dollar (small sessions stay readable)."""
    return f"${amount:,.2f}" if amount >= 1 or amount == 0 else f"${amount:.4f}"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min"


def table(ledger: Ledger) -> list[str]:
    """The per provider/model table, with its total, as aligned lines."""
    rows = [list(_HEADERS)]
    for line in ledger.lines:
        u = line.usage
        rows.append([line.name, f"{line.calls:,}", f"{u.input_tokens:,}",
                     f"{u.cache_read_tokens:,}", f"{u.cache_write_tokens:,}",
                     f"{u.output_tokens:,}", usd(line.money) if line.money is not None else "?"])
    if len(ledger.lines) > 1:
        u = ledger.usage
        total = usd(ledger.money) + (" + ?" if ledger.unpriced else "")
        rows.append([_("total"), f"{sum(li.calls for li in ledger.lines):,}", f"{u.input_tokens:,}",
                     f"{u.cache_read_tokens:,}", f"{u.cache_write_tokens:,}",
                     f"{u.output_tokens:,}", total])
    return _aligned(rows)


def _cells(group: Purpose) -> list[str]:
    """A group's calls, tokens and money, as table cells."""
    u = group.usage
    return [f"{group.calls:,}", f"{u.input_tokens:,}", f"{u.cache_read_tokens:,}",
            f"{u.cache_write_tokens:,}", f"{u.output_tokens:,}",
            usd(group.money) if group.money is not None else "?"]


def purpose_table(ledger: Ledger) -> list[str]:
    """The same calls by purpose (chat, agent, compaction, memory…), as aligned lines."""
    # i18n: a column of /cost: what a model call was for (chat, agent, compaction…)
    rows = [[_("purpose"), *_HEADERS[1:]]]
    rows += [[kind.name, *_cells(kind)] for kind in ledger.purposes]
    return _aligned(rows)


def worker_table(ledger: Ledger) -> list[str]:
    """The workers' calls per worker (id and type), as aligned lines."""
    # i18n: columns of /cost: a worker (a subagent) and its type
    rows = [[_("worker"), _("type"), *_HEADERS[1:]]]
    rows += [[worker.name, worker.type, *_cells(worker)] for worker in ledger.workers]
    return _aligned(rows, left=2)


def type_table(ledger: Ledger) -> list[str]:
    """The workers' calls per worker type, with how many workers each had, as aligned
    lines."""
    # i18n: columns of /cost: a worker (a subagent) type and how many workers it had
    rows = [[_("type"), _("workers"), *_HEADERS[1:]]]
    rows += [[kind.name, f"{kind.workers:,}", *_cells(kind)] for kind in ledger.types]
    return _aligned(rows)


def _aligned(rows: list[list[str]], left: int = 1) -> list[str]:
    """``rows`` as lines of aligned columns (the first ``left`` ones to the left)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(widths[i]) if i < left else cell.rjust(widths[i])
                      for i, cell in enumerate(row)).rstrip() for row in rows]


def ttl_line(plugin: CostPlugin, app: Any) -> str:
    """The cache TTL in force for the session's provider, and why."""
    provider = app.session.provider_name
    ttl, why = plugin.ttl_in_force(app.conversation, provider)
    if ttl is None:
        return _("cache TTL: none to choose ({provider} offers none)").format(
            provider=provider)
    if why == "evidence":
        switch = plugin.state(app.conversation).ttl.switch
        assert switch is not None
        return _("cache TTL: {ttl} (a {pause} pause outlived the 5m cache; the long TTL holds "
                 "for the rest of the session)").format(ttl=ttl, pause=_minutes(switch.pause))
    if why == "default":
        return _("cache TTL: {ttl} (the short one; 1h, once, after a pause the hour would have "
                 "covered expires the cache)").format(ttl=ttl)
    return _("cache TTL: {ttl} ({why})").format(ttl=ttl, why=why)


def describe(plugin: CostPlugin, app: Any) -> list[str]:
    """The lines ``/cost`` prints."""
    conversation = app.conversation
    ledger = plugin.ledger(conversation)
    config = plugin.config(app.settings)
    lines: list[str] = []
    if ledger.lines:
        lines += table(ledger)
        lines += purpose_table(ledger)
        if ledger.workers:
            lines += worker_table(ledger)
            lines += type_table(ledger)
        lines.append(_("input counts every prompt token, cache reads and writes included "
                       "(fresh input = input - cache read - cache write)"))
    else:
        lines.append(_("no model calls in this session yet"))
    for line in ledger.unpriced:
        lines.append(_('no price known for {name}: set [cost.prices."{name}"] input = …, '
                       "output = … (USD per million tokens)").format(name=line.name))
    if any(line.source == "built-in" for line in ledger.lines):
        lines.append(_("prices: built-in list prices, approximate (USD per million tokens); "
                       '[cost.prices."provider/model"] in the config overrides them'))
    if config.budget is None:
        lines.append(_("budget: none ([cost] budget = 5.0 sets one, in USD)"))
    else:
        share = ledger.money / config.budget
        said = (_("budget: {spent} of {budget} ({share:.0%}) — over budget") if share >= 1
                else _("budget: {spent} of {budget} ({share:.0%})"))
        lines.append(said.format(spent=usd(ledger.money), budget=usd(config.budget),
                                 share=share))
    lines.append(ttl_line(plugin, app))
    return lines


def slash_command(plugin: CostPlugin) -> SlashCommand:
    """``/cost`` for ``plugin``."""

    def run(app: Any, args: str) -> None:
        for line in describe(plugin, app):
            app.console.print(line, markup=False, highlight=False, soft_wrap=True)

    return SlashCommand(name="cost", help=HELP, run=run)
