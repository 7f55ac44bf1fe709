"""The curated prompt: the sections this plugin adds to every model call, and what it defers.

Stable sections (the same bytes turn after turn, and across resume):

- attached contexts, order 800 + their place among the attachments;
- bootstrap files, order 950 + their place in :data:`BOOTSTRAP_NAMES`;
- rules without ``paths:``, order 990.

They come after the kernel's base prompt (0), the tool catalog and mode banners (50) and the
user's ``system`` setting (900): the workspace half of the prompt is last in the cached region.

Volatile sections (after every stable one, so they never break the cached prefix; in an agent
run, whose requests set ``ChatRequest.volatile_last``, the anthropic and openai providers send
them after the history instead, at the end of the newest message, so each step's cached prefix
reaches the whole previous step):

- the archived-history note, order 150, naming the ``context_pull`` call of each compaction
  whose summary does not name it already;
- rules whose ``paths:`` the turn touches, order 200.

*Curated* (pull on), an attached context that does not fit ``prompt_budget`` is shown as a
digest and every cut names the ``context_pull`` call that reads the rest. *Uncurated* (pull off)
every attached context is shown whole, cut files name their path, and no section mentions
``context_pull``: that prompt is exactly what chatcli sent before curation existed.
"""

from __future__ import annotations

import json
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation
from chatcli_records_lite import dataclass

from chatcli_context.bootstrap import BOOTSTRAP_ORDER, allowances, cut, find_bootstrap
from chatcli_context.files import FileCache, project_root
from chatcli_context.rules import Rule, find_rules, match_rules, turn_paths
from chatcli_context.settings import ContextOptions
from chatcli_context.store import ContextStore, StoredContext, attached_names

if TYPE_CHECKING:
    from chatcli import Conversation, Message, PromptSection, Settings

__all__ = ["CONTEXT_ORDER", "Plan", "build_plan", "pull_call", "render_context",
           "render_digest"]

_, ngettext = translation(__name__)

CONTEXT_ORDER = 800
RULE_ORDER = 990
HISTORY_ORDER = 150
PATH_RULE_ORDER = 200
#: files a digest lists before pointing to the full list
DIGEST_FILES = 40

#: one cache for every plan of the process (files are read again only when they change)
CACHE = FileCache()


def pull_call(kind: str, **arguments: Any) -> str:
    """The exact call a deferral cites: ``context_pull {"kind":"context","name":"docs"}``."""
    payload = {"kind": kind, **{k: v for k, v in arguments.items() if v is not None}}
    return "context_pull " + json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


@dataclass
class Plan:
    """What one model call gets from this plugin."""

    sections: list[PromptSection] = field(default_factory=list)
    #: the ``context_pull`` calls the sections cite (one per deferral)
    deferred: list[str] = field(default_factory=list)
    #: attached context name → "whole", "digest" or "missing"
    contexts: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def build_plan(*, settings: Settings | None, workspace: Path, messages: list[Message],
               conversation: Conversation | None, curated: bool) -> Plan:
    """The sections for a model call on ``messages`` (the view), curated or not."""
    from chatcli import PromptSection, config_dir

    options, problems = ContextOptions.from_settings(settings)
    plan = Plan(problems=problems)
    root = project_root(workspace)
    user_dir = config_dir()
    _contexts(plan, options, conversation, curated)
    if options.bootstrap:
        files = find_bootstrap(workspace, user_dir, CACHE, plan.problems, root=root)
        for index, (file, allowed) in enumerate(zip(files, allowances(files, options),
                                                    strict=True)):
            where = f"{file.source} file {file.path}"
            body = _capped(plan, file.text, allowed, file.name, str(file.path), curated)
            plan.sections.append(PromptSection(
                name=f"bootstrap:{file.name}", order=BOOTSTRAP_ORDER + index,
                text=f"Contents of {file.name} ({where}):\n\n{body}"))
    if options.rules:
        rules = find_rules(root, user_dir, CACHE, plan.problems)
        for rule in rules:
            if rule.always:
                plan.sections.append(PromptSection(
                    name=f"rule:{rule.name}", order=RULE_ORDER,
                    text=_rule_text(plan, rule, options, curated, [])))
        paths = turn_paths(messages, workspace, root) if any(not r.always for r in rules) else []
        for rule, hits in match_rules(rules, paths):
            plan.sections.append(PromptSection(
                name=f"rule:{rule.name}", order=PATH_RULE_ORDER, stable=False,
                text=_rule_text(plan, rule, options, curated, hits)))
    if curated and conversation is not None:
        _history(plan, conversation, messages)
    return plan


def _capped(plan: Plan, text: str, allowed: int, name: str, path: str, curated: bool) -> str:
    """``text`` within ``allowed`` characters; a cut ends with how to read the rest."""
    kept, rest = cut(text, allowed)
    if rest >= len(text):
        return text
    head = (f"[{name} is cut here: the first {rest:,} of its {len(text):,} characters are "
            "above. ")
    if curated:
        call = pull_call("bootstrap", name=name, offset=rest)
        plan.deferred.append(call)
        return f"{kept}\n\n{head}The rest: {call}]"
    return f"{kept}\n\n{head}The whole file: {path}]"


def _rule_text(plan: Plan, rule: Rule, options: ContextOptions, curated: bool,
               hits: list[str]) -> str:
    where = f"{rule.source} file {rule.path}"
    body = _capped(plan, rule.body, options.rule_max_chars, f"rules/{rule.name}",
                   str(rule.path), curated)
    if not hits:
        return f"Rules from {rule.name} ({where}):\n\n{body}"
    globs = ", ".join(rule.globs)
    touched = ", ".join(hits[:5]) + (f" and {len(hits) - 5} more" if len(hits) > 5 else "")
    return (f"Rules from {rule.name} ({where}) for paths matching {globs}; this turn touches "
            f"{touched}:\n\n{body}")


# ------------------------------------------------------------------------------ contexts


def _contexts(plan: Plan, options: ContextOptions, conversation: Conversation | None,
              curated: bool) -> None:
    from chatcli import PromptSection

    store = ContextStore()
    names = attached_names(conversation, store)
    left = options.prompt_budget
    for index, name in enumerate(names):
        context = store.load(name)
        if context is None:
            plan.contexts[name] = "missing"
            plan.problems.append(_("the attached context {name!r} no longer exists "
                                   "(/context detach it, or create it again)").format(name=name))
            continue
        whole = render_context(context)
        if curated and len(whole) > left:
            text = render_digest(context)
            plan.deferred.append(pull_call("context", name=name))
            plan.contexts[name] = "digest"
        else:
            text = whole
            left -= len(whole)
            plan.contexts[name] = "whole"
        # the user attached it: a model without tools (a lean request) gets it too
        plan.sections.append(PromptSection(name=f"context:{name}",
                                           order=CONTEXT_ORDER + min(index, 99), text=text,
                                           essential=True))


def _size(context: StoredContext) -> str:
    files = len(context.files)
    return f"{files} file{'s' if files != 1 else ''}, {context.chars:,} characters"


def render_context(context: StoredContext) -> str:
    """An attached context shown whole: a header, then each file in a ``<file>`` element."""
    parts = [f'Attached context "{context.name}" ({_size(context)}):']
    for item in context.files:
        path = item.path.replace('"', "&quot;")
        parts.append(f'<file path="{path}">\n{item.text.rstrip(chr(10))}\n</file>')
    return "\n\n".join(parts)


def render_digest(context: StoredContext) -> str:
    """An attached context as a digest: what it holds and the call that reads each file."""
    name = context.name
    lines = [f'Attached context "{name}" ({_size(context)}) is not shown whole here, to keep '
             "the prompt small; read what the task needs with context_pull. Its files:"]
    for item in context.files[:DIGEST_FILES]:
        first = next((line.strip() for line in item.text.splitlines() if line.strip()), "")
        preview = f" — {first[:80]}{'…' if len(first) > 80 else ''}" if first else ""
        lines.append(f"- {item.path} ({len(item.text):,} characters){preview}: "  # untranslated
                     f"{pull_call('context', name=name, file=item.path)}")
    more = len(context.files) - DIGEST_FILES
    if more > 0:
        lines.append(f"- … and {more:,} more files, listed by "  # untranslated: model-facing
                     f"{pull_call('contexts', name=name)}")
    lines.append(f"All of it, page by page: {pull_call('context', name=name)}")  # untranslated
    return "\n".join(lines)


# ------------------------------------------------------------------------------ history


def active_compactions(conversation: Conversation, messages: list[Message]) -> list[Any]:
    """The compactions that stand for part of ``messages`` (the view)."""
    ids = {m.id for m in messages}
    found = []
    for compaction in conversation.compactions:
        if compaction.replacement:
            if any(m.id in ids for m in compaction.replacement):
                found.append(compaction)
        elif conversation.archived(compaction.id):
            found.append(compaction)
    return found


def _history(plan: Plan, conversation: Conversation, messages: list[Message]) -> None:
    from chatcli import PromptSection

    compactions = active_compactions(conversation, messages)
    lines = ["Parts of this conversation were compacted to save room; the original messages "
             "are kept and can be read back:"]
    for compaction in compactions:
        call = pull_call("history", id=compaction.id)
        plan.deferred.append(call)
        if _cites(compaction):  # its replacement already names the call, where it stands
            continue
        note = f" ({compaction.note})" if compaction.note else ""
        lines.append(f"- {compaction.id}{note}: {call}")
    if len(lines) > 1:
        plan.sections.append(PromptSection(name="archived-history", order=HISTORY_ORDER,
                                           stable=False, text="\n".join(lines)))


def _cites(compaction: Any) -> bool:
    """Whether the messages standing for ``compaction`` mention its id (a summary or a trimmed
    result that ends with its own context_pull call)."""
    for message in compaction.replacement:
        texts = [message.text, *(r.content for r in message.tool_results)]
        if any(compaction.id in text for text in texts):
            return True
    return False
