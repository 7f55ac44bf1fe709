"""Helpers for the compaction tests: views built message by message, jobs over them with a
recording summariser, and a chat app (a real Session) for the slash commands."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any

from chatcli import (
    ChatcliError,
    Compaction,
    Message,
    PluginHost,
    Role,
    Session,
    Settings,
    TokenCounter,
    ToolCallPart,
    ToolResultPart,
    apply_compactions,
)
from chatcli_plugin_records import CompactionJob, check_compaction
from rich.console import Console

SUMMARY = """## Files read
- src/app.py
## Files modified
- src/app.py: the retry loop
## Commands run
- pytest -q
## Key decisions
- keep the public API
## Errors and fixes
- none
## Current task state
- the tests pass"""


def tool_turn(view: list[Message], question: str, tool: str, output: str,
              answer: str = "done", arguments: dict[str, Any] | None = None) -> ToolCallPart:
    """Append a user question, a call of ``tool``, its result and the answer."""
    call = ToolCallPart(name=tool, arguments=arguments or {"path": "src/app.py"})
    view.append(Message.user(question))
    view.append(Message.assistant("", [call]))
    view.append(Message(role=Role.TOOL, parts=[
        ToolResultPart(call_id=call.id, name=tool, content=output)]))
    view.append(Message.assistant(answer))
    return call


def chat_turn(view: list[Message], question: str, answer: str) -> None:
    view.append(Message.user(question))
    view.append(Message.assistant(answer))


class Summariser:
    """A ``job.summarize`` that records what it was given and answers from a script (a text,
    an exception to raise, or a callable of the messages)."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers) or [SUMMARY]
        self.calls: list[tuple[list[Message], str]] = []

    def __call__(self, messages: Sequence[Message], instructions: str) -> str:
        self.calls.append((list(messages), instructions))
        answer = self.answers[min(len(self.calls) - 1, len(self.answers) - 1)]
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return answer(messages)
        return answer


def job(view: list[Message], *, budget: int = 1_000, keep_recent: int = 4,
        summarize: Callable[..., str] | None = None, reason: str = "threshold",
        instruction: str | None = None, **settings: Any) -> CompactionJob:
    counter = TokenCounter()
    return CompactionJob(view=list(view), budget=budget, keep_recent=keep_recent,
                         count=counter.estimate, summarize=summarize or Summariser(),
                         settings=Settings(**settings), reason=reason,
                         instruction=instruction)


def apply_checked(view: list[Message], compactions: list[Compaction]) -> list[Message]:
    """``view`` with ``compactions`` applied in order, each passing the kernel's check."""
    for compaction in compactions:
        why = check_compaction(view, compaction)
        assert why is None, why
        view = apply_compactions(view, [compaction])
    return view


def pairs_hold(view: list[Message]) -> bool:
    """Every call is answered by the next message and every result answers the one before."""
    for index, message in enumerate(view):
        if message.tool_results:
            calls = {c.id for c in view[index - 1].tool_calls} if index else set()
            if not {r.call_id for r in message.tool_results} <= calls:
                return False
        following = view[index + 1] if index + 1 < len(view) else None
        if message.tool_calls and following is not None and {
                c.id for c in message.tool_calls} != {r.call_id for r in following.tool_results}:
            return False
    return True


def failing(message: str = "the summary took longer than 1 s") -> ChatcliError:
    return ChatcliError(message, "raise compact_timeout")


class App:
    """A ChatApp as slash commands see it: a real Session, output in a string."""

    def __init__(self, host: PluginHost, settings: Settings | None = None,
                 session: Session | None = None) -> None:
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=300, color_system=None, no_color=True)
        self.host = host
        self.session = session or Session(host, settings or Settings()).open()

    @property
    def settings(self) -> Settings:
        return self.session.settings

    @property
    def conversation(self) -> Any:
        return self.session.conversation

    def run(self, line: str) -> str:
        """Run ``/name args`` through the registered slash commands; what it printed."""
        name, _, args = line.lstrip("/").partition(" ")
        self.host.slash_commands()[name].run(self, args)
        text = self.buffer.getvalue()
        self.buffer.seek(0)
        self.buffer.truncate()
        return text

    def ask(self, text: str) -> Any:
        finished = None
        for event in self.session.run(Message.user(text)):
            finished = event
        return finished


def system_text(request: Any) -> str:
    """The system prompt of a recorded OpenAI or Anthropic request."""
    body = request.json or {}
    system = body.get("system")
    if system is None:
        first = (body.get("messages") or [{}])[0]
        system = first.get("content", "") if first.get("role") in ("system", "developer") else ""
    if isinstance(system, list):
        system = "".join(block.get("text", "") for block in system if isinstance(block, dict))
    return system or ""


def is_summary_request(request: Any) -> bool:
    """Whether a recorded request is one of compaction's summary calls."""
    return system_text(request).startswith(("You summarise part of a conversation",
                                            "You merge partial summaries"))


def answer_summaries(server: Any, text: str = SUMMARY) -> None:
    """Make ``server`` answer every summary call with ``text`` (other requests take the script
    as usual), wherever in the conversation compaction happens to fire."""
    from chatcli_testing import Reply

    take = server.next_item

    def next_item() -> Any:
        if server.requests and is_summary_request(server.requests[-1]):
            return Reply(text=text, usage={"input_tokens": 0, "output_tokens": 50})
        return take()

    server.next_item = next_item


def chat_requests(server: Any) -> list[Any]:
    """The recorded chat requests that are not summary calls."""
    return [r for r in server.requests if isinstance(r.json, dict) and "messages" in r.json
            and not is_summary_request(r)]


class SummarisingProvider:
    """A ScriptedProvider wrapper answering every summary call with ``text`` (the script serves
    the other calls), wherever compaction happens to fire."""

    def __init__(self, provider: Any, text: str = SUMMARY) -> None:
        self.provider = provider
        self.text = text
        self.summary_calls: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.provider, name)

    def stream(self, request: Any) -> Any:
        from chatcli_testing import Reply, reply_events

        if request.system and request.system[0].name == "compaction":
            self.summary_calls.append(request)
            return iter(reply_events(Reply(text=self.text,
                                           usage={"input_tokens": 0, "output_tokens": 5})))
        return self.provider.stream(request)
