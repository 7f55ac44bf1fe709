"""Entry module of chatcli-otel (entry point ``otel``): OpenTelemetry traces and metrics of
chatcli's turns, model calls and tool calls, exported over OTLP/HTTP.

Off, it costs nothing: this module imports only the standard library and ``chatcli`` (itself
lazy); each hook looks at one attribute and returns. On (an endpoint in the environment or
``[otel]``), the first session imports OpenTelemetry (:mod:`chatcli_otel.setup`), every
session's hooks make spans (:mod:`chatcli_otel.spans`), the end of the last session starts
sending what is left, and the process waits for it at exit, ``[otel] timeout`` seconds at
most. A collector that is down never fails or holds chatcli: it says so in one line on stderr
at the end.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from chatcli import hookimpl, translation

if TYPE_CHECKING:
    from pathlib import Path

    from chatcli import (
        Approval,
        ChatcliError,
        ChatRequest,
        Conversation,
        Message,
        PluginHost,
        Session,
        SettingRule,
        Settings,
        ToolCallPart,
        ToolResultPart,
        ToolSpec,
        Verdict,
    )

    from chatcli_otel.config import OtelConfig
    from chatcli_otel.setup import Telemetry
    from chatcli_otel.spans import Tracker

__all__ = ["OtelPlugin", "plugin"]

_, ngettext = translation(__name__)

#: :data:`chatcli_otel.config.ENDPOINT_VARIABLES`: with an empty ``[otel]`` table and none of
#: them set, telemetry is off, which a session knows without reading the configuration
_ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def _only_off(value: object, project_root: Path) -> object:
    """What a project may say of ``[otel] enabled``: false (telemetry off), never true."""
    from chatcli import parse_bool

    return False if parse_bool(value) is False else None


class OtelPlugin:
    """The plugin's hooks; the tracker exists while telemetry is on and a session is open."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None
        #: the spans of the open sessions, or None (telemetry off, or no session yet)
        self.tracker: Tracker | None = None
        #: OpenTelemetry could not start in this process: not tried again
        self.failed = False
        #: the telemetry of ended sessions, still sending what is left
        self._stopping: list[Telemetry] = []
        self._waits_at_exit = False
        self._lock = threading.Lock()

    def _warn(self, line: str) -> None:
        if self.host is not None:
            self.host.warn(line)

    @hookimpl
    def configure(self, host: PluginHost, settings: Settings, workspace: Path) -> None:
        self.host = host

    @hookimpl
    def session_start(self, session: Session, conversation: Conversation,
                      settings: Settings) -> None:
        import os

        table = settings.plugin_table("otel")
        if not table and not any(os.environ.get(name, "").strip()
                                 for name in _ENDPOINT_VARIABLES):
            return  # (read_config would say: off)
        from chatcli_otel.config import read_config

        config = read_config(table)
        if not config.enabled:
            return
        with self._lock:  # a session ending on another thread never shuts this one's down
            if self.failed:
                return
            if self.tracker is None:
                try:
                    self.tracker = _start(config, self.host)
                except Exception as err:  # an SDK that cannot start: chatcli goes on without
                    self.failed = True
                    self._warn(_("otel: telemetry is off for this run: could not start "
                                 "OpenTelemetry ({error})").format(error=type(err).__name__))
                    return
            self.tracker.begin(conversation, session)

    @hookimpl
    def session_end(self, session: Session, conversation: Conversation) -> None:
        if self.tracker is None:
            return
        with self._lock:
            tracker: Tracker | None = self.tracker  # another thread may have stopped it
            if tracker is None:
                return
            tracker.end(conversation)
            if tracker.open_conversations():
                return
            self.tracker = None
            self._stopping.append(tracker.telemetry)
            if not self._waits_at_exit:
                import atexit

                atexit.register(self.finish)
                self._waits_at_exit = True
        tracker.telemetry.stop()

    def finish(self) -> None:
        """Wait for the telemetry of the sessions that ended to leave — each no longer than
        ``[otel] timeout`` seconds after its session ended — and say in one line when some was
        lost. Called when the process exits (``atexit``), so neither a session ending in the
        middle of a chat (``/session new``, ``/fork``) nor one of ``chatcli serve``'s waits for
        the collector; tests call it after closing a session."""
        with self._lock:
            stopping, self._stopping = self._stopping, []
        problems = {telemetry.wait() for telemetry in stopping} - {None}
        for problem in sorted(p for p in problems if p is not None):
            self._warn(problem)

    @hookimpl
    def user_prompt_submitted(self, conversation: Conversation, message: Message) -> None:
        if self.tracker is not None:
            self.tracker.turn_started(conversation, message)

    @hookimpl(trylast=True)  # after the plugins that change the request or refuse the call
    def before_request(self, request: ChatRequest, conversation: Conversation) -> None:
        if self.tracker is not None:
            self.tracker.chat_started(conversation, request)

    @hookimpl(trylast=True)  # after the cost plugin has counted the call
    def after_response(self, message: Message | None, error: ChatcliError | None,
                       conversation: Conversation, purpose: str) -> None:
        if self.tracker is not None:
            self.tracker.chat_ended(conversation, message, error, purpose)

    @hookimpl
    def tool_call_decided(self, call: ToolCallPart, tool: ToolSpec, allowed: bool,
                          approval: Approval | None, verdict: Verdict,
                          conversation: Conversation | None) -> None:
        if self.tracker is not None and conversation is not None:
            self.tracker.tool_decided(conversation, call, tool, allowed, approval, verdict)

    @hookimpl
    def after_tool_call(self, call: ToolCallPart, result: ToolResultPart,
                        conversation: Conversation) -> None:
        if self.tracker is not None:
            self.tracker.tool_finished(conversation, call, result)

    @hookimpl
    def register_setting_rules(self, register: Callable[[SettingRule], None]) -> None:
        """A project never sets ``[otel]`` — where telemetry goes, its credentials, whether
        message content goes along: the user's config and the environment only — except to
        turn telemetry off (``enabled = false``, taken even from an untrusted project)."""
        from chatcli import SettingRule

        register(SettingRule("otel", "never"))
        register(SettingRule("otel.enabled", "always", keep=_only_off))


def _start(config: OtelConfig, host: PluginHost | None) -> Tracker:
    """Import OpenTelemetry and start exporting; the header values become secrets first."""
    import chatcli

    from chatcli_otel.config import header_values
    from chatcli_otel.cost import CostReader
    from chatcli_otel.setup import Telemetry
    from chatcli_otel.spans import Tracker

    for value in header_values(config):
        chatcli.register_secret(value)
    return Tracker(Telemetry(config, chatcli.__version__), CostReader(host))


#: The instance behind the entry point.
plugin = OtelPlugin()

configure = plugin.configure
session_start = plugin.session_start
session_end = plugin.session_end
user_prompt_submitted = plugin.user_prompt_submitted
before_request = plugin.before_request
after_response = plugin.after_response
tool_call_decided = plugin.tool_call_decided
after_tool_call = plugin.after_tool_call
register_setting_rules = plugin.register_setting_rules
