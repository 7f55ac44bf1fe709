"""What the model is told about delegating (only in requests that offer the ``delegate`` tool),
and the section a worker's requests carry (its type's prompt)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chatcli import PromptSection
    from chatcli_plugin_records import AgentType

    from chatcli_subagents.board import Worker

__all__ = ["delegation_section", "verifiers", "worker_section"]

SECTION = "delegation"

_GUIDE = """\
## Delegating to workers
The `delegate` tool hands a self-contained task to a worker with a context of its own; you get \
back its short report (and the files it changed), not its transcript. Work as an orchestrator: \
plan, dispatch, verify.
- Plan first: split the work into independent tasks. Make every delegate call for independent \
tasks in the same step: they run at the same time.
- Use `explore` for reading and searching (it cannot change anything); keep edits that depend \
on each other in one worker, or do them yourself.
- A worker sees nothing of this conversation: put everything it needs in `task` (goal, files, \
constraints, what to report).
- Check what workers report before you rely on it{verify}."""


def verifiers(types: dict[str, AgentType]) -> list[str]:
    """The types that verify (checkers, reviewers, testers), best first: one named
    ``verifier``, then those whose name says they verify, then those whose description does."""
    words = ("verif", "review", "check")

    def rank(name: str) -> int:
        description = types[name].description.lower()
        if name == "verifier":
            return 0
        if any(word in name.lower() for word in words):
            return 1
        return 2 if any(word in description for word in words) else 3

    found = [name for name in types if name not in ("general", "explore") and rank(name) < 3]
    return sorted(found, key=rank)


def delegation_section(types: dict[str, AgentType]) -> PromptSection:
    """How to delegate (naming a verifier type when there is one)."""
    from chatcli import PromptSection

    found = verifiers(types)
    verify = (f"; when the work is done, delegate to `{found[0]}` to verify it"
              if found else "")
    return PromptSection(name=SECTION, text=_GUIDE.format(verify=verify), stable=True,
                         order=60, needs_tools=True)


def worker_section(agent: AgentType, worker: Worker) -> PromptSection:
    """A worker's instructions: who it is, its type's prompt, how to end."""
    from chatcli import PromptSection

    text = (f"You are worker {worker.id}, of type `{agent.name}`, started by another agent to "
            "do one task on your own. Nobody reads your steps: only your final answer goes "
            "back, so end with a concise, self-contained report (what you found or did, the "
            "files you changed, what is left).")
    if agent.prompt.strip():
        text += "\n\n" + agent.prompt.strip()
    return PromptSection(name="subagent", text=text, stable=True, order=40, essential=True)
