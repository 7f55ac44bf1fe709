"""One worker's run: a child conversation answered by a branch of the caller's engine.

:func:`run_worker` takes a place among ``[agents] max_workers`` (per root conversation and
level of nesting), builds the child conversation (``parent`` = the caller's, metadata
``{"subagent": {...}}``) and the child engine (``Engine.branch``: the type's tools among the
caller's, its model, the turn limit, an approver that asks one question at a time labelled with
the worker, live output prefixed with the worker's label), runs the task as the child's first
message, and watches the run: the caller's cancel event, ``max_seconds`` and ``max_tokens`` stop
it. What comes back is a short report — state, turns, tokens, time, changed files and the last
answer cut to a bound — never the transcript (``/agents show ID`` shows that).
"""

from __future__ import annotations

import importlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chatcli import StashKey, translation

from chatcli_subagents.board import WORKER, Worker, depth_of, registry, state_name
from chatcli_subagents.keys import OFFERED

if TYPE_CHECKING:
    from chatcli import (
        Approval,
        Conversation,
        Engine,
        Settings,
        Tool,
        ToolCallPart,
        TurnFinished,
        Verdict,
    )
    from chatcli_plugin_records import AgentType

    from chatcli_subagents.settings import AgentsConfig

__all__ = ["AGENT", "Delegation", "WorkerError", "run_worker"]

_, ngettext = translation(__name__)

#: the type a worker's conversation runs as (its prompt section comes from it)
AGENT: StashKey[AgentType] = StashKey()
#: the most characters of the worker's last answer the caller gets back
RESULT_CHARS = 6_000

#: one question to the person at a time, whichever worker asks
_ASKING = threading.RLock()  # re-entered: a nested worker asks through its parent
#: one live-output line at a time
_WRITING = threading.RLock()


class WorkerError(Exception):
    """A worker that could not run or failed: its one-line report is the message."""


@dataclass
class Delegation:
    """What a worker is started with: the caller's engine, conversation, settings, cancel
    event and live output; the type, task and description; isolation; ``[agents]``."""

    engine: Engine
    conversation: Conversation
    settings: Settings
    agent: AgentType
    task: str
    description: str
    config: AgentsConfig
    cancel: threading.Event | None = None
    output: Callable[[str], None] = lambda line: None
    isolation: str | None = None
    #: the ``delegate`` call's id (its worker takes the id kept for it, in the model's order)
    call_id: str | None = None


def _brief(call: ToolCallPart, limit: int = 70) -> str:
    if call.raw_arguments is not None:
        shown = call.raw_arguments
    else:
        shown = ", ".join(f"{key}={json.dumps(value, ensure_ascii=False)}"
                          for key, value in call.arguments.items())
    shown = " ".join(shown.split())
    return f"{call.name}({shown[: limit - 1] + '…' if len(shown) > limit else shown})"


def _first_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else ""


def _figures(worker: Worker) -> str:
    """``3 turns · 12,400 tokens · 8.2 s``, for the status lines the user reads."""
    return ngettext("{turns} turn · {tokens:,} tokens · {seconds:.1f} s",
                    "{turns} turns · {tokens:,} tokens · {seconds:.1f} s", worker.turns).format(
                        turns=worker.turns, tokens=worker.tokens, seconds=worker.seconds)


def _writer(output: Callable[[str], None], label: str) -> Callable[[str], None]:
    """``output``, thread-safe, each line prefixed with ``[label]``."""

    def write(text: str) -> None:
        with _WRITING:
            for line in text.rstrip("\n").splitlines() or [""]:
                output(f"[{label}] {line}")

    return write


def _approver(ask: Callable[..., Approval | bool], worker: Worker,
              stopped: threading.Event | None = None
              ) -> Callable[[ToolCallPart, Tool, Verdict], Approval | bool]:
    """``ask`` (the caller's approver) one question at a time, labelled with the worker; a
    stopped worker's questions are answered no without asking, and a worker whose caller was
    stopped (``stopped``) while it was asked stops at once, asking the model nothing more."""

    def approve(call: ToolCallPart, tool: Tool, verdict: Verdict) -> Approval | bool:
        from chatcli import Approval

        with _ASKING:
            if worker.cancel.is_set():
                return Approval(False, reason="the worker was stopped")
            reason = f"{worker.label}: {verdict.reason}" if verdict.reason else worker.label
            answer = ask(call, tool, verdict._replace(reason=reason))
            if stopped is not None and stopped.is_set():
                worker.stop("cancelled")
                return Approval(False, reason="the worker was stopped")
            return answer

    return approve


def _worktree() -> Any:
    """chatcli_subagents.worktree, when installed (the isolation helper's module)."""
    try:
        return importlib.import_module("chatcli_subagents.worktree")
    except ModuleNotFoundError:
        raise WorkerError("worktree isolation is not available") from None  # untranslated: model


def _take_place(places: threading.BoundedSemaphore, cancel: threading.Event | None) -> bool:
    """Wait for a free place; False when the caller is cancelled first."""
    while not places.acquire(timeout=0.05):
        if cancel is not None and cancel.is_set():
            return False
    if cancel is not None and cancel.is_set():  # the place came free because of the stop
        places.release()
        return False
    return True


def run_worker(job: Delegation) -> str:
    """Run one worker to its end; its report for the caller. Raises :class:`WorkerError` (the
    tool result is then an error) when it failed or was cancelled; a worker stopped by a limit
    reports what it had."""
    depth = depth_of(job.conversation) + 1
    board = registry(job.conversation)
    worker = board.add(job.agent.name, job.description, job.task, depth, job.call_id)
    worker.max_tokens = job.config.max_tokens
    say = _writer(job.output, worker.label)
    isolation = job.isolation or job.agent.isolation
    worktree = _worktree() if isolation == "worktree" else None
    if isolation not in (None, "", "worktree"):
        worker.state, worker.error = "failed", f"unknown isolation {isolation!r}"
        raise WorkerError(  # (the delegate tool's error: the model reads it)
            f"{worker.label}: unknown isolation {isolation!r} "
            "(use \"worktree\")")  # untranslated: model-facing
    places = board.places(depth, job.config.max_workers)
    if not _take_place(places, job.cancel):
        worker.state, worker.error = "cancelled", "cancelled before it started"
        raise WorkerError(f"{worker.label} was cancelled before it started")  # untranslated: model
    try:
        worker.started, worker.state = time.monotonic(), "running"
        say(_("started: {task}").format(task=job.description))
        return _run(job, worker, say, depth, worktree)
    finally:
        worker.ended = time.monotonic()
        places.release()


def _run(job: Delegation, worker: Worker, say: Callable[[str], None], depth: int,
         worktree: Any) -> str:
    from chatcli import Conversation, Message

    from chatcli_subagents.types import resolve_tools, resolve_use

    agent, parent = job.agent, job.engine
    tree = None
    try:
        use = resolve_use(agent, parent, job.settings)
        offered = parent.tools
        trimmed = job.conversation.stash.get(OFFERED, None)  # what the caller's model was offered
        if trimmed is not None:
            offered = {name: tool for name, tool in offered.items() if name in trimmed}
        names = resolve_tools(agent, offered)
        if depth >= job.config.max_depth:
            names.discard("delegate")
        names.discard("worker_branch")  # what becomes of a worker's branch is its caller's say
        turns = min(job.config.max_turns, agent.max_turns or job.config.max_turns)
        workspace = parent.workspace
        if worktree is not None:
            tree = worktree.create(parent.workspace, worker.id)
            workspace = tree.path
            worker.branch = tree.branch
        conversation = Conversation(
            parent=job.conversation, title=f"{worker.label}: {job.description}",
            max_checkpoints=job.conversation.max_checkpoints,
            metadata={"subagent": {"id": worker.id, "type": agent.name,
                                   "parent": job.conversation.id, "task": job.task,
                                   "description": job.description}})
        conversation.stash[WORKER] = worker
        conversation.stash[AGENT] = agent
        worker.conversation = conversation
        ask = parent.approver
        child = parent.branch(
            use=use, settings=job.settings.model_copy(update={"max_turns": turns}),
            tool_names=names, workspace=workspace,
            approver=_approver(ask, worker, job.cancel) if ask is not None else None,
            on_tool_output=say)
        finished = _drive(job, worker, child, conversation, say,
                          Message.user(job.task))
    except WorkerError:
        worker.state = "failed"
        raise
    except Exception as err:  # a bug or an unusable type: the worker's error, not the caller's
        worker.state = "failed"
        worker.error = f"{type(err).__name__}: {_first_line(str(err))}"
        say(_("failed: {error}").format(error=worker.error))
        raise WorkerError(f"{worker.label} failed: {worker.error}") from None  # untranslated: model
    finally:
        if worker.conversation is not None:
            _release_claims(worker.conversation)
        if tree is not None:
            _finish_tree(worktree, tree, worker, say)
    return _report(job, worker, finished, turns, say)


def _release_claims(conversation: Conversation) -> None:
    """Give up the files the worker claimed (chatcli-workspace's claims, when it has them):
    workers waiting for one go on."""
    import chatcli_workspace

    release = getattr(chatcli_workspace, "release_claims", None)
    if release is not None:
        release(conversation)


def _finish_tree(worktree: Any, tree: Any, worker: Worker, say: Callable[[str], None]) -> None:
    try:
        result = worktree.finish(tree)
    except Exception as err:
        say(_("its worktree could not be finished: {kind}: {error}").format(
            kind=type(err).__name__, error=err))
        return
    worker.branch = None if result.empty else result.branch  # an empty branch is deleted
    worker.diffstat = result.diffstat
    worker.changed = list(result.files)


def _drive(job: Delegation, worker: Worker, child: Engine, conversation: Conversation,
           say: Callable[[str], None], prompt: Any) -> TurnFinished | None:
    """Run the child's turn, watching the caller's cancel event and the time limit."""
    from chatcli import ToolFinished, ToolStarted, TurnFinished

    done = threading.Event()
    deadline = (worker.started or time.monotonic()) + job.config.max_seconds

    def watch() -> None:
        while not done.wait(0.05):
            if job.cancel is not None and job.cancel.is_set():
                worker.stop("cancelled")
            elif time.monotonic() > deadline:
                worker.stop(f"the time limit ({job.config.max_seconds:g} s) passed")

    watcher = threading.Thread(target=watch, name=f"chatcli-{worker.id}-watch", daemon=True)
    watcher.start()
    finished = None
    events = child.run(conversation, prompt, worker.cancel)
    try:
        for event in events:
            if isinstance(event, ToolStarted):
                say(f"→ {_brief(event.call)}")
            elif isinstance(event, ToolFinished) and event.result.is_error:
                say(f"✗ {event.call.name}: {_first_line(event.result.content)[:120]}")
            elif isinstance(event, TurnFinished):
                finished = event
    finally:
        events.close()
        done.set()
        watcher.join()
    return finished


def _report(job: Delegation, worker: Worker, finished: TurnFinished | None, turns: int,
            say: Callable[[str], None]) -> str:
    """Set the worker's end state from how its turn ended; the report for the caller."""
    from chatcli import Role, StopReason

    messages = finished.messages if finished is not None else []
    worker.turns = sum(1 for m in messages if m.role == Role.ASSISTANT) or worker.turns
    if finished is not None and finished.usage.total_tokens:
        worker.tokens = finished.usage.total_tokens
    text = finished.text.strip() if finished is not None else ""
    worker.result = text[:RESULT_CHARS]
    stop = finished.stop_reason if finished is not None else StopReason.INTERRUPTED
    if worker.stop_reason == "cancelled" or (job.cancel is not None and job.cancel.is_set()):
        # stopped with its caller: what failed afterwards (a dropped stream) is the stop's doing
        worker.state, worker.error = "cancelled", "its caller was interrupted"
    elif finished is not None and finished.error is not None:
        worker.state, worker.error = "failed", _first_line(str(finished.error))
    elif worker.stop_reason:
        worker.state, worker.error = "stopped", worker.stop_reason
    elif stop == StopReason.INTERRUPTED:
        worker.state, worker.error = "cancelled", "it was interrupted"
    elif stop == StopReason.TURN_LIMIT:
        worker.state, worker.error = "stopped", f"the turn limit ({turns}) was reached"
    elif stop == StopReason.REPEATED_CALLS:
        worker.state, worker.error = "stopped", "it made the same calls again and again"
    else:
        worker.state = "done"
    figures = (f"{worker.turns} turn{'s' if worker.turns != 1 else ''} · {worker.tokens:,} "
               f"tokens · {worker.seconds:.1f} s")
    shown = _figures(worker)
    state = state_name(worker.state)
    say(_("{state}: {error} · {figures}").format(state=state, error=worker.error, figures=shown)
        if worker.error else f"{state} · {shown}")
    if worker.state in ("failed", "cancelled"):
        raise WorkerError(
            f"{worker.label} {worker.state} after {figures}: {worker.error}")  # untranslated: model
    lines = [f"{worker.label} {worker.state}"
             + (f" ({worker.error})" if worker.error else "") + f" · {figures}"]
    if worker.changed:
        lines.append("files changed: " + ", ".join(worker.changed))  # untranslated: model-facing
    if worker.branch:
        lines.append(f"branch: {worker.branch} (worker_branch merge or discard; the user: "
                     f"/agents merge|discard {worker.id})")  # untranslated: model-facing
        if worker.diffstat:
            lines.append(worker.diffstat.rstrip())
    body = worker.result or "(no answer)"
    if len(text) > RESULT_CHARS:
        body += f"\n[… {len(text) - RESULT_CHARS:,} more characters: /agents show {worker.id}]"
    return "\n".join(lines) + "\n\n" + body
