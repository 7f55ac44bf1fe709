"""The ACP agent: the protocol's methods on top of :class:`~.live.LiveSession`.

``initialize`` says what chatcli offers (sessions can be loaded; prompts carry text and
embedded files); ``session/new`` and ``session/load`` open a chatcli session (a loaded one is
chatcli-sessions' — begun with ``chatcli -p`` or in the chat — and its history is replayed as
message chunks); ``session/prompt`` runs a turn or a slash command; ``session/cancel`` stops it;
``session/set_mode`` switches chatcli's permission mode. After new/load the slash commands are
sent as available commands.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp import PROTOCOL_VERSION, RequestError
from acp.helpers import update_available_commands
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandInput,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    UnstructuredCommandInput,
    Usage,
)
from chatcli import translation

from chatcli_remote.acp.convert import history_updates
from chatcli_remote.acp.files import ClientFiles
from chatcli_remote.acp.live import MODES, LiveSession
from chatcli_remote.acp.outbox import Outbox

if TYPE_CHECKING:
    from acp.interfaces import Client
    from acp.schema import ClientCapabilities
    from chatcli import PluginHost

__all__ = ["LIST_LIMIT", "ChatcliAgent", "prompt_parts"]

_, ngettext = translation(__name__)

#: the most sessions ``session/list`` answers with
LIST_LIMIT = 100


def prompt_parts(blocks: list[Any]) -> tuple[str, list[str]]:
    """A prompt's content blocks as one message: its text (an embedded file as its path and
    text, a link as its URI) and its images (``data:`` URLs, or their http(s) URI)."""
    parts: list[str] = []
    images: list[str] = []
    for block in blocks:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            uri = block.uri or ""
            images.append(uri if uri.startswith(("http://", "https://"))
                          else f"data:{block.mime_type};base64,{block.data}")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            if text is not None:
                parts.append(f"\n<file uri=\"{resource.uri}\">\n{text}\n</file>\n")
        elif kind == "resource_link":
            parts.append(f" {block.uri} ")
    return "".join(parts).strip(), images


class ChatcliAgent:
    """chatcli as an ACP agent (one per ``chatcli acp`` process).

    :param host: the plugin host of the ``chatcli`` command line (plugins loaded).
    :param flags: the root command's ``--provider``/``--model``/``--system`` given.
    """

    def __init__(self, host: PluginHost, flags: dict[str, Any] | None = None) -> None:
        self.host = host
        self.flags = dict(flags or {})
        self.conn: Client | None = None
        self.sessions: dict[str, LiveSession] = {}
        self.read_files = False
        self.write_files = False
        self._drains: set[asyncio.Task[None]] = set()

    def on_connect(self, conn: Client) -> None:
        """Keep the connection to the client (called by ``run_agent``)."""
        self.conn = conn

    # ------------------------------------------------------------------ setup

    async def initialize(self, protocol_version: int,
                         client_capabilities: ClientCapabilities | None = None,
                         client_info: Implementation | None = None, **kwargs: Any
                         ) -> InitializeResponse:
        """What chatcli offers; what the client offers (its file system) is kept."""
        import chatcli

        fs = client_capabilities.fs if client_capabilities is not None else None
        self.read_files = bool(fs is not None and fs.read_text_file)
        self.write_files = bool(fs is not None and fs.write_text_file)
        listing = SessionCapabilities(list=SessionListCapabilities()) if self._catalog() else None
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True, session_capabilities=listing,
                prompt_capabilities=PromptCapabilities(image=True, audio=False,
                                                       embedded_context=True)),
            agent_info=Implementation(name="chatcli", title="chatcli",  # untranslated: a name
                                      version=chatcli.__version__))

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        """Nothing to authenticate: chatcli uses the keys it has (``chatcli keys``)."""
        return None

    def _catalog(self) -> Any:
        """chatcli-sessions' catalog (its ``session_catalog`` hook), or None."""
        ask = getattr(self.host.hook, "session_catalog", None)
        return ask() if ask is not None else None

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> ListSessionsResponse:
        """chatcli's saved sessions (of ``cwd``'s project when given), newest first."""
        from datetime import UTC, datetime

        catalog = self._catalog()
        if catalog is None:
            return ListSessionsResponse(sessions=[])
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(None, lambda: catalog.list(cwd, LIST_LIMIT))
        return ListSessionsResponse(sessions=[SessionInfo(
            session_id=s.id, cwd=s.project or cwd or "", title=s.title or None,
            updated_at=datetime.fromtimestamp(s.updated, UTC).isoformat().replace("+00:00", "Z"))
            for s in found])

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None, **kwargs: Any
                          ) -> NewSessionResponse:
        """A new chatcli session in ``cwd``."""
        live = await self._open(cwd, None)
        return NewSessionResponse(session_id=live.id, modes=self._modes(live))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None, **kwargs: Any
                           ) -> LoadSessionResponse:
        """Go on with chatcli session ``session_id``; its history is replayed first."""
        live = self.sessions.get(session_id)
        if live is None:
            live = await self._open(cwd, session_id)
        assert self.conn is not None
        for update in history_updates(live.conversation.messages(), live.workspace):
            await self.conn.session_update(session_id=live.id, update=update)
        return LoadSessionResponse(modes=self._modes(live))

    async def _open(self, cwd: str, resume: str | None) -> LiveSession:
        from chatcli import ChatcliError, SessionOptions, load_settings

        assert self.conn is not None
        workspace = Path(cwd)
        if not workspace.is_absolute() or not workspace.is_dir():
            raise RequestError.invalid_params({"cwd": _("not a folder: {path}").format(path=cwd)})
        loop = asyncio.get_running_loop()
        outbox = Outbox(loop)
        files = None
        try:
            settings = await loop.run_in_executor(
                None, lambda: load_settings(self.flags, cwd=workspace))
            live_id = resume or ""
            if self.read_files or self.write_files:
                files = ClientFiles(self.conn, outbox, live_id, read=self.read_files,
                                    write=self.write_files)
            live = LiveSession(self.conn, outbox, self.host, settings,
                               SessionOptions(resume=resume, provider=self.flags.get("provider"),
                                              model=self.flags.get("model")), workspace, files)
        except ChatcliError as err:
            raise RequestError.invalid_params({"message": _line(err)}) from None
        try:
            await loop.run_in_executor(live.worker, live.open)
        except ChatcliError as err:  # no such session, no provider or key…: the CLI's line
            live.worker.shutdown(wait=False)
            raise RequestError.invalid_params({"message": _line(err)}) from None
        if files is not None:
            files.session_id = live.id
        drain = asyncio.ensure_future(outbox.drain())
        self._drains.add(drain)
        drain.add_done_callback(self._drains.discard)
        self.sessions[live.id] = live
        self._announce(live)
        return live

    def _modes(self, live: LiveSession) -> SessionModeState | None:
        if not live.has_modes():
            return None
        return SessionModeState(current_mode_id=live.mode, available_modes=[
            SessionMode(id=mode, name=name, description=help_)
            for mode, (name, help_) in MODES.items()])

    def _announce(self, live: LiveSession) -> None:
        """The slash commands as available commands (sent after the response)."""
        commands = [AvailableCommand(
            name=command.name, description=_first(command.help),
            input=AvailableCommandInput(root=UnstructuredCommandInput(
                hint=" | ".join(command.subcommands[:8]) or _("arguments"))))
            for command in sorted(self.host.slash_commands().values(), key=lambda c: c.name)]
        live.outbox.send(lambda: self._later(live, commands))

    async def _later(self, live: LiveSession, commands: list[AvailableCommand]) -> None:
        await asyncio.sleep(0)  # the session's response goes first
        assert self.conn is not None
        await self.conn.session_update(session_id=live.id,
                                       update=update_available_commands(commands))

    # ------------------------------------------------------------------ use

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params(
                {"session_id": _("unknown session {id}").format(id=session_id)})
        return live

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        """Run the prompt (a message, or ``/name …``); answered when the turn ends."""
        live = self._live(session_id)
        if live.running:
            raise RequestError.invalid_request(
                {"message": _("a turn is already running in this session; cancel it first")})
        text, images = prompt_parts(prompt)
        reason = await live.prompt(text, images)
        used = live.usage
        return PromptResponse(stop_reason=reason, usage=None if used is None else Usage(
            input_tokens=used.input_tokens, output_tokens=used.output_tokens,
            total_tokens=used.input_tokens + used.output_tokens,
            cached_read_tokens=used.cache_read_tokens or None,
            cached_write_tokens=used.cache_write_tokens or None))

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        """Stop the session's turn (its prompt answers ``cancelled``)."""
        live = self.sessions.get(session_id)
        if live is not None:
            live.cancel()

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any
                               ) -> SetSessionModeResponse:
        """Switch chatcli's permission mode (``/permissions MODE``)."""
        from acp.helpers import update_current_mode

        live = self._live(session_id)
        if mode_id not in MODES or not live.has_modes():
            raise RequestError.invalid_params({"mode_id": f"unknown mode {mode_id}"})
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, live.set_mode, mode_id)
        except ValueError as err:
            raise RequestError.invalid_params({"message": str(err)}) from None
        live.outbox.send(lambda: self._mode_changed(live, update_current_mode(mode_id)))
        return SetSessionModeResponse()

    async def _mode_changed(self, live: LiveSession, update: Any) -> None:
        await asyncio.sleep(0)
        assert self.conn is not None
        await self.conn.session_update(session_id=live.id, update=update)

    async def close_all(self) -> None:
        """End every session (the client went away)."""
        loop = asyncio.get_running_loop()
        for live in list(self.sessions.values()):
            live.outbox.close()
            try:
                await loop.run_in_executor(None, live.close)
            except Exception as err:
                print(_("chatcli acp: closing session {id}: {reason}").format(
                    id=live.id, reason=_line(err)), file=sys.stderr)
        self.sessions.clear()


def _first(text: str) -> str:
    return (text.strip().splitlines() or [""])[0][:200]


def _line(err: BaseException) -> str:
    from chatcli import redact

    return redact(" ".join(str(err).split()) or type(err).__name__)
