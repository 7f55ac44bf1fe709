"""Entry module of the modes plugin: hookimpls only (the run's logic loads when a mode runs)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatcli import hookimpl, translation

from chatcli_agent.modes.state import RUN

if TYPE_CHECKING:
    from chatcli import Conversation, PromptSection, SlashCommand

    from chatcli_agent.modes.run import Run

_, ngettext = translation(__name__)

def _agent(app: Any, argument: str) -> None:
    from chatcli_agent.modes.run import run_mode

    run_mode(app, "agent", argument)


def _coder(app: Any, argument: str) -> None:
    from chatcli_agent.modes.run import run_mode

    run_mode(app, "coder", argument)


def _run(conversation: Conversation | None) -> Run | None:
    """The run in progress on ``conversation``, or None (the run module is not imported: a
    run is in the conversation's stash)."""
    return conversation.stash.get(RUN, None) if conversation is not None else None


@hookimpl
def register_slash_commands(register: Callable[[SlashCommand], None]) -> None:
    """/agent (alias /run) and /coder."""
    from chatcli import SlashCommand

    register(SlashCommand(
        name="agent", aliases=["run"], run=_agent,
        help=_("work on a task on its own, calling tools until it is done: /agent "
               "[--max-steps N] TASK")))
    register(SlashCommand(
        name="coder", run=_coder,
        help=_("software work on a task (read, edit, run the tests, report): /coder "
               "[--max-steps N] TASK")))


@hookimpl
def prompt_sections(conversation: Conversation | None) -> list[PromptSection] | None:
    """While a run is active on the conversation: the mode's prompt (stable) and the anchor
    (volatile)."""
    run = _run(conversation)
    return run.sections() if run is not None else None


@hookimpl(tryfirst=True)
def message_appended(conversation: Conversation, message: Any) -> None:
    """The task of a run is pinned as it is appended — before a session store writes it
    (``tryfirst``), so the pin is stored too — and its checkpoint is labelled with the command
    as typed (``/coder fix it``), which ``/rewind`` shows and puts back in the input."""
    run = _run(conversation)
    if run is not None:
        run.appended(message)
        checkpoint = conversation.checkpoints[-1] if conversation.checkpoints else None
        if (run.typed and run.task_message == message.id and checkpoint is not None
                and checkpoint.head == message.parent_id):
            checkpoint.label = run.typed.splitlines()[0][:80]


@hookimpl
def before_request(request: Any, conversation: Conversation) -> None:
    """A step of a run: counted, and its request asks for the volatile sections (the anchor
    and its step, the date) after the history (``ChatRequest.volatile_last``), so that each
    step reads the whole previous one from the provider's cache."""
    run = _run(conversation)
    if run is not None:
        run.model_call()
        request.purpose = run.mode  # "/cost" counts a run's calls as "agent" or "coder"
        request.volatile_last = True


@hookimpl
def after_response(message: Any, conversation: Conversation) -> None:
    run = _run(conversation)
    if run is not None:
        run.answer(message)


@hookimpl
def tool_call_decided(call: Any, tool: Any, allowed: bool,
                      conversation: Conversation | None) -> None:
    run = _run(conversation) if conversation is not None else None
    if run is not None:
        run.decided(call, tool, allowed)


@hookimpl
def after_tool_call(call: Any, result: Any, conversation: Conversation) -> None:
    run = _run(conversation)
    if run is not None:
        run.tool_finished(call, result)
