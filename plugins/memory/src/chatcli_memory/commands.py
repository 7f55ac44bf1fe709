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

from chatcli_memory_api import MemoryItem, MemoryKind, Provenance

if TYPE_CHECKING:
    from chatcli import SlashCommand

    from chatcli_memory.model import Memory
    from chatcli_memory.runtime import Runtime

__all__ = ["HELP", "SUBCOMMANDS", "Refused", "add", "edit", "export", "forget", "import_file",
           "listing", "run_text", "search", "slash_command", "status"]

SUBCOMMANDS = ["list", "search", "add", "forget", "edit", "status", "export", "import"]
HELP = ("long-term memory: /memory list [--all] | search QUERY | add [--subject S] "
        "[--global|--project] [--profile KEY] TEXT | forget ID | edit ID TEXT | status | "
        "export [PATH] | import [PATH]")


class Refused(Exception):
    """A command that cannot be done; its message is the one line printed."""


def _memory(runtime: Runtime) -> Memory:
    memory = runtime.open()
    if memory is None:
        raise Refused(f"memory is unavailable: {runtime.failure or 'it is off'}")
    return memory


def _short(item: MemoryItem) -> str:
    return item.id.removeprefix("mem_")[:8]


def _row(memory: Memory, item: MemoryItem, score: float | None = None) -> str:
    kind = item.kind.value + (f":{item.key}" if item.key and item.kind != MemoryKind.DAILY
                              else f" {item.key}" if item.key else "")
    flags = []
    if item.archived:
        flags.append("archived" + (f"→{item.superseded_by.removeprefix('mem_')[:8]}"
                                   if item.superseded_by else ""))
    if item.scope != "global":
        flags.append("project")
    text = " ".join(item.text.split())
    if len(text) > 100:
        text = text[:99] + "…"
    strength = memory.strength(item)
    extra = f" score {score:.2f}" if score is not None else ""
    flag = f" [{', '.join(flags)}]" if flags else ""
    return (f"{_short(item)}  {kind:<18} conf {item.confidence:.2f} strength {strength:.2f}"
            f"{extra}{flag}  {text}")


def _find(memory: Memory, ref: str) -> MemoryItem:
    item = memory.find(ref)
    if item is None:
        raise Refused(f"no memory item matches {ref!r} (see /memory list --all for ids)")
    return item


# ------------------------------------------------------------------------------ operations


def listing(runtime: Runtime, *, archived: bool = False, kind: str | None = None,
            limit: int = 50) -> list[str]:
    memory = _memory(runtime)
    runtime.maintain_if_due(background=False)
    try:
        wanted = MemoryKind(kind) if kind else None
    except ValueError:
        raise Refused(f"no kind {kind!r}; the kinds: "
                      + ", ".join(k.value for k in MemoryKind)) from None
    items = memory.backend.list(kind=wanted, scopes=memory.scopes, include_archived=archived,
                                limit=limit)
    if not items:
        return ["memory is empty" + ("" if archived else " (archived items: --all)")]
    return [_row(memory, item) for item in items]


def search(runtime: Runtime, query: str, *, archived: bool = False) -> list[str]:
    memory = _memory(runtime)
    if not query.strip():
        raise Refused("say what to search for: /memory search QUERY")
    hits = memory.backend.search(query, scopes=memory.scopes, include_archived=archived,
                                 limit=20)
    if not hits:
        return [f"nothing in memory matches {query!r}"]
    return [_row(memory, hit.item, hit.score) for hit in hits]


def add(runtime: Runtime, text: str, *, subject: str = "", scope: str | None = None,
        profile: str = "") -> list[str]:
    from chatcli_memory.model import SecretRefused

    memory = _memory(runtime)
    if not text.strip():
        raise Refused("say what to remember: /memory add TEXT")
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
        raise Refused(f"nothing to remember ({outcome.note})")
    runtime.added.append(item)
    if outcome.action == "merged":
        return [f"already remembered as {_short(item)} (confidence now {item.confidence:.2f})"]
    if outcome.action == "superseded" and outcome.replaced is not None:
        return [f"remembered as {_short(item)}; it replaces {_short(outcome.replaced)} "
                f"(archived)"]
    where = "this project" if item.scope != "global" else "everywhere"
    return [f"remembered as {_short(item)} ({where})"]


def forget(runtime: Runtime, ref: str) -> list[str]:
    memory = _memory(runtime)
    item = _find(memory, ref)
    memory.backend.delete(item.id)
    runtime.added = [i for i in runtime.added if i.id != item.id]
    runtime.refresh_index()
    return [f"forgot {_short(item)}: {' '.join(item.text.split())[:80]}"]


def edit(runtime: Runtime, ref: str, text: str) -> list[str]:
    from chatcli_memory.model import SecretRefused

    memory = _memory(runtime)
    item = _find(memory, ref)
    try:
        outcome = memory.correct(item.id, text)
    except SecretRefused as err:
        raise Refused(str(err)) from None
    except ValueError as err:
        raise Refused(f"{err}: /memory edit ID TEXT") from None
    assert outcome.item is not None
    runtime.added = [i for i in runtime.added if i.id != item.id] + [outcome.item]
    runtime.refresh_index()
    return [f"corrected: {_short(outcome.item)} replaces {_short(item)} (kept, archived)"]


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
        raise Refused(f"cannot write {target}: {err.strerror or err}") from None
    return [f"exported {text.count(chr(10) + '- ')} items to {target}"]


def import_file(runtime: Runtime, path: str | None) -> list[str]:
    from chatcli_memory.markdown import import_markdown

    memory = _memory(runtime)
    if path:
        target = Path(path).expanduser()
        if not target.is_absolute():
            target = runtime.workspace / target
        files = [(target, "project" if memory.project_scope else "global")]
    else:
        files = [(p, s) for p, s in runtime.markdown_files() if p.exists()]
        if not files:
            raise Refused("no MEMORY.md in the project root or the config folder; name a "
                          "file: import PATH")
    lines = []
    for target, scope in files:
        try:
            text = target.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise Refused(f"cannot read {target}: {getattr(err, 'strerror', None) or err}"
                          ) from None
        counts = import_markdown(memory, text, scope=scope, source=str(target))
        summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "nothing"
        lines.append(f"imported {target}: {summary}")
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
                    raise Refused(f"--{name} needs a value")
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
            raise Refused("say which item: /memory forget ID")
        return forget(runtime, args[0])
    if command == "edit":
        if len(args) < 2:
            raise Refused("say which item and its new text: /memory edit ID TEXT")
        return edit(runtime, args[0], " ".join(args[1:]))
    if command == "status":
        return status(runtime)
    if command == "export":
        return export(runtime, args[0] if args else None)
    if command == "import":
        return import_file(runtime, args[0] if args else None)
    raise Refused(f"no /memory {command}; {HELP}")


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

