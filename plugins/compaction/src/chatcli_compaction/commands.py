"""``/compact``: compact the view now, undo compactions, or see where the context stands.

- ``/compact [instruction]`` runs every strategy once (the instruction steers the summary) and
  prints the report: ``⟲ compacted with trim, summarise: ~9,100 → ~2,200 tokens``.
- ``/compact undo`` puts the newest compaction's range back into the view and says what came
  back; ``/compact undo all`` undoes every compaction on the current path.
- ``/compact status``: compactions in force, the tokens of the next request against the context
  window, and the thresholds.

Works the same from the shell: ``chatcli -c -p "/compact"``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import ChatcliError, apply_compactions, translation

if TYPE_CHECKING:
    from chatcli import ChatApp, Compaction, Conversation

__all__ = ["active_compactions", "compact_command", "status_lines"]

_, ngettext = translation(__name__)


def compact_command(app: ChatApp, argument: str) -> None:
    """Run ``/compact`` with the text after it."""
    words = argument.split()
    try:
        if words[:1] == ["undo"] and len(words) <= 2:
            if len(words) == 2 and words[1] != "all":
                _say(app, _("usage: /compact undo [all]"), "yellow")
                return
            _undo(app, everything=len(words) == 2)
        elif words == ["status"]:
            for line in status_lines(app):
                _say(app, line)
        else:
            _compact(app, argument.strip() or None)
    except ChatcliError as err:
        _say(app, _("error: {error}").format(error=err), "red")


def _say(app: ChatApp, text: str, style: str = "dim") -> None:
    app.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)


def _compact(app: ChatApp, instruction: str | None) -> None:
    from chatcli_compaction.runner import compact_now

    report = compact_now(app.session, instruction)
    _say(app, f"⟲ {report.line()}", "dim" if report.changed else "yellow")
    for compaction in report.compactions:
        if compaction.note and compaction.strategy != "trim":
            _say(app, f"  {compaction.strategy}: {compaction.note} ({compaction.id})")
    trimmed = [c for c in report.compactions if c.strategy == "trim"]
    if trimmed:
        _say(app, "  " + ngettext("trim: shortened {count} message",
                                  "trim: shortened {count} messages",
                                  len(trimmed)).format(count=len(trimmed)))
    if report.changed:
        _say(app, "  " + _("/compact undo puts the newest compaction back; the log keeps "
                           "everything"))


def _undo(app: ChatApp, *, everything: bool) -> None:
    conversation = app.conversation
    undone: list[tuple[Compaction, int]] = []
    while True:
        before = len(conversation.view())
        compaction = app.session.conversation.undo_compaction()
        if compaction is None:
            break
        back = len(conversation.view()) - before + len(compaction.replacement)
        undone.append((compaction, back))
        if not everything:
            break
    if not undone:
        _say(app, _("nothing to undo: no compaction applies to this conversation"), "yellow")
        return
    tokens = app.session.context_tokens()
    for compaction, back in undone:
        # (a compaction's note is English: the model reads it too)
        what = compaction.note or _("{strategy} compaction").format(
            strategy=compaction.strategy)
        _say(app, ngettext("⟲ undid {strategy} ({id}): {count} message back in the view — it "
                           "had {what}",
                           "⟲ undid {strategy} ({id}): {count} messages back in the view — it "
                           "had {what}", back).format(
            strategy=compaction.strategy, id=compaction.id, count=back, what=what))
    left = len(active_compactions(conversation))
    if left:
        _say(app, "  " + ngettext(
            "the next request: ~{tokens:,} tokens; {count} more compaction in force "
            "(/compact undo again)",
            "the next request: ~{tokens:,} tokens; {count} more compactions in force "
            "(/compact undo again)", left).format(tokens=tokens, count=left))
    else:
        _say(app, "  " + _("the next request: ~{tokens:,} tokens").format(tokens=tokens))


def active_compactions(conversation: Conversation) -> list[Compaction]:
    """The compactions that apply to the current path, oldest first."""
    view = conversation.messages()
    active = []
    for compaction in conversation.compactions:
        after = apply_compactions(view, [compaction])
        if after is not view:
            active.append(compaction)
            view = after
    return active


def status_lines(app: ChatApp) -> list[str]:
    """What ``/compact status`` prints."""
    session: Any = app.session
    settings = app.settings
    window = session.engine.current.context_window
    tokens = session.context_tokens()
    active = active_compactions(app.conversation)
    counts: dict[str, int] = {}
    for compaction in active:
        counts[compaction.strategy or "?"] = counts.get(compaction.strategy or "?", 0) + 1
    kinds = ", ".join(f"{name} {count}" for name, count in counts.items())
    lines = [_("compactions in force: {count}{kinds} · the log holds {log:,} messages, the "
               "view {view:,}").format(count=len(active), kinds=f" ({kinds})" if kinds else "",
                                       log=len(app.conversation.log),
                                       view=len(app.conversation.view())),
             _("next request: ~{tokens:,} of {window:,} tokens ({share:.0%})").format(
                 tokens=tokens, window=window, share=tokens / window)]
    lines.append(" · ".join([
        # i18n: a label: when a chat compacts by itself
        _threshold(_("chat"), settings.compact_threshold, window),
        # i18n: a label: when an agent run (a subagent's) compacts by itself
        _threshold(_("agent runs"), settings.agent_compact_threshold, window),
        _("keeps the newest {count} messages verbatim").format(
            count=settings.compact_keep_recent)]))
    return lines


def _threshold(who: str, share: float, window: int) -> str:
    if share <= 0:
        return _("{who}: never by itself").format(who=who)
    return _("{who}: compacts at {share:.0%} (~{tokens:,} tokens)").format(
        who=who, share=share, tokens=int(share * window))
