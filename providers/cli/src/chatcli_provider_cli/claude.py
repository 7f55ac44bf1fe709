"""Claude Code as a provider: ``claude -p --output-format stream-json --verbose``.

The events (one JSON object per line; see README.md for the sources):

- ``{"type":"system","subtype":"init","session_id","model","cwd","tools",…}`` first; other
  ``system`` subtypes (``status``, ``hook_started``, ``api_retry``, ``compact_boundary``…) are
  progress;
- ``{"type":"stream_event","event":{…}}`` with ``--include-partial-messages``: the Messages
  API's stream events (``message_start``, ``content_block_delta`` with ``text_delta``…);
- ``{"type":"assistant","message":{"id","model","content":[blocks],"usage"},"error"?}``: each
  complete message (text, thinking and ``tool_use`` blocks); ``error`` (``authentication_failed``,
  ``rate_limit``, ``billing_error``, ``server_error``, ``invalid_request``,
  ``max_output_tokens``, ``unknown``) marks a failed API call, whose text is the error;
- ``{"type":"user",…}``: the results of Claude Code's own tools; ``rate_limit_event``: limits;
- ``{"type":"result","subtype":"success"|"error_max_turns"|"error_during_execution"|
  "error_max_budget_usd"|…,"is_error","result","session_id","usage","total_cost_usd",
  "stop_reason","errors"?,"api_error_status"?}`` last. A failed API call comes as ``success``
  with ``is_error: true`` and the message in ``result``.

Messages of sub-agents (``parent_tool_use_id`` set) are not part of the answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from chatcli import translation

from chatcli_provider_cli.base import CliProvider, EventMapper, split_words
from chatcli_provider_cli.jsonl import text_of

if TYPE_CHECKING:
    from chatcli import ChatRequest, StreamEvent, Usage

    from chatcli_provider_cli.conversation import Plan

__all__ = ["ClaudeCodeProvider", "ClaudeMapper"]

_, ngettext = translation(__name__)

#: What an assistant message's ``error`` means in chatcli's taxonomy.
_ERROR_KINDS = {"authentication_failed": "auth", "rate_limit": "rate", "billing_error": "rate",
                "server_error": "server", "overloaded": "server"}
#: The model Claude Code names on messages it wrote itself (errors), not a model's answer.
_SYNTHETIC = "<synthetic>"


class ClaudeMapper(EventMapper):
    """Claude Code's stream-json events → chatcli stream events."""

    def __init__(self, provider: CliProvider, model: str | None) -> None:
        super().__init__(provider, model)
        self._streamed: set[str] = set()   # message ids whose text came as partial deltas
        self._message: str | None = None   # the message being streamed
        self._blocks = 0                   # text blocks shown so far (for separators)
        self._usage: dict[str, Any] = {}
        self._final: list[StreamEvent] = []
        self._max_tokens = False           # an answer cut at the output limit

    # ------------------------------------------------------------------ helpers

    def _text_block(self, text: str) -> list[StreamEvent]:
        """A new text block: separated from the previous one by a blank line."""
        if not text:
            return []
        events = self.delta("\n\n") if self._blocks and not "".join(self.text).endswith(
            "\n\n") else []
        self._blocks += 1
        return events + self.delta(text)

    def _set_model(self, model: Any) -> None:
        if isinstance(model, str) and model and model != _SYNTHETIC:
            self.model = model

    def usage(self) -> Usage:
        from chatcli import Usage

        def count(key: str) -> int:
            value = self._usage.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) else 0

        read, write = count("cache_read_input_tokens"), count("cache_creation_input_tokens")
        return Usage(input_tokens=count("input_tokens") + read + write,
                     output_tokens=count("output_tokens"),
                     cache_read_tokens=read, cache_write_tokens=write)

    def _fail(self, text: str, kind: str | None = None, status: Any = None) -> Exception:
        provider = self.provider
        if isinstance(status, int) and not isinstance(status, bool):
            text = _("{text} (API status {status})").format(text=text, status=status)
            kind = kind or {401: "auth", 403: "auth", 429: "rate"}.get(
                status, "server" if status >= 500 else None)
        error = provider.error(text)
        if kind is not None and kind != "other":
            from chatcli import AuthError, RateLimitError, ServerError

            cls = {"auth": AuthError, "rate": RateLimitError, "server": ServerError}[kind]
            if type(error) is not cls:
                error = cls(error.message, provider.hints[kind], provider=provider.name)
                error.retryable = False
        return error

    # ------------------------------------------------------------------ events

    def feed(self, event: dict[str, Any]) -> list[StreamEvent]:
        kind = event.get("type")
        if kind == "system":
            if event.get("subtype") == "init":
                self.session_id = text_of(event.get("session_id")) or self.session_id
                self._set_model(event.get("model"))
            return []
        self._track_tools(event)
        if event.get("parent_tool_use_id"):
            return []  # a sub-agent's work, not the answer
        if kind == "stream_event":
            return self._partial(event.get("event"))
        if kind == "assistant":
            return self._assistant(event)
        if kind == "result":
            return self._result(event)
        return []  # user (tool results), rate_limit_event, and what newer versions add

    def _track_tools(self, event: dict[str, Any]) -> None:
        """Which of Claude Code's tool calls are still running (a ``tool_use`` block without
        its ``tool_result`` yet), sub-agents' included."""
        message = event.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        for block in content:
            if not isinstance(block, dict):
                continue
            if event.get("type") == "assistant" and block.get("type") == "tool_use":
                self.running.add(text_of(block.get("id")))
            elif event.get("type") == "user" and block.get("type") == "tool_result":
                self.running.discard(text_of(block.get("tool_use_id")))

    def _partial(self, event: Any) -> list[StreamEvent]:
        if not isinstance(event, dict):
            return []
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message")
            if isinstance(message, dict):
                self._message = text_of(message.get("id")) or None
                self._set_model(message.get("model"))
            return []
        if kind == "content_block_start":
            block = event.get("content_block")
            if isinstance(block, dict) and block.get("type") == "text":
                self._mark()
                return self._text_block(text_of(block.get("text")))
            return []
        if kind == "content_block_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "text_delta":
                self._mark()
                if not self._blocks:
                    self._blocks = 1
                return self.delta(text_of(delta.get("text")))
        return []

    def _mark(self) -> None:
        if self._message:
            self._streamed.add(self._message)
        else:
            self._streamed.add("")

    def _assistant(self, event: dict[str, Any]) -> list[StreamEvent]:
        message = event.get("message")
        if not isinstance(message, dict):
            return []
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        texts = [text_of(b.get("text")) for b in blocks
                 if isinstance(b, dict) and b.get("type") == "text"]
        error = event.get("error")
        if error == "max_output_tokens":
            self._max_tokens = True
        elif isinstance(error, str) and error:
            raise self._fail(" ".join(t for t in texts if t) or error,
                             _ERROR_KINDS.get(error))
        self._set_model(message.get("model"))
        message_id = text_of(message.get("id"))
        if message_id in self._streamed or (not message_id and "" in self._streamed):
            return []  # its text already arrived as partial deltas
        events: list[StreamEvent] = []
        for text in texts:
            events += self._text_block(text)
        return events

    def _result(self, event: dict[str, Any]) -> list[StreamEvent]:
        from chatcli import ProviderError, StopEvent, StopReason, UsageEvent

        self.session_id = text_of(event.get("session_id")) or self.session_id
        usage = event.get("usage")
        if isinstance(usage, dict):
            self._usage = usage
        subtype = text_of(event.get("subtype")) or "success"
        result = text_of(event.get("result"))
        events: list[StreamEvent] = []
        reason = StopReason.END_TURN
        if subtype in ("error_max_turns", "error_max_budget_usd"):
            if not self.text:
                error = ProviderError(
                    (_("{who} stopped at its turn limit (--max-turns) before answering")
                     if subtype == "error_max_turns"
                     else _("{who} stopped at its budget (--max-budget-usd) before answering")
                     ).format(who=self.provider.who),
                    _("raise the limit in `[providers.{name}] args`, or ask for less in one "
                      "turn").format(name=self.provider.name), provider=self.provider.name)
                error.retryable = False
                raise error
            reason = StopReason.TURN_LIMIT
        elif self._max_tokens and self.text:
            reason = StopReason.MAX_TOKENS
        elif event.get("is_error") is True or subtype.startswith("error"):
            errors = event.get("errors")
            parts = [text_of(e) or str(e) for e in errors if e] if isinstance(errors, list) else []
            detail = result or "; ".join(parts)
            raise self._fail(detail or subtype, status=event.get("api_error_status"))
        elif not self.text:
            events += self._text_block(result)
        if not "".join(self.text).strip():
            error = ProviderError(_("{who} gave an empty answer").format(who=self.provider.who),
                                  _("ask again, or rephrase the request"),
                                  provider=self.provider.name)
            error.retryable = False
            raise error
        if event.get("stop_reason") == "max_tokens":
            reason = StopReason.MAX_TOKENS
        self._final = [UsageEvent(usage=self.usage()), StopEvent(reason=reason, model=self.model)]
        self.done = True
        return events

    def finish(self, code: int | None, stderr: str) -> list[StreamEvent]:
        if not self.done:
            raise self.failed_run(code, stderr)
        return self._final


class ClaudeCodeProvider(CliProvider):
    """Claude Code (``claude -p``): the prompt on stdin, its stream-json events read back."""

    program = "claude"
    who = "Claude Code"
    format_name = "--output-format stream-json --verbose"
    install_hint = _("install Claude Code (npm install -g @anthropic-ai/claude-code) and log "
                     "in once with `claude`")
    hints: ClassVar[dict[str, str]] = {
        "auth": _("log in to Claude Code: run `claude` and /login (or set ANTHROPIC_API_KEY)"),
        "rate": _("wait until the limit resets (`claude` then /usage shows when), or use "
                  "another provider: --provider NAME or /switch"),
        "server": _("the service failed on Anthropic's side: try again in a moment"),
        "other": _("run the same prompt with `claude -p` to see more"),
    }

    def arguments(self, plan: Plan, request: ChatRequest) -> list[str]:
        args = ["-p", "--output-format", "stream-json", "--verbose"]
        if self.options.get("partial_messages", True):
            args.append("--include-partial-messages")
        model = self.model_flag()
        if model:
            args += ["--model", model]
        if plan.resume:
            args += ["--resume", plan.resume]
        instructions = self.instructions(request)
        if instructions:
            args += ["--append-system-prompt", instructions]
        return args + list(split_words(self.options.get("args")))

    def mapper(self) -> EventMapper:
        return ClaudeMapper(self, self.model_flag())
