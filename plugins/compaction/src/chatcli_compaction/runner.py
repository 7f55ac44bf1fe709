"""The compaction run: chatcli-compaction's ``compact_view`` (the kernel calls it when the view
passes its threshold, after the provider said a request is too long, and for ``/compact``).

It collects the strategies (``register_compaction_strategies``, declared here), builds a
:class:`~chatcli_plugin_records.CompactionJob` with a budget and the summary call (the model in
use, without tools, within ``compact_timeout``), and runs the strategies in order until the view
fits (:func:`run_compaction`). Registered on its own (``host.register(runner)``) it runs only
the strategies other plugins register.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation
from chatcli_plugin_records import CompactionJob, CompactionReport, CompactionStrategy

if TYPE_CHECKING:
    from chatcli import (
        ChatRequest,
        Compaction,
        Conversation,
        Engine,
        Message,
        PluginHost,
        Session,
        Settings,
        Use,
    )

__all__ = ["compact_now", "compact_view", "run_compaction", "strategies"]

_, ngettext = translation(__name__)

@hookimpl
def add_hookspecs(add: Callable[[object], None]) -> None:
    """Declare ``register_compaction_strategies``."""
    from chatcli_compaction import hookspecs

    add(hookspecs)


def strategies(host: PluginHost) -> dict[str, CompactionStrategy]:
    """The registered strategies by name (collected once per host, until a plugin comes or goes;
    of two with one name the first registered wins and the other is reported)."""
    return host.collect("register_compaction_strategies", CompactionStrategy,
                        "compaction strategy")


@hookimpl
def compact_view(engine: Engine, conversation: Conversation, reason: str,
                 instruction: str | None, use: Use, settings: Settings
                 ) -> CompactionReport | None:
    """Run the registered strategies on ``conversation``'s view; None when there is nothing to
    run (no strategy, or a threshold compaction with nothing but pinned and recent messages).
    The budget is half the context window for a manual or overflow compaction and 60 % of the
    trigger otherwise, so the next turns have room."""
    found = strategies(engine.host)
    if not found and reason != "manual":
        return None
    view = conversation.view()
    if reason == "threshold" and not _compactable(view, settings.compact_keep_recent):
        return None  # the system prompt and tools alone pass it: nothing to do, no line
    view_tokens = engine.tokens.estimate(view)
    system_tokens = max(0, engine.context_tokens(conversation, use, settings) - view_tokens)
    window = use.context_window
    threshold = settings.compact_threshold or 0.75
    budget = int(window * (0.5 if reason != "threshold" else threshold * 0.6))
    if reason == "overflow":  # the provider counted more than the estimate says
        budget = min(budget, (view_tokens + system_tokens) // 2)
    job = CompactionJob(
        view=view, budget=max(budget - system_tokens, 0),
        keep_recent=settings.compact_keep_recent,
        count=lambda messages: engine.tokens.estimate(messages),
        summarize=lambda messages, instructions: _summarize(
            messages, instructions, use, settings, engine, conversation),
        settings=settings, reason=reason, instruction=instruction,
    )
    return run_compaction(
        list(found.values()), job, conversation.compact, warn=engine.host.warn,
        before=lambda name: engine.host.hooks.view_changed(
            conversation=conversation, reason="compacting", strategy=name, removed=0),
    )


def compact_now(session: Session, instruction: str | None = None) -> CompactionReport:
    """``/compact``: the session's view compacted now, as a report (one that says nothing was
    compacted when another plugin's ``compact_view`` answered first with something else)."""
    report = session.compact(instruction)
    if isinstance(report, CompactionReport):
        return report
    tokens = session.context_tokens()
    return CompactionReport(tokens_before=tokens, tokens_after=tokens, reason="manual")


def _compactable(view: list[Message], keep_recent: int) -> bool:
    """Whether ``view`` holds a message strategies may compact: one neither pinned nor among
    the ``keep_recent`` newest (see :meth:`CompactionJob.protected`)."""
    older = view[:-keep_recent] if keep_recent > 0 else view
    return any(not message.pinned for message in older)


def _summarize(messages: Sequence[Message], instructions: str, use: Use, settings: Settings,
               engine: Engine, conversation: Conversation) -> str:
    """The model's text about ``messages`` following ``instructions`` (no tools), within
    ``compact_timeout`` seconds: a side call of purpose "compaction" (``/cost`` counts it)."""
    from chatcli import ChatcliError, ChatRequest, Message, PromptSection
    from chatcli_plugin_records import describe_messages

    request = ChatRequest(
        model=use.model,
        system=[PromptSection(name="compaction", text=instructions, order=0)],
        messages=[Message.user(describe_messages(messages, limit=4_000))],
        max_tokens=settings.max_tokens, purpose="compaction",
    )
    text = _complete(request, use, settings.compact_timeout,
                     min(settings.response_timeout, settings.compact_timeout), engine,
                     conversation)
    if text is None:
        raise ChatcliError(_("the summary took longer than {seconds:g} s").format(
                               seconds=settings.compact_timeout),
                           _("raise compact_timeout, or compact by hand with /compact"))
    return text


def _complete(request: ChatRequest, use: Use, timeout: float, response_timeout: float,
              engine: Engine, conversation: Conversation) -> str | None:
    """The text of one answer to ``request`` (its tool calls ignored), with the provider's
    retries (:meth:`chatcli.Engine.side_call`: observers count it); None when it took longer
    than ``timeout`` seconds."""
    import threading

    from chatcli import TextDelta, safe_text

    cancel = threading.Event()
    timer = threading.Timer(timeout, cancel.set)
    timer.daemon = True
    timer.start()
    text: list[str] = []
    events = engine.side_call(request, conversation, use=use, cancel=cancel,
                              response_timeout=response_timeout)
    try:
        for event in events:
            if cancel.is_set():
                break
            if isinstance(event, TextDelta):
                text.append(safe_text(event.text))
    except KeyboardInterrupt:
        if not cancel.is_set():
            raise
    finally:
        events.close()
        timer.cancel()
    return None if cancel.is_set() else "".join(text).strip()


def run_compaction(
    strategies: Sequence[CompactionStrategy],
    job: CompactionJob,
    apply: Callable[[Compaction], None],
    *,
    warn: Callable[[str], None] = lambda line: None,
    before: Callable[[str], None] = lambda name: None,
) -> CompactionReport:
    """Run ``strategies`` in order on ``job`` until its view fits ``job.budget``.

    Each proposed compaction is checked against the current view, given to ``apply`` (which
    records it on the conversation) and the view is updated; ``before(name)`` is told before
    each strategy runs. A strategy that raises is reported
    in one line and the next one runs. For a manual compaction every strategy runs once even if
    the view already fits (the person asked for it), the last resort (order >= 300) only when
    the view still does not fit.
    """
    from chatcli import apply_compactions
    from chatcli_plugin_records import check_compaction

    report = CompactionReport(tokens_before=job.tokens(), tokens_after=job.tokens(),
                              reason=job.reason)
    for strategy in sorted(strategies, key=lambda s: (s.order, s.name)):
        fits = job.tokens() <= job.budget
        if fits and (job.reason != "manual" or strategy.order >= 300):
            break
        before(strategy.name)
        try:
            proposed = strategy.run(job)
        except Exception as err:  # a strategy's failure must not lose the turn
            line = _("{strategy} failed: {error}").format(strategy=strategy.name,
                                                           error=_short(err))
            report.notes.append(line)
            warn(line)
            continue
        for compaction in proposed or []:
            why = check_compaction(job.view, compaction)
            if why is not None:
                line = _("{strategy}: a compaction was refused ({why})").format(
                    strategy=strategy.name, why=why)
                report.notes.append(line)
                warn(line)
                continue
            compaction.strategy = compaction.strategy or strategy.name
            compaction.instruction = compaction.instruction or job.instruction
            compaction.tokens_before = job.tokens()
            job.view = apply_compactions(job.view, [compaction])
            compaction.tokens_after = job.tokens()
            apply(compaction)
            report.compactions.append(compaction)
        report.notes.extend(job.notes)
        job.notes = []
    report.tokens_after = job.tokens()
    return report


def _short(err: BaseException) -> str:
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text[:200]
