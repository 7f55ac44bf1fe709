"""What the chatcli-subagents tests share: a wire server that answers by request content (the
parent and each worker follow their own script, whatever order their requests arrive in) and
records when each request started and ended; plain file tools; a session with the plugin.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chatcli_subagents.plugin as subagents_plugin
from chatcli import Risk, Tool, hookimpl
from chatcli_plugin_records import AgentType
from chatcli_testing import AnthropicServer, Fault, OpenAIServer, Reply
from pydantic import BaseModel
from session_harness import HarnessChat

__all__ = ["AnthropicContentServer", "ContentServer", "FileTools", "Span", "TypesPlugin", "chat",
           "content_text", "tool_names"]


def content_text(content: Any) -> str:
    """An OpenAI message's content as text (a string, or a list of text parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


@dataclass
class Span:
    """One chat request: which script answered it, when it arrived and when it was done."""

    key: str
    start: float
    end: float = 0.0
    body: dict[str, Any] = field(default_factory=dict)


class ContentScript:
    """Answers each chat request from the script whose key appears in the request's latest user
    message that names one (the parent's prompt, or a worker's task); the step is the number of
    assistant messages after it. Unmatched requests get ``"unscripted"``."""

    def __init__(self, scripts: dict[str, list[Reply | Fault]]) -> None:
        super().__init__()  # type: ignore[call-arg]
        self.scripts = scripts
        self.spans: list[Span] = []
        self._spans = threading.Lock()

    def choose(self, body: dict[str, Any]) -> tuple[str, Reply | Fault]:
        messages = body.get("messages") or []
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].get("role") != "user":
                continue
            text = content_text(messages[index].get("content"))
            for key, replies in self.scripts.items():
                if key in text:
                    step = sum(1 for m in messages[index:] if m.get("role") == "assistant")
                    return key, (replies[step] if step < len(replies)
                                 else Reply(text="script ended"))
        return "?", Reply(text="unscripted")

    def answer_chat(self, exchange: Any, request: Any, stream: bool) -> None:
        body = request.json if isinstance(request.json, dict) else {}
        key, item = self.choose(body)
        span = Span(key, time.monotonic(), body=body)
        with self._spans:
            self.spans.append(span)
        try:
            fault = item if isinstance(item, Fault) else None
            if fault is not None and fault.status is not None:
                self.send_error_status(exchange, fault)
                return
            reply = fault.partial_reply() if fault is not None else item
            assert isinstance(reply, Reply)
            model = reply.model or body.get("model") or self.default_model
            if stream:
                self.run_stream(exchange, self.stream_events(reply, model, body), reply, fault)
            else:
                self.send_full(exchange, reply, model, body, fault)
        finally:
            span.end = time.monotonic()

    def of(self, key: str) -> list[Span]:
        """The requests ``key``'s script answered, in arrival order."""
        with self._spans:
            return [span for span in self.spans if span.key == key]

    def most_at_once(self, keys: set[str]) -> int:
        """The most requests of ``keys`` that were being answered at the same moment."""
        with self._spans:
            spans = [s for s in self.spans if s.key in keys]
        edges = sorted([(s.start, 1) for s in spans] + [(s.end, -1) for s in spans],
                       key=lambda edge: (edge[0], edge[1]))
        most = now = 0
        for _, change in edges:
            now += change
            most = max(most, now)
        return most


class ContentServer(ContentScript, OpenAIServer):
    """OpenAI Chat Completions, answering by request content."""


class AnthropicContentServer(ContentScript, AnthropicServer):
    """Anthropic Messages, answering by request content."""


def tool_names(body: dict[str, Any]) -> set[str]:
    """The names of the tools a recorded OpenAI or Anthropic request offers."""
    return {tool["function"]["name"] if "function" in tool else tool["name"]
            for tool in body.get("tools") or []}


class _PathArgs(BaseModel):
    path: str


class _WriteArgs(BaseModel):
    path: str
    content: str


class FileTools:
    """``read_file`` (READ) and ``write_file`` (WRITE) in the call's workspace (a worktree
    worker's is its worktree), for real."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @hookimpl
    def register_tools(self, register: Callable[[Tool], None]) -> None:
        register(Tool(name="read_file", description="read a file", args_model=_PathArgs,
                      run=lambda a, c: (c.workspace / a.path).read_text(), risk=Risk.READ))
        register(Tool(name="write_file", description="write a file", args_model=_WriteArgs,
                      run=self._write, risk=Risk.WRITE))

    def _write(self, args: _WriteArgs, context: Any) -> str:
        (context.workspace / args.path).write_text(args.content)
        return f"wrote {args.path}"


class TypesPlugin:
    """Registers agent types (as chatcli-personas does)."""

    def __init__(self, *types: AgentType) -> None:
        self.types = types

    @hookimpl(optionalhook=True)
    def register_agent_types(self, register: Callable[[AgentType], None]) -> None:
        for agent in self.types:
            register(agent)


def chat(server: Any, workspace: Path, *extra: Any, agents: dict[str, Any] | None = None,
         **kwargs: Any) -> HarnessChat:
    """A session on ``server`` with chatcli-subagents, the file tools and ``extra`` plugins."""
    settings: dict[str, Any] = {"agents": agents} if agents else {}
    return HarnessChat(server, workspace, plugins=[("subagents", subagents_plugin)],
                       extra_plugins=[FileTools(workspace), *extra], **settings, **kwargs)
