"""This plugin's ``context_pull`` kinds: ``contexts``, ``context``, ``history``, ``bootstrap``.

Each ``fetch(arguments, context)`` gets the normalised arguments and the
:class:`chatcli.ToolContext` (workspace, settings, conversation, ``max_output``). Long answers
come in pages that end with the call reading the next one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from chatcli_context.pull import PullError, page
from chatcli_context.store import ContextStore, StoredContext, attached_names

if TYPE_CHECKING:
    from chatcli import ToolContext
    from chatcli_plugin_records import PullKind

__all__ = ["own_kinds"]


def own_kinds() -> list[PullKind]:
    from chatcli_plugin_records import PullKind

    return [
        PullKind("contexts", "the contexts attached to this conversation (and the others "
                             "that exist), or one context's list of files", _contexts,
                 "name (optional): a context"),
        PullKind("context", "an attached context's text, whole or one file, page by page",
                 _context, "name: the context; file (optional): one of its files; offset "
                           "(optional)"),
        PullKind("history", "the original messages of a compacted part of this conversation, "
                            "or the list of compactions", _history,
                 "id (optional): the compaction's id; offset (optional)"),
        PullKind("bootstrap", "a bootstrap or rule file the prompt cut (AGENTS.md, "
                              "rules/python.md …), or the list of them", _bootstrap,
                 "name (optional): the file; offset (optional)"),
    ]


def _limit(context: ToolContext) -> int:
    """Characters of one page: what a tool result may hold, less room for the page note."""
    return max(1_000, context.max_output - 400)


def _offset(arguments: Mapping[str, Any]) -> int:
    value = arguments.get("offset")
    return value if isinstance(value, int) and value > 0 else 0


def _call(kind: str, **arguments: Any) -> Any:
    from chatcli_context.prompt import pull_call

    return lambda offset: pull_call(kind, **arguments, offset=offset)


# ------------------------------------------------------------------------------ contexts


def _attached(context: ToolContext) -> list[str]:
    return attached_names(context.conversation)


def _find(name: str, names: list[str]) -> str | None:
    if name in names:
        return name
    folded = [n for n in names if n.lower() == name.lower()]
    return folded[0] if len(folded) == 1 else None


def _contexts(arguments: Mapping[str, Any], context: ToolContext) -> str:
    store = ContextStore()
    attached = _attached(context)
    name = arguments.get("name")
    if name:
        found = _find(str(name), attached)
        stored = store.load(found) if found else None
        if stored is None:
            raise PullError(_not_attached(str(name), attached))
        from chatcli_context.prompt import pull_call

        lines = [f'Context "{stored.name}": {len(stored.files)} files, '
                 f"{stored.chars:,} characters."]
        lines += [f"- {f.path} ({len(f.text):,} characters): "
                  f"{pull_call('context', name=stored.name, file=f.path)}" for f in stored.files]
        return page("\n".join(lines), _offset(arguments), _limit(context),
                    _call("contexts", name=stored.name))
    lines = []
    if attached:
        lines.append("Attached to this conversation:")  # untranslated: model-facing
        for item in attached:
            stored = store.load(item)
            lines.append(f"- {item}: " + ("missing (it was deleted)" if stored is None else
                                          f"{len(stored.files)} files, {stored.chars:,} "
                                          "characters"))
    else:
        lines.append("No context is attached to this conversation.")  # untranslated: model-facing
    others = [n for n in store.names() if n not in attached]
    if others:
        lines.append(  # (context_pull's answers are the model's: English)
            "Not attached (the user can attach them with /context attach NAME): "  # untranslated
            + ", ".join(others))
    return "\n".join(lines)


def _not_attached(name: str, attached: list[str]) -> str:
    have = ", ".join(attached) if attached else "none"
    return (f"no context named {name!r} is attached to this conversation (attached: {have}); "
            "the user can attach one with /context attach NAME")


def _context(arguments: Mapping[str, Any], context: ToolContext) -> str:
    name = arguments.get("name")
    attached = _attached(context)
    if not name and len(attached) == 1:
        name = attached[0]
    if not name:
        raise PullError("say which context: " + (", ".join(  # untranslated: model-facing
            f'context_pull {{"kind":"context","name":"{n}"}}' for n in attached)
            if attached else "none is attached to this conversation"))
    found = _find(str(name), attached)
    stored = ContextStore().load(found) if found else None
    if stored is None:
        raise PullError(_not_attached(str(name), attached))
    wanted = arguments.get("file")
    if wanted:
        item = stored.file(str(wanted))
        if item is None:
            raise PullError(
                f"context {stored.name!r} has no file {wanted!r}; its files: "  # untranslated
                f'context_pull {{"kind":"contexts","name":"{stored.name}"}}')
        return page(item.text, _offset(arguments), _limit(context),
                    _call("context", name=stored.name, file=item.path))
    return page(_whole(stored), _offset(arguments), _limit(context),
                _call("context", name=stored.name))


def _whole(stored: StoredContext) -> str:
    from chatcli_context.prompt import render_context

    return render_context(stored)


# ------------------------------------------------------------------------------ history


def _history(arguments: Mapping[str, Any], context: ToolContext) -> str:
    from chatcli_plugin_records import describe_messages

    conversation = context.conversation
    if conversation is None or not conversation.compactions:
        raise PullError(
            "nothing of this conversation was compacted: every message is in "  # untranslated
            "the conversation as it was")
    wanted = arguments.get("id") or arguments.get("name")
    if not wanted:
        from chatcli_context.prompt import pull_call

        return "\n".join(["Compactions of this conversation (oldest first):"] + [
            f"- {c.id} ({c.strategy or 'compaction'}{': ' + c.note if c.note else ''}): "
            f"{pull_call('history', id=c.id)}" for c in conversation.compactions])
    try:
        messages = conversation.archived(str(wanted))
    except KeyError:
        ids = ", ".join(c.id for c in conversation.compactions)
        raise PullError(
            f"no single compaction matches {wanted!r}; the compactions: {ids}"  # untranslated
        ) from None
    if not messages:
        raise PullError(
            f"compaction {wanted!r} no longer applies (the conversation was "  # untranslated
            "rewound before it)")
    text = describe_messages(messages, limit=100_000)
    return page(text, _offset(arguments), _limit(context), _call("history", id=str(wanted)))


# ------------------------------------------------------------------------------ bootstrap


def _bootstrap(arguments: Mapping[str, Any], context: ToolContext) -> str:
    from chatcli import config_dir

    from chatcli_context.bootstrap import find_bootstrap
    from chatcli_context.files import project_root
    from chatcli_context.prompt import CACHE, pull_call
    from chatcli_context.rules import find_rules

    files = {f.name: (str(f.path), f.text) for f in
             find_bootstrap(context.workspace, config_dir(), CACHE)}
    for rule in find_rules(project_root(context.workspace), config_dir(), CACHE):
        files[f"rules/{rule.name}"] = (str(rule.path), rule.body)
    name = arguments.get("name") or arguments.get("file")
    if not name:
        if not files:
            return "There are no bootstrap or rule files."
        return "\n".join(["Bootstrap and rule files:"] + [
            f"- {n} ({len(text):,} characters, {path}): {pull_call('bootstrap', name=n)}"
            for n, (path, text) in files.items()])
    key = _bootstrap_name(str(name), list(files))
    if key is None:
        raise PullError(f"no bootstrap or rule file {name!r}; the files: "  # untranslated
                        + (", ".join(files) or "none"))
    return page(files[key][1], _offset(arguments), _limit(context),
                _call("bootstrap", name=key))


def _bootstrap_name(name: str, names: list[str]) -> str | None:
    wanted = name.strip().removeprefix("./").removeprefix(".chatcli/")
    for candidate in (wanted, f"rules/{wanted}", f"{wanted}.md", f"rules/{wanted}.md"):
        found = _find(candidate, names)
        if found is not None:
            return found
    ends = [n for n in names if n.lower().endswith("/" + wanted.lower())]
    return ends[0] if len(ends) == 1 else None
