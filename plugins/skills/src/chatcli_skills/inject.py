"""Putting activated skills into the turn, once: bodies, "already above" notices, pointers.

**Where a body goes.** An activated skill's body travels *inside the turn*: it is appended to
the message that made it fire (the user's message, or the tool result that touched a path), in
the request sent to the model — never as a system section, because a system section is rebuilt
for every call and a body there would be paid in full on every turn. What was added where is
recorded in ``conversation.metadata["skills"]`` (:class:`Injection` records: the anchor
message's id, the exact text), and every later request adds the same text to the same message
again, byte for byte, so the provider's prompt cache keeps hitting and the model keeps seeing
its copy. The conversation log itself is never changed: stores, exports and other plugins see
what the user typed.

**"Already above" is checked against the live view, every call.** A record counts only while its
anchor message is in the request's messages — the conversation's view with compactions
applied. So ``/clear``, a rewind past the message, a compaction that summarised it away, a
restored checkpoint or a session loaded in a new process (whose store never had the body) all
take the copy out of sight, and the next time the skill fires its body is injected again. A
copy the model read back itself (``context_pull`` kind ``skill``) counts too while its tool
result is in view. The copy must be the same text as the skill's body today: bodies carry
their SKILL.md's sha256, so editing the file re-injects it.

**Cost control.** The bodies injected in one turn share a byte budget (``[skills] budget``); one
that does not fit becomes a pointer naming the exact ``context_pull`` call. A skill fires at
most once per run (one engine turn, however many model calls an agent makes in it), and in a
long run a body injected ``age_after`` calls ago is shortened to a stub that says how to read
it again. Nothing is deferred when the model has no way to read it back (no ``context_pull``
and no read tool): then the body is sent whole.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import field
from typing import Any

from chatcli_records_lite import dataclass

from chatcli_skills.skill import Skill

__all__ = [
    "METADATA_KEY",
    "NOTICE",
    "Activation",
    "Reach",
    "Run",
    "decorate",
    "entries_for",
    "present_blocks",
    "records_of",
]

METADATA_KEY = "skills"
#: The notice that replaces a body the live history already holds (ChatCLI's wording).
NOTICE = ("Body already provided earlier in this conversation — follow that copy; it has not "
          "changed. If it is no longer visible above, call context_pull with kind=skill and "
          "this skill's name.")
HEADER = "[chatcli skills — added to this message by chatcli]"
_MAX_RECORDS = 400


def pull_call(name: str, **extra: Any) -> str:
    """The ``context_pull`` arguments that read skill ``name`` back, as JSON."""
    return json.dumps({"kind": "skill", "name": name, **extra}, ensure_ascii=False)


@dataclass(frozen=True)
class Reach:
    """How the model can read a skill back: ``context_pull``, a read tool, or not at all."""

    pull: bool = False
    read_tool: str | None = None

    @property
    def any(self) -> bool:
        return self.pull or self.read_tool is not None

    def again(self, skill: Skill) -> str:
        """How to read ``skill`` again (for stubs)."""
        if self.pull:
            return f"call context_pull with {pull_call(skill.name)}"
        if self.read_tool:
            return f"read {skill.path} with the {self.read_tool} tool"
        return f"ask the user to run /skill {skill.name}"


@dataclass
class Activation:
    """A skill that fires in this call, why, and the user's arguments (``/skill NAME ARGS``)."""

    skill: Skill
    reason: str
    arguments: str | None = None


@dataclass
class Run:
    """One engine turn (one agent run): its prompt, model calls, and what fired in it."""

    id: str
    prompt: str | None
    calls: int = 0
    fired: set[str] = field(default_factory=set)
    #: bytes of bodies injected in this run
    used: int = 0
    #: skills the user invoked for this run: (name, arguments)
    forced: list[tuple[str, str]] = field(default_factory=list)


def records_of(conversation: Any) -> list[dict[str, Any]]:
    """The conversation's injection records (created on first use)."""
    table = conversation.metadata.setdefault(METADATA_KEY, {})
    if not isinstance(table, dict):
        table = conversation.metadata[METADATA_KEY] = {}
    records: object = table.setdefault("injected", [])
    if not isinstance(records, list):
        records = table["injected"] = []
    return records


def _texts(message: Any) -> list[str]:
    texts = [part.text for part in message.parts if getattr(part, "type", "") == "text"]
    texts += [part.content for part in message.parts if getattr(part, "type", "") ==
              "tool_result"]
    return texts


def present_blocks(messages: Sequence[Any], records: Iterable[dict[str, Any]]) -> set[str]:
    """The skill blocks the model sees in ``messages``: those injected on a message still in
    view (not aged), and those a tool result in view holds (``context_pull`` read them)."""
    ids = {m.id for m in messages}
    blocks: set[str] = set()
    for record in records:
        if record.get("anchor") in ids and not record.get("aged"):
            blocks.update(e["block"] for e in record.get("entries", [])
                          if e.get("kind") == "body" and e.get("block"))
    for message in messages:
        for text in _texts(message):
            start = text.find('<skill name="')
            while start != -1:
                end = text.find("</skill>", start)
                if end == -1:
                    break
                blocks.add(text[start:end + len("</skill>")])
                start = text.find('<skill name="', end)
    return blocks


def entries_for(activations: Sequence[Activation], present: set[str], run: Run, budget: int,
                reach: Reach, dedup: bool = True) -> list[dict[str, Any]]:
    """One entry per activation: the body (while the run's budget lasts), the notice (its
    copy is in view), or a pointer (over budget, and the model can read it back)."""
    entries = []
    for activation in activations:
        skill = activation.skill
        arguments = activation.arguments if skill.takes_arguments() else None
        block = skill.block(arguments)
        size = len(block.encode("utf-8"))
        lead = f'Skill "{skill.name}" applies ({activation.reason}).'
        entry: dict[str, Any] = {"name": skill.name, "fingerprint": skill.short_fingerprint}
        if dedup and block in present:
            again = ("call context_pull with kind=skill and this skill's name" if reach.pull
                     else f"read {skill.path}" if reach.read_tool else "")
            notice = NOTICE if reach.pull else NOTICE.split(" If it is")[0] + (
                f" If it is no longer visible above, {again}." if again else "")
            entry.update(kind="notice", text=f"{lead} {notice}")
        elif run.used + size <= budget or not reach.any:
            run.used += size
            entry.update(kind="body", block=block, text=f"{lead} Its instructions:\n{block}")
        elif reach.pull:
            entry.update(kind="pointer", text=(
                f"{lead} Its instructions ({size:,} bytes) were left out of this message to "
                f"keep the prompt small. Before applying this skill, call context_pull with "
                f"{pull_call(skill.name)}"))
        else:
            entry.update(kind="pointer", text=(
                f"{lead} Its instructions ({size:,} bytes) were left out of this message to "
                f"keep the prompt small. Before applying this skill, read its instructions "
                f"with the {reach.read_tool} tool: {skill.path}"))
        entries.append(entry)
    return entries


def stub(entry: dict[str, Any], skill: Skill | None, reach: Reach) -> str:
    """What an aged body entry becomes."""
    name = entry.get("name", "?")
    again = reach.again(skill) if skill is not None else (
        f"call context_pull with {pull_call(name)}" if reach.pull else "ask the user")
    return (f'[skill "{name}": its instructions were given here earlier in this run and are '
            f"shortened now to save context; to read them again, {again}]")


def record_text(record: dict[str, Any]) -> str:
    """The text a record adds to its anchor message."""
    texts = [e.get("stub") if record.get("aged") and e.get("kind") == "body" and e.get("stub")
             else e.get("text", "") for e in record.get("entries", [])]
    return HEADER + "\n" + "\n\n".join(t for t in texts if t)


def add_record(records: list[dict[str, Any]], record: dict[str, Any]) -> None:
    records.append(record)
    if len(records) > _MAX_RECORDS:
        del records[: len(records) - _MAX_RECORDS]


def decorate(messages: list[Any], records: Sequence[dict[str, Any]],
             copies: dict[str, tuple[Any, str, Any]]) -> None:
    """Add each record's text to its anchor message in ``messages`` (in place, as copies; the
    same copy object is reused while the message and the text stay the same, so providers'
    per-message caches keep hitting)."""
    by_anchor: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_anchor.setdefault(record.get("anchor", ""), []).append(record)
    if not by_anchor:
        return
    for index, message in enumerate(messages):
        mine = by_anchor.get(message.id)
        if not mine:
            continue
        text = "\n\n".join(record_text(r) for r in mine)
        call = mine[-1].get("call")
        hit = copies.get(message.id)
        if hit is not None and hit[0] is message and hit[1] == text:
            messages[index] = hit[2]
            continue
        copy = _with_text(message, text, call)
        copies[message.id] = (message, text, copy)
        messages[index] = copy
    if len(copies) > 4 * len(messages) + 64:
        keep = {m.id for m in messages}
        for key in [k for k in copies if k not in keep]:
            del copies[key]


def _with_text(message: Any, text: str, call: str | None) -> Any:
    """A copy of ``message`` ending with ``text``: in its tool result ``call`` (or its last
    result) when it holds results, else as a text part of its own."""
    from chatcli import TextPart

    parts = list(message.parts)
    results = [i for i, p in enumerate(parts) if getattr(p, "type", "") == "tool_result"]
    if results:
        index = next((i for i in results if parts[i].call_id == call), results[-1])
        part = parts[index]
        parts[index] = part.model_copy(update={"content": f"{part.content}\n\n{text}"})
    else:
        parts.append(TextPart(text=f"\n\n{text}"))
    return message.model_copy(update={"parts": parts})
