"""The recorder in-process, for what a ``-p`` run cannot show: a person's answer (the
interactive chat asks), the managed policy's refusals, keys in a call's arguments and a reason,
the excerpt's length, a log that cannot be written, a subagent's child conversation."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from chatcli import (
    Approval,
    Conversation,
    Decision,
    Message,
    Risk,
    SessionOptions,
    Settings,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
    Usage,
    Verdict,
)
from chatcli_audit.recorder import Recorder

CANARY = "sk-recordercanary0123456789abcdefXYZ"
EXEC = ToolSpec("exec", "run", risk=Risk.EXECUTE, subject="command")
EDIT = ToolSpec("edit", "edit", risk=Risk.WRITE, subject="path")


class Host:
    """What the recorder uses of the plugin host: warnings, the declared hooks, the plugins."""

    def __init__(self) -> None:
        self.warnings: list[str] = []
        self.declared_hooks: dict[str, str] = {}
        self.pm = SimpleNamespace(get_plugin=lambda name: None)

    def warn(self, line: str) -> None:
        self.warnings.append(line)


def _recorder(folder: Path, mode: str = "default", **audit: Any) -> tuple[
        Recorder, Host, Conversation]:
    settings = Settings(audit={"path": str(folder), **audit})
    recorder, host = Recorder(), Host()
    recorder.configure(host, settings, folder)  # type: ignore[arg-type]
    session = SimpleNamespace(provider_name="openai", model="gpt-4o", workspace=folder,
                              options=SessionOptions(permission_mode=mode), settings=settings)
    conversation = Conversation()
    recorder.session_start(session, conversation)  # type: ignore[arg-type]
    recorder.user_prompt_submitted(conversation, Message.user("go"))
    return recorder, host, conversation


def _records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "audit.jsonl").read_text().splitlines()]


def test_a_persons_answer_is_the_users_decision(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path)
    call = ToolCallPart(name="exec", arguments={"command": "make deploy"})
    asked = Verdict(Decision.ASK, "runs `make deploy` (commands ask in default mode)",
                    "exec(make deploy:*)")
    recorder.tool_call_decided(call, EXEC, True, Approval(True, "session"), asked, conversation)
    refused = ToolCallPart(name="exec", arguments={"command": "make clean"})
    recorder.tool_call_decided(refused, EXEC, False, Approval(False, "once", "not now"), asked,
                               conversation)
    first, second = [r for r in _records(tmp_path) if r["kind"] == "tool_call"]
    assert (first["decision"], first["verdict"], first["decided_by"]) == ("allow", "ask", "user")
    assert first["approval"] == {"allow": True, "scope": "session"}
    assert first["rule"] == "exec(make deploy:*)"
    assert (second["decision"], second["decided_by"]) == ("deny", "user")
    assert second["approval"] == {"allow": False, "scope": "once", "reason": "not now"}


@pytest.mark.parametrize(("verdict", "rule"), [
    (Verdict(Decision.DENY, "`curl x` is denied by the rule exec(curl:*) "
                            "(managed /etc/chatcli/managed.toml)"), "exec(curl:*)"),
    (Verdict(Decision.DENY, "the administrator's policy refuses it", "managed:deny exec(curl:*)"),
     "managed:deny exec(curl:*)"),
])
def test_the_managed_policys_refusals_are_the_managed_policys(tmp_path: Path, verdict: Verdict,
                                                              rule: str) -> None:
    recorder, _host, conversation = _recorder(tmp_path)
    call = ToolCallPart(name="exec", arguments={"command": "curl x"})
    recorder.tool_call_decided(call, EXEC, False, None, verdict, conversation)
    record = _records(tmp_path)[-1]
    assert (record["decision"], record["decided_by"], record["rule"]) == ("deny", "managed", rule)


def test_keys_never_reach_the_log_and_excerpts_are_cut(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path, excerpt=40)
    command = f"curl -H 'Authorization: Bearer {CANARY}' https://example.com/" + "a" * 100
    call = ToolCallPart(name="exec", arguments={"command": command})
    reason = f"`curl` with {CANARY} is denied by the rule exec(curl:*) (~/.config/x.toml)"
    recorder.tool_call_decided(call, EXEC, True, None, Verdict(Decision.ALLOW), conversation)
    recorder.after_tool_call(call, ToolResultPart(call_id=call.id, name="exec",
                                                  content=f"exit code 0 (0.1 s)\n{CANARY}"),
                             conversation)
    recorder.tool_call_decided(call, EXEC, False, None, Verdict(Decision.DENY, reason),
                               conversation)
    text = (tmp_path / "audit.jsonl").read_text()
    assert CANARY not in text and CANARY[:20] not in text
    found = _records(tmp_path)
    allowed, command_record, denied = found[1:]
    assert len(allowed["arguments"]) == 40 and allowed["arguments"].endswith("…")
    assert command_record["exit_code"] == 0 and len(command_record["command"]) == 40
    assert "***" in command_record["command"]
    assert len(denied["reason"]) == 40 and denied["rule"] == "exec(curl:*)"


def test_file_changes_come_from_calls_that_ran_and_succeeded(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path, mode="accept-edits")
    ok = ToolCallPart(name="edit", arguments={"path": "a.py", "old": "x", "new": "y"})
    failed = ToolCallPart(name="edit", arguments={"path": "b.py", "old": "x", "new": "y"})
    patch = ToolCallPart(name="apply_patch", arguments={"patch": (
        "*** Begin Patch\n*** Add File: new.py\n+x\n*** Delete File: old.py\n"
        "*** Update File: c.py\n*** Move to: d.py\n@@\n-a\n+b\n*** End Patch\n")})
    patch_tool = ToolSpec("apply_patch", "patch", risk=Risk.WRITE)
    for call, tool in ((ok, EDIT), (failed, EDIT), (patch, patch_tool)):
        recorder.tool_call_decided(call, tool, True, None, Verdict(Decision.ALLOW),
                                   conversation)
    recorder.after_tool_call(ok, ToolResultPart(call_id=ok.id, name="edit", content="edited"),
                             conversation)
    recorder.after_tool_call(failed, ToolResultPart(call_id=failed.id, name="edit",
                                                    content="old not found", is_error=True),
                             conversation)
    recorder.after_tool_call(patch, ToolResultPart(call_id=patch.id, name="apply_patch",
                                                   content="applied"), conversation)
    changes = [(r["tool"], r["path"], r["action"]) for r in _records(tmp_path)
               if r["kind"] == "file_change"]
    assert changes == [("edit", "a.py", "edit"), ("apply_patch", "new.py", "add"),
                       ("apply_patch", "old.py", "delete"), ("apply_patch", "c.py", "update"),
                       ("apply_patch", "d.py", "move")]


def test_a_denied_call_has_no_command_record(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path)
    call = ToolCallPart(name="exec", arguments={"command": "rm -rf x"})
    recorder.tool_call_decided(call, EXEC, False, None, Verdict(Decision.DENY, "no"),
                               conversation)
    recorder.after_tool_call(call, ToolResultPart(call_id=call.id, name="exec",
                                                  content="denied: no", is_error=True),
                             conversation)
    assert [r["kind"] for r in _records(tmp_path)] == ["session", "tool_call"]


@pytest.mark.parametrize(("content", "code", "outcome"), [
    ("exit code 3 (0.2 s, bwrap)\nboom", 3, "exit"),
    ("ran: pytest\ntests failed, exit code 1 (2.0 s, bwrap)\n1 failed", 1, "exit"),
    ("timed out after 30 s: the command and everything it started were killed", None,
     "timeout"),
    ("killed by SIGKILL after 1.0 s\n(no output)", None, "killed:SIGKILL"),
    ("stopped by the user after 3.0 s: the command's processes were killed", None, "stopped"),
    ("the command is empty", None, "error"),
])
def test_how_a_command_ended(tmp_path: Path, content: str, code: int | None,
                             outcome: str) -> None:
    recorder, _host, conversation = _recorder(tmp_path)
    call = ToolCallPart(name="exec", arguments={"command": "x"})
    recorder.tool_call_decided(call, EXEC, True, None, Verdict(Decision.ALLOW), conversation)
    recorder.after_tool_call(call, ToolResultPart(call_id=call.id, name="exec", content=content,
                                                  is_error=outcome == "error"), conversation)
    record = _records(tmp_path)[-1]
    assert (record["exit_code"], record["outcome"]) == (code, outcome)


def test_a_childs_records_carry_the_sessions_id_and_their_conversation(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path)
    child = Conversation(parent=conversation)
    answer = Message.assistant("done")
    answer.provider, answer.model, answer.usage = "openai", "gpt-4o", Usage(input_tokens=5)
    recorder.after_response(answer, None, child, "subagent")
    record = _records(tmp_path)[-1]
    assert record["session"] == conversation.id and record["conversation"] == child.id
    assert (record["purpose"], record["input_tokens"], record["cost_usd"]) == (
        "subagent", 5, None)  # no cost plugin here: the cost is not known


def test_a_log_that_cannot_be_written_is_reported_once(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    recorder, host, conversation = _recorder(blocker / "audit")
    for _ in range(3):
        recorder.user_prompt_submitted(conversation, Message.user("again"))
        recorder.after_response(None, None, conversation, "chat")
    assert len(host.warnings) == 1
    assert host.warnings[0].startswith(f"audit: could not write to {blocker}/audit/audit.jsonl")
    assert "set [audit] path" in host.warnings[0]


def test_disabled_writes_nothing(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path / "audit", enabled=False)
    recorder.after_response(None, None, conversation, "chat")
    assert not (tmp_path / "audit").exists()


def test_a_call_never_decided_is_recorded_as_invalid(tmp_path: Path) -> None:
    recorder, _host, conversation = _recorder(tmp_path)
    call = ToolCallPart(name="exec", raw_arguments='{"command": "ls', arguments={})
    recorder.after_tool_call(call, ToolResultPart(
        call_id=call.id, name="exec", content="the arguments are not valid JSON: …",
        is_error=True), conversation)
    record = _records(tmp_path)[-1]
    assert (record["kind"], record["decision"], record["decided_by"]) == (
        "tool_call", "deny", "invalid")
    assert record["arguments"] == '{"command": "ls'
    assert record["reason"].startswith("the arguments are not valid JSON")
