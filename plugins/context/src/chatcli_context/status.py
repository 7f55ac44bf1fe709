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

if TYPE_CHECKING:
    from chatcli_context.plugin import ContextPlugin

__all__ = ["MIN_CACHED_TOKENS", "status_lines"]

#: Providers cache a prefix only from about this many tokens (Anthropic 1,024–4,096 by model,
#: OpenAI 1,024).
MIN_CACHED_TOKENS = 1_024


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
        rows.append((f"tools ({len(request.tools)})", len(tools_text),
                     tokens.text(tools_text), "stable", state))
    elif caching:
        cache_state(True, ("tools", hash(tools_text)))
    for section in request.ordered_system():
        if not section.text:
            continue
        state = cache_state(section.stable, (section.name, hash(section.text)))
        rows.append((section.name, len(section.text), tokens.text(section.text),
                     "stable" if section.stable else "volatile", state))

    lines = [f"prompt of the next request ({session.provider_name}/{session.model}"
             f"{', prompt caching' if caching else ', no prompt caching'}):"]
    width = max([len(r[0]) for r in rows] + [7])
    lines.append(f"  {'section':<{width}}  {'chars':>9}  {'~tokens':>8}  {'kind':<8}  cache")
    for name, chars, estimate, kind, state in rows:
        lines.append(f"  {name:<{width}}  {chars:>9,}  {estimate:>8,}  {kind:<8}  {state}")
    messages = tokens.estimate(request.messages)
    lines.append(f"  {'messages (' + str(len(request.messages)) + ')':<{width}}  "
                 f"{'':>9}  {messages:>8,}")
    stable_tokens = sum(r[2] for r in rows if r[3] == "stable")
    volatile_tokens = sum(r[2] for r in rows if r[3] == "volatile")
    lines.append(f"stable prefix ~{stable_tokens:,} tokens, volatile ~{volatile_tokens:,}")
    if caching and stable_tokens < MIN_CACHED_TOKENS:
        lines.append(f"  (providers cache a prefix only from about {MIN_CACHED_TOKENS:,} "
                     "tokens: this one may not be cached)")
    window = engine.current.context_window
    total = session.context_tokens()
    lines.append(f"next request ~{total:,} tokens of a {window:,}-token context window "
                 f"({total / window:.1%}); local estimate corrected ×{tokens.ratio:.2f}")
    if tokens.last_counted is not None:
        lines.append(f"last call: the provider counted {tokens.last_counted:,} input tokens; "
                     f"the local estimate was {tokens.last_estimated or 0:,}")
    else:
        lines.append("last call: none yet in this session (the figures above are estimates)")
    lines += pull_status(plugin, app)
    return lines


def pull_status(plugin: ContextPlugin, app: Any) -> list[str]:
    """Whether pull is on (and why), and what is deferred now."""
    import os

    from chatcli import parse_bool

    from chatcli_context.settings import PULL_ENV, PULL_SETTING

    settings = app.session.settings
    on = plugin.pull_on(settings)
    if plugin.pull_override is not None:
        source = "/context pull, for this session"
    elif parse_bool((settings.model_extra or {}).get(PULL_SETTING)) is not None:
        source = f"{PULL_ENV} (the {PULL_SETTING} setting)"
    elif parse_bool(os.environ.get(PULL_ENV)) is not None:
        source = PULL_ENV
    elif parse_bool(settings.plugin_table("context").get("pull")) is not None:
        source = "[context] pull"
    else:
        source = "the default"
    lines = [f"context_pull is {'on' if on else 'off'} (from {source})"]
    if on:
        plan = plugin.plan(app.conversation)
        if plan.deferred:
            lines.append(f"deferred now ({len(plan.deferred)}), each reachable with:")
            lines += [f"  {call}" for call in plan.deferred]
        else:
            lines.append("nothing is deferred now: the prompt is the whole one")
        lines.append("the tool is offered to the model" if plugin.offers_tool(plan, settings)
                     else "the tool is not offered (there is nothing to pull)")
    return lines
