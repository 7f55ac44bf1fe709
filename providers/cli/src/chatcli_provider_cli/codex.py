"""Codex as a provider: ``codex exec --json [--model M] [resume THREAD] -`` (prompt on stdin).

The events (JSON Lines on stdout; see README.md for the sources):

- ``{"type":"thread.started","thread_id"}`` first (on ``resume`` too): the id to resume;
- ``{"type":"turn.started"}``;
- ``{"type":"item.started"|"item.updated"|"item.completed","item":{"id","type",…}}`` with item
  types ``agent_message`` (``text``: the answer), ``reasoning`` (``text``: a summary),
  ``command_execution`` (``command``, ``aggregated_output``, ``exit_code``, ``status``),
  ``file_change``, ``mcp_tool_call``, ``web_search``, ``todo_list``, ``plan``, and ``error``
  (a non-fatal error);
- ``{"type":"turn.completed","usage":{"input_tokens","cached_input_tokens","output_tokens"}}``
  (cached tokens are part of ``input_tokens``), or ``{"type":"turn.failed","error":
  {"message"}}``;
- ``{"type":"error","message"}``: a stream error; Codex also reports its reconnect attempts
  this way (``Reconnecting... 2/5``), so an error counts only if no ``turn.completed`` follows.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from chatcli import translation

from chatcli_provider_cli.base import CliProvider, EventMapper, split_words
from chatcli_provider_cli.jsonl import text_of

if TYPE_CHECKING:
    from chatcli import ChatRequest, StreamEvent, Usage

    from chatcli_provider_cli.conversation import Plan

__all__ = ["CodexMapper", "CodexProvider"]

_, ngettext = translation(__name__)

#: Items that are Codex running one of its tools (busy until completed).
_TOOL_ITEMS = ("command_execution", "mcp_tool_call", "web_search", "file_change")
_RECONNECTING = re.compile(r"^\s*(re-?connecting|retrying)\b", re.IGNORECASE)


class CodexMapper(EventMapper):
    """Codex's exec JSONL events → chatcli stream events."""

    def __init__(self, provider: CliProvider, model: str | None) -> None:
        super().__init__(provider, model)
        self._shown: dict[str, str] = {}  # agent_message id → the text shown of it
        self._usage: dict[str, Any] = {}
        self._error: str | None = None
        self._final: list[StreamEvent] = []

    def usage(self) -> Usage:
        from chatcli import Usage

        def count(key: str) -> int:
            value = self._usage.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        return Usage(input_tokens=count("input_tokens"), output_tokens=count("output_tokens"),
                     cache_read_tokens=count("cached_input_tokens"))

    def feed(self, event: dict[str, Any]) -> list[StreamEvent]:
        kind = event.get("type")
        if kind == "thread.started":
            self.session_id = text_of(event.get("thread_id")) or self.session_id
        elif kind in ("item.started", "item.updated", "item.completed"):
            item = event.get("item")
            if not isinstance(item, dict):
                return []
            if item.get("type") == "agent_message":
                return self._message(item)
            if item.get("type") in _TOOL_ITEMS:
                key = text_of(item.get("id"))
                if kind == "item.completed" or item.get("status") not in (None, "in_progress"):
                    self.running.discard(key)
                else:
                    self.running.add(key)
        elif kind == "turn.completed":
            return self._completed(event)
        elif kind == "turn.failed":
            error = event.get("error")
            message = text_of(error.get("message")) if isinstance(error, dict) else ""
            raise self._fail(message or _("the turn failed"))
        elif kind == "error":
            message = text_of(event.get("message"))
            if message and not _RECONNECTING.match(message):
                self._error = message
        return []

    def _fail(self, text: str) -> Exception:
        return self.provider.error(text)

    def _message(self, item: dict[str, Any]) -> list[StreamEvent]:
        """The part of an agent message not shown yet (messages may grow while updated)."""
        key = text_of(item.get("id")) or f"#{len(self._shown)}"
        text = text_of(item.get("text"))
        shown = self._shown.get(key)
        if shown is None:
            if not text:
                return []
            self._shown[key] = text
            joined = "".join(self.text)
            lead = self.delta("\n\n") if joined and not joined.endswith("\n\n") else []
            return lead + self.delta(text)
        if text.startswith(shown) and len(text) > len(shown):
            self._shown[key] = text
            return self.delta(text[len(shown):])
        return []

    def _completed(self, event: dict[str, Any]) -> list[StreamEvent]:
        from chatcli import ProviderError, StopEvent, StopReason, UsageEvent

        usage = event.get("usage")
        if isinstance(usage, dict):
            self._usage = usage
        if not "".join(self.text).strip():
            error = ProviderError(_("{who} gave an empty answer").format(who=self.provider.who),
                                  _("ask again, or rephrase the request"),
                                  provider=self.provider.name)
            error.retryable = False
            raise error
        self._final = [UsageEvent(usage=self.usage()),
                       StopEvent(reason=StopReason.END_TURN,
                                 model=self.model or self.provider.config.model)]
        self.done = True
        return []

    def finish(self, code: int | None, stderr: str) -> list[StreamEvent]:
        if self.done:
            return self._final
        if self._error:
            raise self._fail(self._error)
        raise self.failed_run(code, stderr)


class CodexProvider(CliProvider):
    """Codex (``codex exec --json``): the prompt on stdin, its JSONL events read back."""

    program = "codex"
    who = "Codex"
    format_name = "codex exec --json"
    install_hint = _("install Codex (npm install -g @openai/codex) and log in with "
                     "`codex login`")
    hints: ClassVar[dict[str, str]] = {
        "auth": _("log in to Codex: run `codex login` (or set CODEX_API_KEY)"),
        "rate": _("wait until the usage limit resets, or use another provider: --provider "
                  "NAME or /switch"),
        "server": _("the service failed on OpenAI's side: try again in a moment"),
        "other": _("run the same prompt with `codex exec` to see more"),
    }

    def arguments(self, plan: Plan, request: ChatRequest) -> list[str]:
        args = ["exec", "--json"]
        if self.options.get("skip_git_repo_check", True):
            args.append("--skip-git-repo-check")
        model = self.model_flag()
        if model:
            args += ["--model", model]
        args += list(split_words(self.options.get("args")))
        if plan.resume:
            args += ["resume", plan.resume]
        return [*args, "-"]

    def special_hints(self) -> list[tuple[str, str]]:
        return [(r"trusted directory|skip-git-repo-check",
                 _("run chatcli inside a Git repository, or `chatcli config set "
                   "providers.{name}.skip_git_repo_check true`").format(name=self.name)),
                *super().special_hints()]

    def prompt_instructions(self, request: ChatRequest) -> str:
        # codex exec has no flag for extra instructions: they lead the prompt
        return self.instructions(request)

    def mapper(self) -> EventMapper:
        return CodexMapper(self, self.model_flag())
