"""``chatcli acp`` driven by the Agent Client Protocol package's own client side: a real
``python -m chatcli_cli acp`` process (``acp.spawn_agent_process``), a recording client that
answers permission requests from a script and serves files from in-memory editor buffers, and
the OpenAI wire server as the model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from acp import (
    PROTOCOL_VERSION,
    RequestError,
    embedded_text_resource,
    image_block,
    resource_block,
    spawn_agent_process,
    text_block,
)
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CurrentModeUpdate,
    DeniedOutcome,
    FileEditToolCallContent,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
)
from chatcli_testing import OpenAIServer, Reply, ToolCall
from process_support import CHATCLI

pytestmark = pytest.mark.slow

#: a 1x1 PNG, as an editor sends a pasted image
PIXEL = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5"
         "ErkJggg==")
#: the longest a scenario may take before it is a failure (a hung agent must not hang the suite)
LIMIT = 90.0


class RecordingClient:
    """The editor: records every update, answers permission requests with ``answers`` (option
    ids in order; None = cancelled; an empty list = never answers), serves ``buffers`` (path ->
    unsaved text) before the disk and records writes."""

    def __init__(self, answers: list[str | None] | None = None,
                 buffers: dict[str, str] | None = None) -> None:
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.answers = list(answers or [])
        self.buffers = dict(buffers or {})
        self.reads: list[str] = []
        self.writes: list[str] = []
        self.asked = asyncio.Event()
        self.spoke = asyncio.Event()

    def on_connect(self, conn: Any) -> None:
        """Nothing to keep."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        if isinstance(update, AgentMessageChunk):
            self.spoke.set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        self.asked.set()
        if not self.answers:
            await asyncio.Event().wait()  # the user never answers
        answer = self.answers.pop(0)
        if answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer))

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> None:
        self.writes.append(path)
        self.buffers[path] = content
        Path(path).write_text(content, encoding="utf-8")

    def text(self) -> str:
        """Every agent message chunk's text, joined."""
        return "".join(u.content.text for u in self.updates if isinstance(u, AgentMessageChunk))

    def of(self, kind: type) -> list[Any]:
        """The updates of one kind."""
        return [u for u in self.updates if isinstance(u, kind)]


Scenario = Callable[[Any, RecordingClient], Awaitable[None]]


def drive(workspace: Path, env: dict[str, str], client: RecordingClient, scenario: Scenario,
          *, fs: bool = True, flags: tuple[str, ...] = ()) -> None:
    """Start ``chatcli [flags] acp`` in ``workspace``, initialize (offering the file system
    when ``fs``) and run ``scenario(conn, client)``."""

    async def main() -> None:
        async with spawn_agent_process(lambda _agent: client, sys.executable, "-m",
                                       "chatcli_cli", *flags, "acp", env=env,
                                       cwd=workspace) as (
                conn, _process):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(fs=FileSystemCapabilities(
                    read_text_file=fs, write_text_file=fs)))
            await scenario(conn, client)

    asyncio.run(asyncio.wait_for(main(), LIMIT))


def said(wire: OpenAIServer, index: int = -1) -> str:
    """The messages of one request the model got, as JSON text."""
    return json.dumps(wire.requests[index].json["messages"])


@pytest.fixture
def project(home: Path) -> Path:
    """The editor's folder: a git root holding ``notes.txt``."""
    folder = home / "project"
    (folder / ".git").mkdir(parents=True)
    (folder / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    return folder


def test_initialize_offers_sessions_that_load_and_prompts_with_files(
        project: Path, env: dict[str, str]) -> None:
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with spawn_agent_process(lambda _agent: RecordingClient(), sys.executable, "-m",
                                       "chatcli_cli", "acp", env=env, cwd=project) as (conn, _p):
            seen["init"] = await conn.initialize(protocol_version=PROTOCOL_VERSION)

    asyncio.run(asyncio.wait_for(main(), LIMIT))
    answer = seen["init"]
    assert answer.protocol_version == PROTOCOL_VERSION
    assert answer.agent_capabilities.load_session is True
    assert answer.agent_capabilities.prompt_capabilities.embedded_context is True
    assert answer.agent_capabilities.prompt_capabilities.image is True
    assert answer.agent_capabilities.session_capabilities.list is not None
    assert answer.agent_info.name == "chatcli"


def test_a_prompt_streams_message_chunks_and_ends_the_turn(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(text="Hello from the wire server.", chunk_size=5,
                      usage={"input_tokens": 120, "output_tokens": 7}))
    client = RecordingClient()
    seen: dict[str, Any] = {}

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        seen["session"] = session
        seen["answer"] = await conn.prompt(session_id=session.session_id, prompt=[
            text_block("say hello"), image_block(PIXEL, "image/png"),
            resource_block(embedded_text_resource("file:///elsewhere/spec.md", "EMBEDDED-SPEC"))])

    drive(project, env, client, scenario, flags=("--model", "model-from-the-flag"))
    assert seen["answer"].stop_reason == "end_turn"
    usage = seen["answer"].usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (120, 7, 127)
    [meter] = client.of(UsageUpdate)
    assert meter.used > 0 and meter.size > meter.used
    assert wire.requests[-1].json["model"] == "model-from-the-flag"
    assert f"data:image/png;base64,{PIXEL}" in said(wire)
    assert "EMBEDDED-SPEC" in said(wire)
    chunks = client.of(AgentMessageChunk)
    assert len(chunks) > 1  # streamed, not sent whole
    assert client.text() == "Hello from the wire server."
    assert "say hello" in said(wire)
    modes = seen["session"].modes
    assert modes.current_mode_id == "default"
    assert [m.id for m in modes.available_modes] == ["default", "accept-edits", "plan", "auto"]
    commands = client.of(AvailableCommandsUpdate)
    names = {c.name for c in commands[0].available_commands}
    assert {"permissions", "cost"} <= names


def test_a_session_that_cannot_open_is_an_error_with_chatclis_line(
        project: Path, env: dict[str, str]) -> None:
    seen: dict[str, Any] = {}

    async def scenario(conn: Any, client: RecordingClient) -> None:
        with pytest.raises(RequestError) as raised:
            await conn.load_session(cwd=str(project), session_id="s_nosuchsession",
                                    mcp_servers=[])
        seen["error"] = raised.value

    drive(project, env, RecordingClient(), scenario)
    assert "s_nosuchsession" in json.dumps(seen["error"].data)


def _edit_script(wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                Reply(tool_calls=[ToolCall("edit", {"path": "notes.txt", "old": "beta",
                                                    "new": "gamma"})]),
                Reply(text="Edited."))


def _edit(project: Path) -> Scenario:
    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id,
                                   prompt=[text_block("change beta to gamma")])
        assert answer.stop_reason == "end_turn"

    return scenario


def test_an_edit_allowed_in_the_editor_changes_the_file_and_shows_its_diff(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    _edit_script(wire)
    client = RecordingClient(answers=["once"])
    drive(project, env, client, _edit(project))
    assert (project / "notes.txt").read_text(encoding="utf-8") == "alpha\ngamma\n"
    assert str(project / "notes.txt") in client.writes  # written through the editor
    [(asked, options)] = client.permissions
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    assert asked.kind == "edit"
    diffs = [c for c in asked.content if isinstance(c, FileEditToolCallContent)]
    assert [(d.path, d.old_text, d.new_text) for d in diffs] == [
        (str(project / "notes.txt"), "alpha\nbeta\n", "alpha\ngamma\n")]
    starts = {u.title: u for u in client.of(ToolCallStart)}
    assert {"read notes.txt", "edit notes.txt"} <= set(starts)
    done = [u for u in client.of(ToolCallProgress)
            if u.tool_call_id == starts["edit notes.txt"].tool_call_id and u.status]
    assert done[-1].status == "completed"
    assert client.text() == "Edited."


def test_an_edit_rejected_in_the_editor_leaves_the_file_alone(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    _edit_script(wire)
    client = RecordingClient(answers=["no"])
    drive(project, env, client, _edit(project))
    assert (project / "notes.txt").read_text(encoding="utf-8") == "alpha\nbeta\n"
    assert client.writes == []
    assert "denied by the user" in said(wire)
    edit = next(u for u in client.of(ToolCallStart) if u.title == "edit notes.txt")
    statuses = [u.status for u in client.of(ToolCallProgress)
                if u.tool_call_id == edit.tool_call_id and u.status]
    assert statuses[-1] == "failed"


def test_the_model_reads_the_editors_unsaved_buffer(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]), Reply(text="Read."))
    path = str(project / "notes.txt")
    client = RecordingClient(buffers={path: "alpha\nUNSAVED-IN-EDITOR\n"})

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("read notes")])

    drive(project, env, client, scenario)
    assert path in client.reads
    assert "UNSAVED-IN-EDITOR" in said(wire)
    assert "beta" not in said(wire)


def test_cancel_stops_the_turn_mid_answer(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(text="first words then a long pause", chunk_size=6, pauses={1: 60}))
    client = RecordingClient()
    seen: dict[str, Any] = {}

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id,
                                                 prompt=[text_block("talk")]))
        await client.spoke.wait()
        await conn.cancel(session_id=session.session_id)
        seen["answer"] = await turn

    drive(project, env, client, scenario)
    assert seen["answer"].stop_reason == "cancelled"
    assert client.text() == "first "


def test_cancel_while_the_editor_asks_denies_the_call(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("write", {"path": "new.txt", "content": "x\n"})]))
    client = RecordingClient(answers=[])  # the question stays open
    seen: dict[str, Any] = {}

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        turn = asyncio.ensure_future(conn.prompt(session_id=session.session_id,
                                                 prompt=[text_block("write a file")]))
        await client.asked.wait()
        await conn.cancel(session_id=session.session_id)
        seen["answer"] = await turn

    drive(project, env, client, scenario)
    assert seen["answer"].stop_reason == "cancelled"
    assert not (project / "new.txt").exists()


def test_session_modes_are_chatcli_permission_modes(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("write", {"path": "new.txt", "content": "x\n"})]),
                Reply(text="Written."))
    client = RecordingClient()  # any question would hang: accept-edits must not ask

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="accept-edits")
        answer = await conn.prompt(session_id=session.session_id,
                                   prompt=[text_block("write new.txt")])
        assert answer.stop_reason == "end_turn"

    drive(project, env, client, scenario)
    assert client.permissions == []
    assert (project / "new.txt").read_text(encoding="utf-8") == "x\n"
    [start] = client.of(ToolCallStart)  # an edit that is not asked about still shows its diff
    assert [(c.path, c.old_text, c.new_text) for c in start.content] == [
        (str(project / "new.txt"), None, "x\n")]
    assert [u.current_mode_id for u in client.of(CurrentModeUpdate)] == ["accept-edits"]


def test_a_prompt_naming_a_slash_command_runs_it(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    client = RecordingClient()
    seen: dict[str, Any] = {}

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        seen["answer"] = await conn.prompt(session_id=session.session_id,
                                           prompt=[text_block("/permissions plan")])

    drive(project, env, client, scenario)
    assert seen["answer"].stop_reason == "end_turn"
    assert client.text().startswith("permission mode: plan")
    assert [u.current_mode_id for u in client.of(CurrentModeUpdate)] == ["plan"]
    assert wire.requests == []  # no model call


def _chatcli(project: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(CHATCLI), *args], cwd=project, env=env, capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return done


def test_a_command_that_asks_for_a_choice_asks_the_editor(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(text="ANSWER-ONE"))
    _chatcli(project, env, "-p", "QUESTION-ONE")
    [listed] = json.loads(_chatcli(project, env, "sessions", "list", "--json").stdout)
    client = RecordingClient(answers=["0"])

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/session load")])

    drive(project, env, client, scenario)
    [(asked, options)] = client.permissions
    assert asked.title == "Load which session?"
    assert "QUESTION-ONE" in options[0].name
    assert f"Loaded session {listed['id']}" in client.text()


def test_a_session_goes_from_chatcli_p_to_the_editor_and_back(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    def chatcli(*args: str) -> subprocess.CompletedProcess[str]:
        return _chatcli(project, env, *args)

    wire.script(Reply(text="ANSWER-ONE"))
    chatcli("-p", "QUESTION-ONE")
    [listed] = json.loads(chatcli("sessions", "list", "--json").stdout)
    wire.script(Reply(text="ANSWER-TWO"))
    client = RecordingClient()

    async def scenario(conn: Any, client: RecordingClient) -> None:
        found = await conn.list_sessions(cwd=str(project))
        assert [(s.session_id, s.title) for s in found.sessions] == [(listed["id"],
                                                                      "QUESTION-ONE")]
        await conn.load_session(cwd=str(project), session_id=listed["id"], mcp_servers=[])
        client.updates.append("prompted")
        answer = await conn.prompt(session_id=listed["id"], prompt=[text_block("QUESTION-TWO")])
        assert answer.stop_reason == "end_turn"

    drive(project, env, client, scenario)
    replay = client.updates[:client.updates.index("prompted")]
    assert [u.content.text for u in replay if isinstance(u, UserMessageChunk)] == [
        "QUESTION-ONE"]
    assert [u.content.text for u in replay if isinstance(u, AgentMessageChunk)] == [
        "ANSWER-ONE"]
    assert "ANSWER-ONE" in said(wire)  # the editor's turn went on with the history
    wire.script(Reply(text="ANSWER-THREE"))
    assert chatcli("-c", "-p", "QUESTION-THREE").stdout.strip() == "ANSWER-THREE"
    assert "QUESTION-TWO" in said(wire) and "ANSWER-TWO" in said(wire)


def test_a_command_shows_its_output_in_its_tool_call(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("exec", {"command": "echo OUT-ONE; echo OUT-TWO"})]),
                Reply(text="Ran."))
    client = RecordingClient(answers=["once"])

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])

    drive(project, env, client, scenario)
    [start] = client.of(ToolCallStart)
    assert start.kind == "execute" and start.title == "exec echo OUT-ONE; echo OUT-TWO"
    updates = [u for u in client.of(ToolCallProgress) if u.tool_call_id == start.tool_call_id]
    live = [u for u in updates if u.status is None]  # output while it runs
    assert "OUT-ONE" in live[0].content[0].content.text
    assert live[-1].content[0].content.text.splitlines()[-2:] == ["OUT-ONE", "OUT-TWO"]
    assert updates[-1].status == "completed"
    assert "OUT-TWO" in updates[-1].content[-1].content.text


def test_workers_are_shown_as_a_plan(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("delegate", {
        "agent": "general", "task": "say hi", "description": "greet the user"})]),
        Reply(text="The worker's report."), Reply(text="The worker said hi."))
    client = RecordingClient()

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id,
                                   prompt=[text_block("have a worker greet")])
        assert answer.stop_reason == "end_turn"

    drive(project, env, client, scenario)
    plans = client.of(AgentPlanUpdate)
    assert plans, client.updates
    [entry] = plans[-1].entries
    assert "greet the user" in entry.content
    assert entry.status == "completed"
    assert client.text().endswith("The worker said hi.")


def test_a_workers_question_is_asked_in_the_editor(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    wire.script(Reply(tool_calls=[ToolCall("delegate", {
        "agent": "general", "task": "write out.txt", "description": "write a file"})]),
        Reply(tool_calls=[ToolCall("write", {"path": "out.txt", "content": "from the worker\n"})]),
        Reply(text="Wrote it."), Reply(text="The worker wrote out.txt."))
    client = RecordingClient(answers=["once"])

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("delegate it")])

    drive(project, env, client, scenario)
    [(asked, _options)] = client.permissions
    assert asked.title == "write out.txt"
    assert (project / "out.txt").read_text(encoding="utf-8") == "from the worker\n"
    closing = [u.status for u in client.of(ToolCallProgress)
               if u.tool_call_id == asked.tool_call_id and u.status]
    assert closing[-1] == "completed"
    assert client.text().endswith("The worker wrote out.txt.")


def test_a_script_gets_every_answer_and_stdout_holds_only_json_rpc(
        project: Path, env: dict[str, str], home: Path) -> None:
    requests = home / "requests.jsonl"
    answers = home / "answers.jsonl"
    requests.write_text(
        "not json at all\n"
        + json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                      "params": {"protocolVersion": PROTOCOL_VERSION}}) + "\n"
        + json.dumps({"jsonrpc": "2.0", "id": "two", "method": "session/new",
                      "params": {"cwd": str(project), "mcpServers": []}}) + "\n",
        encoding="utf-8")
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        done = subprocess.run([sys.executable, "-m", "chatcli_cli", "acp"], stdin=stdin,
                              stdout=stdout, stderr=subprocess.PIPE, env=env, cwd=project,
                              timeout=LIMIT, text=True)
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    answers_by_id = {m["id"]: m["result"] for m in messages if "id" in m}
    assert answers_by_id[1]["agentInfo"]["name"] == "chatcli"
    assert answers_by_id["two"]["sessionId"].startswith("s_")  # answered before the end
    assert "chatcli acp: Error parsing JSON-RPC message" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_editor_gets_chatclis_words_in_the_users_language(
        project: Path, env: dict[str, str], wire: OpenAIServer) -> None:
    _edit_script(wire)
    client = RecordingClient(answers=["no"])
    seen: dict[str, Any] = {}

    async def scenario(conn: Any, client: RecordingClient) -> None:
        session = await conn.new_session(cwd=str(project), mcp_servers=[])
        seen["modes"] = session.modes
        # the mode is read back from /permissions' line, whatever its language
        await conn.set_session_mode(session_id=session.session_id, mode_id="accept-edits")
        await conn.set_session_mode(session_id=session.session_id, mode_id="default")
        answer = await conn.prompt(session_id=session.session_id,
                                   prompt=[text_block("change beta to gamma")])
        assert answer.stop_reason == "end_turn"

    drive(project, {**env, "CHATCLI_LANG": "pt_BR"}, client, scenario)
    modes = seen["modes"]
    assert [m.id for m in modes.available_modes] == ["default", "accept-edits", "plan", "auto"]
    assert [m.name for m in modes.available_modes] == ["Padrão", "Aceitar edições", "Plano",
                                                       "Automático"]
    assert [u.current_mode_id for u in client.of(CurrentModeUpdate)] == ["accept-edits",
                                                                          "default"]
    [(_asked, options)] = client.permissions
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    assert [o.option_id for o in options] == ["once", "always", "no"]
    assert options[0].name == "Permitir uma vez" and options[2].name == "Recusar"
    assert (project / "notes.txt").read_text(encoding="utf-8") == "alpha\nbeta\n"
