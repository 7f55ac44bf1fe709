"""``/context status``: the next request's prompt section by section, beside what the provider
counted on the last call.

Each row: the section's name, characters, estimated tokens (the local estimate, corrected by
the provider's last count), stable or volatile, and its cache state — ``hit`` (stable, inside
the cacheable prefix, and the prefix up to it is what the last request sent), ``write`` (stable
but new or changed since the last request: the provider writes it to its cache), ``no``
(volatile: after the cached prefix) or ``-`` (the provider does not cache prompts).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli_context.plugin import ContextPlugin

__all__ = ["MIN_CACHED_TOKENS", "status_lines"]

#: Providers cache a prefix only from about this many tokens (Anthropic 1,024–4,096 by model,
#: OpenAI 1,024).
MIN_CACHED_TOKENS = 1_024

_, ngettext = translation(__name__)


def _caching(session: Any) -> bool:
    """Whether the provider answering caches the stable prefix."""
    if not session.spec.capabilities.prompt_caching:
        return False
    table = session.settings.provider_settings(session.provider_name).model_extra or {}
    return table.get("prompt_caching", True) is not False


def status_lines(plugin: ContextPlugin, app: Any) -> list[str]:
    """The lines ``/context status`` prints."""
    session, conversation = app.session, app.conversation
    engine = session.engine
    plugin.track(conversation)
    plugin.refresh(conversation, settings=session.settings)
    request = engine.build_request(conversation)
    caching = _caching(session)
    previous = plugin.last_prefix(conversation)
    tokens = engine.tokens

    tools_text = json.dumps([[t.name, t.description, t.parameters] for t in request.tools],
                            sort_keys=True, default=str)
    rows: list[tuple[str, int, int, str, str]] = []
    prefix: list[tuple[str, int]] = []
    still_hit = previous is not None

    def cache_state(stable: bool, key: tuple[str, int]) -> str:
        nonlocal still_hit
        if not caching:
            return "-"
        if not stable:
            return "no"
        prefix.append(key)
        still_hit = still_hit and previous is not None and previous[:len(prefix)] == prefix
        return "hit" if still_hit else "write"

    if request.tools:
        state = cache_state(True, ("tools", hash(tools_text)))
        rows.append((_("tools ({count})").format(count=len(request.tools)), len(tools_text),
                     tokens.text(tools_text), "stable", state))
    elif caching:
        cache_state(True, ("tools", hash(tools_text)))
    for section in request.ordered_system():
        if not section.text:
            continue
        state = cache_state(section.stable, (section.name, hash(section.text)))
        rows.append((section.name, len(section.text), tokens.text(section.text),
                     "stable" if section.stable else "volatile", state))

    lines = [(_("prompt of the next request ({provider}/{model}, prompt caching):") if caching
              else _("prompt of the next request ({provider}/{model}, no prompt caching):")
              ).format(provider=session.provider_name, model=session.model)]
    lines += _table(rows, tokens.estimate(request.messages), len(request.messages))
    stable_tokens = sum(r[2] for r in rows if r[3] == "stable")
    volatile_tokens = sum(r[2] for r in rows if r[3] == "volatile")
    lines.append(_("stable prefix ~{stable:,} tokens, volatile ~{volatile:,}").format(
        stable=stable_tokens, volatile=volatile_tokens))
    if caching and stable_tokens < MIN_CACHED_TOKENS:
        lines.append("  " + _("(providers cache a prefix only from about {tokens:,} tokens: "
                              "this one may not be cached)").format(tokens=MIN_CACHED_TOKENS))
    window = engine.current.context_window
    total = session.context_tokens()
    lines.append(_("next request ~{tokens:,} tokens of a {window:,}-token context window "
                   "({share:.1%}); local estimate corrected ×{ratio:.2f}").format(
        tokens=total, window=window, share=total / window, ratio=tokens.ratio))
    if tokens.last_counted is not None:
        lines.append(_("last call: the provider counted {counted:,} input tokens; the local "
                       "estimate was {estimated:,}").format(
            counted=tokens.last_counted, estimated=tokens.last_estimated or 0))
    else:
        lines.append(_("last call: none yet in this session (the figures above are "
                       "estimates)"))
    lines += pull_status(plugin, app)
    return lines


def _table(rows: list[tuple[str, int, int, str, str]], messages: int, count: int) -> list[str]:
    """The sections' table (rows of name, characters, tokens, kind, cache state), the
    messages' row last; the columns as wide as their words in the user's language."""
    # i18n: the columns of /context status: a prompt section's name, its characters, its
    # estimated tokens, stable or volatile, and its cache state
    head = (_("section"), _("chars"), _("~tokens"), _("kind"), _("cache"))
    # i18n: a prompt section's kind in /context status (a column 8 characters wide)
    kinds = {"stable": _("stable"), "volatile": _("volatile")}
    # i18n: a prompt section's cache state in /context status: "hit" (read from the
    # provider's cache), "write" (written to it), "no" (after the cached prefix)
    states = {"hit": _("hit"), "write": _("write"), "no": _("no"), "-": "-"}
    width = max([len(r[0]) for r in rows] + [len(head[0])])
    chars, tokens = max(9, len(head[1])), max(8, len(head[2]))
    kind = max([8, len(head[3]), *(len(k) for k in kinds.values())])
    lines = [f"  {head[0]:<{width}}  {head[1]:>{chars}}  {head[2]:>{tokens}}  "
             f"{head[3]:<{kind}}  {head[4]}"]
    for name, size, estimate, which, state in rows:
        lines.append(f"  {name:<{width}}  {size:>{chars},}  {estimate:>{tokens},}  "
                     f"{kinds.get(which, which):<{kind}}  {states.get(state, state)}")
    label = _("messages ({count})").format(count=count)
    lines.append(f"  {label:<{width}}  {'':>{chars}}  {messages:>{tokens},}")
    return lines


def pull_status(plugin: ContextPlugin, app: Any) -> list[str]:
    """Whether pull is on (and why), and what is deferred now."""
    import os

    from chatcli import parse_bool

    from chatcli_context.settings import PULL_ENV, PULL_SETTING

    settings = app.session.settings
    on = plugin.pull_on(settings)
    if plugin.pull_override is not None:
        source = _("/context pull, for this session")
    elif parse_bool((settings.model_extra or {}).get(PULL_SETTING)) is not None:
        source = _("{variable} (the {setting} setting)").format(variable=PULL_ENV,
                                                                setting=PULL_SETTING)
    elif parse_bool(os.environ.get(PULL_ENV)) is not None:
        source = PULL_ENV
    elif parse_bool(settings.plugin_table("context").get("pull")) is not None:
        source = "[context] pull"
    else:
        source = _("the default")
    lines = [(_("context_pull is on (from {source})") if on
              else _("context_pull is off (from {source})")).format(source=source)]
    if on:
        plan = plugin.plan(app.conversation)
        if plan.deferred:
            lines.append(_("deferred now ({count}), each reachable with:").format(
                count=len(plan.deferred)))
            lines += [f"  {call}" for call in plan.deferred]
        else:
            lines.append(_("nothing is deferred now: the prompt is the whole one"))
        lines.append(_("the tool is offered to the model") if plugin.offers_tool(plan, settings)
                     else _("the tool is not offered (there is nothing to pull)"))
    return lines
