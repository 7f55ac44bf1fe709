"""``/memory`` and ``chatcli memory``: the same operations, each returning the lines to print.

``list [--all] [--kind K]`` · ``search QUERY`` · ``add [--subject S] [--global|--project]
[--profile KEY] TEXT`` (facts go to the project by default, profile fields everywhere) ·
``forget ID`` · ``edit ID TEXT`` · ``status`` · ``export [PATH]`` · ``import [PATH]``.
Failures are one line (:class:`Refused`) and change nothing.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli import translation
from chatcli_memory_api import MemoryItem, MemoryKind, Provenance

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_memory.model import Memory
    from chatcli_memory.runtime import Runtime

__all__ = ["HELP", "SUBCOMMANDS", "Refused", "add", "edit", "export", "forget", "import_file",
           "listing", "run_text", "search", "slash_command", "status"]

_, ngettext = translation(__name__)

SUBCOMMANDS = ["list", "search", "add", "forget", "edit", "status", "export", "import"]
HELP = _("long-term memory: /memory list [--all] | search QUERY | add [--subject S] "
         "[--global|--project] [--profile KEY] TEXT | forget ID | edit ID TEXT | status | "
         "export [PATH] | import [PATH]")


class Refused(Exception):
    """A command that cannot be done; its message is the one line printed."""


def _memory(runtime: Runtime) -> Memory:
    memory = runtime.open()
    if memory is None:
        raise Refused(_("memory is unavailable: {reason}").format(
            reason=runtime.failure or _("it is off")))
    return memory


def _short(item: MemoryItem) -> str:
    return item.id.removeprefix("mem_")[:8]


def _row(memory: Memory, item: MemoryItem, score: float | None = None) -> str:
    kind = item.kind.value + (f":{item.key}" if item.key and item.kind != MemoryKind.DAILY
                              else f" {item.key}" if item.key else "")
    flags = []
    if item.archived:
        flags.append(_("archived") + (f"→{item.superseded_by.removeprefix('mem_')[:8]}"
                                      if item.superseded_by else ""))
    if item.scope != "global":
        flags.append(_("project"))
    text = " ".join(item.text.split())
    if len(text) > 100:
        text = text[:99] + "…"
    strength = memory.strength(item)
    extra = _(" score {score:.2f}").format(score=score) if score is not None else ""
    flag = f" [{', '.join(flags)}]" if flags else ""
    # i18n: {id}, {kind} and {text} are the item's (not translated); "conf": its confidence
    return _("{id}  {kind:<18} conf {confidence:.2f} strength {strength:.2f}{score}{flags}  "
             "{text}").format(id=_short(item), kind=kind, confidence=item.confidence,
                              strength=strength, score=extra, flags=flag, text=text)


def _find(memory: Memory, ref: str) -> MemoryItem:
    item = memory.find(ref)
    if item is None:
        raise Refused(_("no memory item matches {ref!r} (see /memory list --all for ids)")
                      .format(ref=ref))
    return item


# ------------------------------------------------------------------------------ operations


def listing(runtime: Runtime, *, archived: bool = False, kind: str | None = None,
            limit: int = 50) -> list[str]:
    memory = _memory(runtime)
    runtime.maintain_if_due(background=False)
    try:
        wanted = MemoryKind(kind) if kind else None
    except ValueError:
        raise Refused(_("no kind {kind!r}; the kinds: {kinds}").format(
            kind=kind, kinds=", ".join(k.value for k in MemoryKind))) from None
    items = memory.backend.list(kind=wanted, scopes=memory.scopes, include_archived=archived,
                                limit=limit)
    if not items:
        return [_("memory is empty") if archived
                else _("memory is empty (archived items: --all)")]
    return [_row(memory, item) for item in items]


def search(runtime: Runtime, query: str, *, archived: bool = False) -> list[str]:
    memory = _memory(runtime)
    if not query.strip():
        raise Refused(_("say what to search for: /memory search QUERY"))
    hits = memory.backend.search(query, scopes=memory.scopes, include_archived=archived,
                                 limit=20)
    if not hits:
        return [_("nothing in memory matches {query!r}").format(query=query)]
    return [_row(memory, hit.item, hit.score) for hit in hits]


def add(runtime: Runtime, text: str, *, subject: str = "", scope: str | None = None,
        profile: str = "") -> list[str]:
    from chatcli_memory.model import SecretRefused

    memory = _memory(runtime)
    if not text.strip():
        raise Refused(_("say what to remember: /memory add TEXT"))
    kind = MemoryKind.PROFILE if profile else MemoryKind.FACT
    if scope is None:
        scope = "global" if kind == MemoryKind.PROFILE else "project"
    try:
        outcome = memory.remember(text, kind=kind, key=profile, subject=subject, scope=scope,
                                  provenance=Provenance.STATED,
                                  metadata={"source": "memory add"})
    except SecretRefused as err:
        raise Refused(str(err)) from None
    item = outcome.item
    if item is None:
        raise Refused(_("nothing to remember ({reason})").format(reason=outcome.note))
    runtime.added.append(item)
    if outcome.action == "merged":
        return [_("already remembered as {id} (confidence now {confidence:.2f})").format(
            id=_short(item), confidence=item.confidence)]
    if outcome.action == "superseded" and outcome.replaced is not None:
        return [_("remembered as {id}; it replaces {old} (archived)").format(
            id=_short(item), old=_short(outcome.replaced))]
    if item.scope != "global":
        return [_("remembered as {id} (this project)").format(id=_short(item))]
    return [_("remembered as {id} (everywhere)").format(id=_short(item))]


def forget(runtime: Runtime, ref: str) -> list[str]:
    memory = _memory(runtime)
    item = _find(memory, ref)
    memory.backend.delete(item.id)
    runtime.added = [i for i in runtime.added if i.id != item.id]
    runtime.refresh_index()
    return [_("forgot {id}: {text}").format(id=_short(item),
                                            text=" ".join(item.text.split())[:80])]


def edit(runtime: Runtime, ref: str, text: str) -> list[str]:
    from chatcli_memory.model import SecretRefused

    memory = _memory(runtime)
    item = _find(memory, ref)
    try:
        outcome = memory.correct(item.id, text)
    except SecretRefused as err:
        raise Refused(str(err)) from None
    except ValueError as err:
        raise Refused(_("{reason}: /memory edit ID TEXT").format(reason=err)) from None
    assert outcome.item is not None
    runtime.added = [i for i in runtime.added if i.id != item.id] + [outcome.item]
    runtime.refresh_index()
    return [_("corrected: {id} replaces {old} (kept, archived)").format(
        id=_short(outcome.item), old=_short(item))]


def status(runtime: Runtime) -> list[str]:
    return runtime.status_lines()


def export(runtime: Runtime, path: str | None) -> list[str]:
    from chatcli import atomic_write

    from chatcli_memory.markdown import export_markdown

    text = export_markdown(_memory(runtime))
    if not path:
        return text.rstrip("\n").splitlines()
    target = Path(path).expanduser()
    if not target.is_absolute():
        target = runtime.workspace / target
    try:
        atomic_write(target, text, 0o600)
    except OSError as err:
        raise Refused(_("cannot write {path}: {reason}").format(
            path=target, reason=err.strerror or err)) from None
    count = text.count(chr(10) + "- ")
    return [ngettext("exported {count} items to {path}", "exported {count} items to {path}",
                     count).format(count=count, path=target)]


def import_file(runtime: Runtime, path: str | None) -> list[str]:
    from chatcli_memory.markdown import import_markdown
    from chatcli_memory.model import action_count

    memory = _memory(runtime)
    if path:
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = runtime.workspace / target
        files = [(target, "project" if memory.project_scope else "global")]
    else:
        files = [(p, s) for p, s in runtime.markdown_files() if p.exists()]
        if not files:
            raise Refused(_("no MEMORY.md in the project root or the config folder; name a "
                            "file: import PATH"))
    lines = []
    for target, scope in files:
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise Refused(_("cannot read {path}: {reason}").format(
                path=target, reason=getattr(err, "strerror", None) or err)) from None
        counts = import_markdown(memory, text, scope=scope, source=str(target))
        summary = ", ".join(action_count(k, v) for k, v in sorted(counts.items())) or _("nothing")
        lines.append(_("imported {path}: {summary}").format(path=target, summary=summary))
    runtime.refresh_index()
    return lines


# ------------------------------------------------------------------------------ /memory


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _options(words: list[str], flags: dict[str, bool]) -> tuple[dict[str, Any], list[str]]:
    """``--name value`` (``flags[name]`` True: takes a value) and the rest."""
    found: dict[str, Any] = {}
    rest: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        name = word[2:] if word.startswith("--") else None
        if name in flags and not rest:
            if flags[name]:
                if index + 1 >= len(words):
                    raise Refused(_("--{name} needs a value").format(name=name))
                found[name] = words[index + 1]
                index += 2
                continue
            found[name] = True
        else:
            rest.append(word)
        index += 1
    return found, rest


def run_text(runtime: Runtime, text: str) -> list[str]:
    """Run ``/memory TEXT``; the lines to print."""
    words = _words(text.strip())
    command, args = (words[0].lower(), words[1:]) if words else ("list", [])
    if command == "list":
        opts, _rest = _options(args, {"all": False, "kind": True})
        return listing(runtime, archived=bool(opts.get("all")), kind=opts.get("kind"))
    if command == "search":
        opts, rest = _options(args, {"all": False})
        return search(runtime, " ".join(rest), archived=bool(opts.get("all")))
    if command in ("add", "remember"):
        opts, rest = _options(args, {"subject": True, "global": False, "project": False,
                                     "profile": True})
        scope = "global" if opts.get("global") else "project" if opts.get("project") else None
        return add(runtime, " ".join(rest), subject=opts.get("subject", ""), scope=scope,
                   profile=opts.get("profile", ""))
    if command in ("forget", "delete", "rm"):
        if len(args) != 1:
            raise Refused(_("say which item: /memory forget ID"))
        return forget(runtime, args[0])
    if command == "edit":
        if len(args) < 2:
            raise Refused(_("say which item and its new text: /memory edit ID TEXT"))
        return edit(runtime, args[0], " ".join(args[1:]))
    if command == "status":
        return status(runtime)
    if command == "export":
        return export(runtime, args[0] if args else None)
    if command == "import":
        return import_file(runtime, args[0] if args else None)
    raise Refused(_("no /memory {command}; {help}").format(command=command, help=HELP))


def slash_command(runtime: Any) -> SlashCommand:
    """The ``/memory`` command, for ``runtime()`` (the current :class:`Runtime`)."""
    from chatcli import SlashCommand

    def run(app: Any, text: str) -> None:
        try:
            lines = run_text(runtime(app), text)
        except Refused as err:
            lines = [str(err)]
        for line in lines:
            app.console.print(line, markup=False, highlight=False, soft_wrap=True)

    return SlashCommand("memory", HELP, run, subcommands=SUBCOMMANDS)

