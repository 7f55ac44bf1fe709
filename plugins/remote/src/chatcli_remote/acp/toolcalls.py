"""The tool calls of an editor session as ACP tool call cards.

:class:`ToolCalls` tells the editor of each call (``tool_call``: title, kind, locations, raw
input) and of its progress (``tool_call_update``): an edit's diff (from the question's preview,
or the tool's preview when the mode lets it run unasked), a running command's output lines, the
result. It is also the session's approver: a question is a ``session/request_permission``
whose answer becomes chatcli's :class:`~chatcli.Approval` (cancelled: no).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import start_tool_call, text_block, tool_content, update_tool_call
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate
from chatcli import translation

from chatcli_remote.acp.convert import (
    ToolKindName,
    diff_contents,
    result_content,
    tool_kind,
    tool_locations,
    tool_title,
)
from chatcli_remote.acp.outbox import WaitCancelled

if TYPE_CHECKING:
    from acp.helpers import ToolCallContentVariant
    from chatcli import Approval, Tool, ToolCallPart, Verdict

    from chatcli_remote.acp.live import LiveSession

__all__ = ["OUTPUT_LINES", "ToolCalls"]

_, ngettext = translation(__name__)

#: the most output lines a running command keeps in its tool call
OUTPUT_LINES = 200


class ToolCalls:
    """The tool call cards of one :class:`~.live.LiveSession` (see the module's docstring).

    Called from the engine's thread and from workers' threads (their questions).
    """

    def __init__(self, live: LiveSession) -> None:
        self.live = live
        self._lock = threading.Lock()
        self._started: set[str] = set()  # the calls the editor knows
        self._diffs: dict[str, list[ToolCallContentVariant]] = {}
        self._output: dict[str, list[str]] = {}
        self._running_exec: list[str] = []

    def _tool(self, name: str) -> Tool | None:
        try:
            return self.live.session.engine.tools.get(name)
        except Exception:
            return None

    def _start(self, call: ToolCallPart, status: str,
               content: list[ToolCallContentVariant] | None = None) -> None:
        """Tell the editor of ``call`` (once; later: a status update)."""
        with self._lock:
            known = call.id in self._started
            self._started.add(call.id)
        kind = self._kind(call)
        if known:
            self.live.send(update_tool_call(call.id, status=status,  # type: ignore[arg-type]
                                        content=content))
            return
        self.live.send(start_tool_call(
            call.id, tool_title(call), kind=kind, status=status,  # type: ignore[arg-type]
            content=content, locations=tool_locations(call, self.live.workspace),
            raw_input=_jsonable(call.arguments)))

    def _kind(self, call: ToolCallPart) -> ToolKindName:
        tool = self._tool(call.name)
        return tool_kind(call.name, str(tool.risk) if tool is not None else None)

    def started(self, call: ToolCallPart) -> None:
        """``call`` is about to run: shown running, with its diff (asked or previewed)."""
        if self._kind(call) == "execute":  # its output lines are shown in its tool call
            with self._lock:
                self._running_exec.append(call.id)
        content = self._diffs.get(call.id)
        if content is None:
            content = self._preview(call)
            self._diffs[call.id] = content
        self._start(call, "in_progress", content or None)

    def _preview(self, call: ToolCallPart) -> list[ToolCallContentVariant]:
        """The diff an edit that was not asked about will make (the tool's preview)."""
        tool = self._tool(call.name)
        if tool is None or tool.preview is None:
            return []
        try:
            args = tool.parse_arguments(call.arguments)
            context = self.live.session.engine.tool_context()
            return list(diff_contents(tool.preview(args, context), self.live.workspace,
                                      self._read))
        except Exception:
            return []

    def finished(self, call: ToolCallPart, content: str, is_error: bool) -> None:
        """``call`` ended with ``content``: its card shows the result (and its diff)."""
        if call.id not in self._started:
            self._start(call, "pending")
        with self._lock:
            if call.id in self._running_exec:
                self._running_exec.remove(call.id)
            self._output.pop(call.id, None)
        shown = [*self._diffs.pop(call.id, []), *result_content(content)]
        self.live.send(update_tool_call(call.id, status="failed" if is_error else "completed",
                                    content=shown, raw_output=content[:4000]))

    def output(self, line: str) -> None:
        """A running command's output line: shown in its tool call."""
        with self._lock:
            if not self._running_exec:
                return
            call_id = self._running_exec[-1]
            lines = self._output.setdefault(call_id, [])
            lines.append(line.rstrip("\n"))
            del lines[:-OUTPUT_LINES]
            text = "\n".join(lines)
        self.live.send(update_tool_call(call_id, content=[tool_content(text_block(text))]))

    def _read(self, path: Path) -> str | None:
        try:
            if self.live.files is not None:
                return self.live.files.read_text(path)
            return path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def approve(self, call: ToolCallPart, tool: Tool, verdict: Verdict) -> Approval:
        """Ask the editor whether ``call`` may run (any thread; blocks until it answers)."""
        from chatcli import Approval

        content: list[ToolCallContentVariant] = list(
            diff_contents(verdict.preview, self.live.workspace, self._read))
        self._diffs[call.id] = content
        shown = [*content]
        if verdict.reason:
            shown.append(tool_content(text_block(verdict.reason)))
        self._start(call, "pending", shown or None)
        always = (_("Always allow ({rule})").format(rule=verdict.rule) if verdict.rule
                  else _("Allow for this session"))
        options = [
            PermissionOption(option_id="once", name=_("Allow once"), kind="allow_once"),
            PermissionOption(option_id="always", name=always, kind="allow_always"),
            PermissionOption(option_id="no", name=_("Reject"), kind="reject_once"),
        ]
        request = ToolCallUpdate(
            tool_call_id=call.id, title=tool_title(call), status="pending",
            kind=tool_kind(call.name, str(tool.risk)), content=shown or None,
            locations=tool_locations(call, self.live.workspace),
            raw_input=_jsonable(call.arguments))
        session_id = self.live.id
        try:
            answer = self.live.outbox.ask(lambda: self.live.conn.request_permission(
                session_id=session_id, tool_call=request, options=options), self.live.cancel_event)
        except WaitCancelled:
            return Approval(False, reason=_("the turn was cancelled"))
        except Exception as err:
            return Approval(False, reason=_("the editor did not answer ({reason})").format(
                reason=err))
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome) or outcome.option_id == "no":
            approval = Approval(False)
        elif outcome.option_id == "always":
            approval = Approval(True, "always" if verdict.rule else "session")
        else:
            approval = Approval(True)
        if not self._own_call(call):
            # a worker's call (chatcli-subagents): its run is not in this turn's events, so
            # the question's card is closed here, with the answer
            self._diffs.pop(call.id, None)
            self.live.send(update_tool_call(call.id, status="completed" if approval.allow
                                        else "failed"))
        return approval

    def _own_call(self, call: ToolCallPart) -> bool:
        """Whether ``call`` is one of the session's own answer (not a worker's)."""
        from chatcli import Role

        try:
            answer = self.live.session.conversation.last(Role.ASSISTANT)
        except Exception:
            return True
        return answer is None or any(c.id == call.id for c in answer.tool_calls)


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))
