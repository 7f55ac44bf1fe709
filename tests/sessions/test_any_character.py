"""Sessions that survive any character: lone surrogates, NUL and other text nothing can store or
send, in answers, tool arguments (nested keys and values) and tool output; a turn saved whole or
not at all; a session an older chatcli broke (a tool message saved without its parent) repaired
on load with one line.

Run as a script (``python test_any_character.py ARGS...``) this file is the real command line
with the ``chatcli_testing`` scripted model, an ``echo`` read tool and the sessions plugin; the
model's script comes from ``ANY_CHAR_SCRIPT``: a JSON list (ASCII, escapes such as ``\\ud800``
and ``\\u0000`` give the characters) of ``{"text": ..., "calls": [[NAME, ARGS], ...]}``.
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    Conversation,
    Message,
    PluginHost,
    Role,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    attach_hooks,
    hookimpl,
    safe_text,
)
from pydantic import BaseModel, Field

#: What the echo tool adds to its output: text as a file name with undecodable bytes (read with
#: surrogateescape) and a NUL, as ``cat`` of a binary file gives.
RAW_OUTPUT = "bytes:\udcff\x00:end"
REPLACED = "\ufffd"


# ------------------------------------------------------------------------ script mode (the CLI)


class EchoArgs(BaseModel):
    """Arguments of the ``echo`` tool: any text and any nested object."""

    text: str = ""
    payload: dict[str, Any] = Field(default_factory=dict)


def _echo(args: EchoArgs, context: Any) -> str:
    return f"echo {json.dumps(args.model_dump(), ensure_ascii=False)} {RAW_OUTPUT}"


class EchoTool:
    """Registers ``echo`` (read-only, so it runs without asking)."""

    @hookimpl
    def register_tools(self, register: Any) -> None:
        from chatcli import Risk, Tool

        register(Tool(name="echo", description="Echo the arguments.", args_model=EchoArgs,
                      run=_echo, risk=Risk.READ))


def _script() -> list[Any]:
    from chatcli_testing import Reply, ToolCall

    return [Reply(text=item.get("text", ""), chunk_size=1000,
                  tool_calls=[ToolCall(name, args) for name, args in item.get("calls", [])])
            for item in json.loads(os.environ.get("ANY_CHAR_SCRIPT", "[]"))]


def main() -> int:
    """The real command line: scripted model, echo tool, sessions and print (nothing else)."""
    from chatcli_cli.root import run
    from chatcli_print import plugin as print_plugin
    from chatcli_sessions import plugin as sessions_plugin
    from chatcli_testing import ScriptedProvider, scripted_plugin

    host = PluginHost()
    host.register(scripted_plugin(ScriptedProvider(_script())), "scripted")
    host.register(EchoTool(), "echo")
    host.register(sessions_plugin, "sessions")
    host.register(print_plugin, "print")
    return run(sys.argv[1:], host=host)


def chat(*args: str, script: list[dict[str, Any]], cwd: Path
         ) -> subprocess.CompletedProcess[str]:
    """This file as the command line, with ``script`` as the model's answers."""
    env = {**os.environ, "ANY_CHAR_SCRIPT": json.dumps(script), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True,
                          errors="backslashreplace", timeout=60, env=env, cwd=cwd)


# ------------------------------------------------------------------------ reading the database


def db_rows(db: Path) -> list[tuple[str, str | None, str, str]]:
    """Every stored message as (id, parent_id, role, json), in append order."""
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id, parent_id, role, json FROM messages ORDER BY seq").fetchall()


def orphans(db: Path) -> list[str]:
    """Stored messages whose parent is not stored (what broke ``-c`` before)."""
    with sqlite3.connect(db) as con:
        return [r[0] for r in con.execute(
            "SELECT m.id FROM messages m WHERE m.parent_id IS NOT NULL AND NOT EXISTS ("
            " SELECT 1 FROM messages p WHERE p.session_id = m.session_id AND p.id = m.parent_id)")]


def all_strings(value: Any) -> list[str]:
    """Every string in a JSON value, keys included."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(k for k in item if isinstance(k, str))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def is_safe(text: str) -> bool:
    return "\x00" not in text and safe_text(text) == text


# ------------------------------------------------------------------------ the CLI, end to end

SUR, LOW, NUL = "\ud800", "\udcff", "\x00"

#: One line per place a character can arrive: (case, the model's first answers, what the stored
#: log must hold, as text). The last answer of each script is plain; ``-c -p again`` follows.
CLI_CASES = [
    ("answer text", [{"text": f"answer {SUR} and {NUL} and {LOW} end"}],
     [f"answer {REPLACED} and {REPLACED} and {REPLACED} end"]),
    ("tool argument value", [{"text": "look", "calls": [["echo", {"text": f"x{SUR}y{NUL}z"}]]},
                             {"text": "done"}],
     [f"x{REPLACED}y{REPLACED}z", "done"]),
    ("nested key and value", [{"calls": [["echo", {"payload": {
        f"k{SUR}": [f"v{NUL}", {f"{LOW}": f"deep{SUR}"}]}}]]}, {"text": "done"}],
     [f"k{REPLACED}", f"v{REPLACED}", f"deep{REPLACED}"]),
    ("tool output", [{"calls": [["echo", {"text": "plain"}]]}, {"text": "done"}],
     [f"bytes:{REPLACED}{REPLACED}:end"]),
    ("surrogate pair in two halves", [{"text": "smile \ud83d\ude00 ok"}], ["smile \U0001f600 ok"]),
    ("answer after the tool", [{"calls": [["echo", {"text": "a"}]]},
                               {"text": f"after {SUR}{NUL}"}],
     [f"after {REPLACED}{REPLACED}"]),
]


@pytest.mark.parametrize(("case", "script", "stored"), CLI_CASES, ids=[c[0] for c in CLI_CASES])
def test_the_turn_completes_and_the_session_goes_on(
        case: str, script: list[dict[str, Any]], stored: list[str], home: Path,
        db_path: Path) -> None:
    work = home / "work"
    work.mkdir()
    first = chat("-p", "hi", script=script, cwd=work)
    assert first.returncode == 0, first.stderr
    assert "unexpected" not in first.stderr and "warning" not in first.stderr, first.stderr
    rows = db_rows(db_path)
    assert orphans(db_path) == []
    texts = "\n".join(s for r in rows for s in all_strings(json.loads(r[3])))
    for piece in stored:
        assert piece in texts, (case, piece)
    assert all(is_safe(s) for r in rows for s in all_strings(json.loads(r[3])))
    roles = [r[2] for r in rows]
    assert roles[0] == "user" and roles[-1] == "assistant"
    assert roles.count("tool") == sum(1 for item in script if item.get("calls"))
    again = chat("-c", "-p", "again", script=[{"text": "again ok"}], cwd=work)
    assert again.returncode == 0, again.stderr
    assert "again ok" in again.stdout and again.stderr == ""
    assert len(db_rows(db_path)) == len(rows) + 2 and orphans(db_path) == []


def test_what_the_answer_shows_is_what_is_stored(home: Path, db_path: Path) -> None:
    work = home / "work"
    work.mkdir()
    result = chat("-p", "hi", script=[{"text": f"a{SUR}b{NUL}c"}], cwd=work)
    assert result.returncode == 0, result.stderr
    assert f"a{REPLACED}b{REPLACED}c" in result.stdout
    answer = json.loads(db_rows(db_path)[-1][3])
    assert answer["parts"][0]["text"] == f"a{REPLACED}b{REPLACED}c"


def test_a_prompt_with_bytes_that_are_not_utf8(home: Path, db_path: Path) -> None:
    """A shell passes any bytes: ``-p $'bad \\xff byte'`` arrives as a lone surrogate."""
    work = home / "work"
    work.mkdir()
    result = chat("-p", f"bad {LOW} byte", script=[{"text": "ok"}], cwd=work)
    assert result.returncode == 0, result.stderr
    user = json.loads(db_rows(db_path)[0][3])
    assert user["parts"][0]["text"] == f"bad {REPLACED} byte"
    with sqlite3.connect(db_path) as con:
        assert con.execute("SELECT title FROM sessions").fetchone()[0] == f"bad {REPLACED} byte"
    again = chat("-c", "-p", "again", script=[{"text": "again ok"}], cwd=work)
    assert again.returncode == 0 and "again ok" in again.stdout, again.stderr


# ------------------------------------------------------------------------ a turn saved whole


def _observed(conversation: Conversation, plugin: object) -> Conversation:
    """``conversation`` with ``plugin``'s lifecycle hooks observing it, as a session's are; a
    hook that fails fails the test."""

    def fail(line: str) -> None:
        raise AssertionError(line)

    host = PluginHost(warn=fail)
    host.register(plugin, "saver")
    attach_hooks(conversation, host)
    return conversation


class _Saver:
    """What the sessions plugin does on message_appended; a failure is counted (the plugin
    host reports a failed hook and the turn goes on)."""

    def __init__(self, store: Any) -> None:
        self.store, self.failures = store, 0

    @hookimpl
    def message_appended(self, conversation: Conversation, message: Message) -> None:
        from chatcli_sessions.store import StoreError

        try:
            self.store.append(conversation, message)
        except StoreError:
            self.failures += 1


#: (case, the message whose write fails, how many times) — a write fault (disk full, a lock
#: held past every retry) inside the transaction, once or for good.
WRITE_FAULTS = [
    ("the answer with the calls, once", "calls", 1),
    ("the answer with the calls, always", "calls", 10**6),
    ("the tool results, once", "results", 1),
    ("the tool results, always", "results", 10**6),
    ("the final answer, once", "final", 1),
]


@pytest.mark.parametrize(("case", "which", "times"), WRITE_FAULTS,
                         ids=[c[0] for c in WRITE_FAULTS])
def test_a_tool_message_is_never_stored_without_its_parent(
        case: str, which: str, times: int, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chatcli_sessions.store import SessionStore

    call = ToolCallPart(name="echo", arguments={"text": "x"})
    turn = [Message.user("hi"), Message.assistant("look", [call]),
            Message(role=Role.TOOL, parts=[
                ToolResultPart(call_id=call.id, name="echo", content="out")]),
            Message.assistant("done")]
    target = {"calls": turn[1], "results": turn[2], "final": turn[3]}[which].id
    left = [times]
    real = SessionStore._insert_message

    def insert(db: sqlite3.Connection, session_id: str, message: Message) -> None:
        if message.id == target and left[0] > 0:
            left[0] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        real(db, session_id, message)

    monkeypatch.setattr(SessionStore, "_insert_message", staticmethod(insert))
    store = SessionStore(home / "faults.db")
    conversation = Conversation()
    saver = _Saver(store)
    _observed(conversation, saver)
    for message in turn:
        conversation.append(message)
    assert saver.failures >= 1
    assert orphans(home / "faults.db") == []
    stored = [r[0] for r in db_rows(home / "faults.db")]
    ids = [m.id for m in turn]
    if times > 1:  # nothing from the message that cannot be written on (nor a question alone)
        before = turn[: ids.index(target)]
        assert stored == ([m.id for m in before]
                          if any(m.role == Role.ASSISTANT for m in before) else [])
    elif target == ids[-1]:  # the last write failed: nothing came after to repair it
        assert stored == ids[:-1]
    else:  # the next append wrote what the failed one could not, parents first
        assert stored == ids
    if stored:
        loaded = store.load(conversation.id, resume=True)
        assert [m.id for m in loaded.messages()][: len(stored)] == stored
    store.close()


def test_arguments_too_deep_for_json_do_not_stop_the_session(home: Path) -> None:
    """A message JSON cannot hold (arguments 10,000 levels deep) is stored with a note in place
    of its arguments, so the messages after it, written after their parents, are stored too."""
    from chatcli_sessions.store import UNSTORABLE_ARGUMENTS, SessionStore

    deep: dict[str, Any] = {}
    cursor = deep
    for _ in range(10_000):
        cursor["a"] = {}
        cursor = cursor["a"]
    store = SessionStore(home / "deep.db")
    conversation = Conversation()
    saver = _Saver(store)
    _observed(conversation, saver)
    call = ToolCallPart(name="echo", arguments=deep)
    turn = [Message.user("hi"), Message.assistant("look", [call]),
            Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name="echo",
                                                          content="out", is_error=True)]),
            Message.assistant("done")]
    for message in turn:
        conversation.append(message)
    assert saver.failures == 0
    assert [r[0] for r in db_rows(home / "deep.db")] == [m.id for m in turn]
    loaded = store.load(conversation.id, resume=True)
    assert loaded.messages()[1].tool_calls[0].raw_arguments == UNSTORABLE_ARGUMENTS
    assert loaded.messages()[-1].text == "done"
    store.close()


# ------------------------------------------------------------------------ broken sessions


def _row(con: sqlite3.Connection, session: str, message: Message, seq: int) -> None:
    con.execute("INSERT INTO messages(id, session_id, parent_id, seq, role, text, json,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (message.id, session, message.parent_id, seq, message.role.value, message.text,
                 message.model_dump_json(), message.created_at))


def _tool(parent: str, call_id: str = "call_lost") -> Message:
    return Message(role=Role.TOOL, parent_id=parent, parts=[
        ToolResultPart(call_id=call_id, name="echo", content="output of a lost call")])


def _answer(parent: str, text: str) -> Message:
    return Message(role=Role.ASSISTANT, parent_id=parent, parts=[TextPart(text=text)])


def break_session(db: Path, how: str) -> tuple[str, list[str], str]:
    """Store a good turn through the store, then add what an older chatcli left behind.
    Returns (session id, the ids that must be dropped, the head the repair must choose)."""
    from chatcli_sessions.store import SessionStore

    store = SessionStore(db)
    conversation = Conversation()

    class Save:
        @hookimpl
        def message_appended(self, conversation: Conversation, message: Message) -> None:
            store.append(conversation, message)

    _observed(conversation, Save())
    conversation.append(Message.user("first question"))
    good = conversation.append(Message.assistant("first answer"))
    prompt = conversation.append(Message.user("second question"))
    store.close()
    session = conversation.id
    con = sqlite3.connect(db)
    seq = 3
    dropped: list[str] = []
    head: str | None = None
    expected_head = prompt.id

    def add(message: Message) -> Message:
        nonlocal seq
        seq += 1
        _row(con, session, message, seq)
        return message

    if how == "tool result without its call":
        head = add(_tool("msg_neversaved")).id
        dropped = [head]
    elif how == "tool result and the answers after it":
        tool = add(_tool("msg_neversaved"))
        answer = add(_answer(tool.id, "answer after the lost call"))
        head = answer.id
        dropped = [tool.id, answer.id]
    elif how == "orphan on a branch the head is not on":
        dropped = [add(_tool("msg_neversaved")).id]
        head = expected_head = prompt.id
    elif how == "parents in a loop":
        a = Message(id="msg_loop_a", role=Role.ASSISTANT, parent_id="msg_loop_b",
                    parts=[TextPart(text="a")])
        b = Message(id="msg_loop_b", role=Role.TOOL, parent_id="msg_loop_a",
                    parts=[ToolResultPart(call_id="c", name="echo", content="b")])
        add(a)
        add(b)
        dropped, head = [a.id, b.id], a.id
    elif how == "head names a message never saved":
        dropped = [add(_tool("msg_neversaved")).id]
        head = "msg_gone_too"
    elif how == "checkpoint at a dropped message":
        tool = add(_tool("msg_neversaved"))
        con.execute("INSERT INTO checkpoints(id, session_id, head, label, created_at)"
                    " VALUES ('cp_broken', ?, ?, 'lost', ?)", (session, tool.id, time.time()))
        dropped, head = [tool.id], tool.id
    con.execute("UPDATE sessions SET head = ?, updated_at = ? WHERE id = ?",
                (head, time.time() + 10, session))
    con.commit()
    con.close()
    assert good.id not in dropped
    return session, dropped, expected_head


#: Ways an older chatcli (or a crash between two writes) left a session: one line each.
BROKEN = [
    "tool result without its call",
    "tool result and the answers after it",
    "orphan on a branch the head is not on",
    "parents in a loop",
    "head names a message never saved",
    "checkpoint at a dropped message",
]


@pytest.mark.parametrize("how", BROKEN)
def test_a_broken_session_is_repaired_on_load(how: str, home: Path, db_path: Path) -> None:
    session, dropped, head = break_session(db_path, how)
    work = home / "work"
    work.mkdir()
    result = chat("--resume", session, "-p", "again", script=[{"text": "again ok"}], cwd=work)
    assert result.returncode == 0, result.stderr
    assert "KeyError" not in result.stderr and "unexpected" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert f"dropped {len(dropped)} saved message" in lines[0] and session in lines[0]
    assert dropped[0] in lines[0]
    assert "again ok" in result.stdout
    rows = db_rows(db_path)
    assert orphans(db_path) == [] and not set(dropped) & {r[0] for r in rows}
    texts = [json.loads(r[3])["parts"][0].get("text") for r in rows]
    assert texts[:3] == ["first question", "first answer", "second question"]
    assert rows[-2][1] == head  # the new prompt follows the chosen head
    with sqlite3.connect(db_path) as con:
        assert con.execute("SELECT COUNT(*) FROM checkpoints WHERE id = 'cp_broken'"
                           ).fetchone()[0] == 0
    # repaired once: the next run says nothing
    later = chat("--resume", session, "-p", "third", script=[{"text": "third ok"}], cwd=work)
    assert later.returncode == 0 and later.stderr == "", later.stderr


@pytest.mark.parametrize("how", BROKEN[:2])
def test_show_and_export_of_a_broken_session(how: str, home: Path, db_path: Path) -> None:
    from chatcli_sessions.cli import sessions
    from click.testing import CliRunner

    session, dropped, _head = break_session(db_path, how)
    runner = CliRunner()
    shown = runner.invoke(sessions, ["show", session])
    assert shown.exit_code == 0, shown.output
    assert "second question" in shown.output and "lost call" not in shown.output
    target = home / "broken.json"
    exported = runner.invoke(sessions, ["export", session, "--format", "json", "-o", str(target)])
    assert exported.exit_code == 0, exported.output
    data = json.loads(target.read_text())
    assert not {m["id"] for m in data["messages"]} & set(dropped)
    imported = runner.invoke(sessions, ["import", str(target), "--new-id"])
    assert imported.exit_code == 0, imported.output
    # not resumed: the stored rows stay as they were (show and export only read)
    assert set(dropped) <= {r[0] for r in db_rows(db_path)}


# ------------------------------------------------------------------------ any text, Hypothesis

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: Every code point (surrogates and NUL included), with the troublemakers made likely.
_chars = st.one_of(st.characters(codec=None, exclude_categories=()),
                   st.sampled_from([SUR, LOW, "\udfff", NUL, "\x01", "\x1b", "\ud83d", "\ude00",
                                    "\ufffd", "\u2028", "\U0010ffff"]))
any_text = st.text(_chars, max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | any_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=8,
)
arguments = st.dictionaries(any_text, json_values, max_size=4)

STORE_EXAMPLES = 150


def _build(user: str, answer: str, args: dict[str, Any], output: str, name: str,
           observer: object | None) -> Conversation:
    conversation = Conversation()
    if observer is not None:
        _observed(conversation, observer)
    conversation.checkpoint(user)
    conversation.append(Message.user(user))
    call = ToolCallPart(name=name, arguments=args)
    conversation.append(Message.assistant(answer, [call]))
    conversation.append(Message(role=Role.TOOL, parts=[
        ToolResultPart(call_id=call.id, name=name, content=output, is_error=True)]))
    conversation.append(Message.assistant(answer + output))
    return conversation


def _dump(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.model_dump(mode="json") for m in messages]


@settings(max_examples=STORE_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(user=any_text, answer=any_text, args=arguments, output=any_text, name=any_text)
def test_any_text_round_trips_through_the_store(user: str, answer: str, args: dict[str, Any],
                                                output: str, name: str, home: Path) -> None:
    from chatcli_sessions.export import render
    from chatcli_sessions.restore import read_export
    from chatcli_sessions.store import SessionStore

    store = SessionStore(home / "hypothesis.db", synchronous="OFF")
    try:

        class Save:
            @hookimpl
            def message_appended(self, conversation: Conversation, message: Message) -> None:
                store.append(conversation, message)

        conversation = _build(user, answer, args, output, name, Save())
        log = conversation.messages()
        # the log holds safe text only, and the same text where nothing needed replacing
        for message in log:
            for text in all_strings(message.model_dump(mode="json")):
                assert is_safe(text)
        assert log[0].text == safe_text(user)
        assert log[2].tool_results[0].content == safe_text(output)
        # save, load, resume: the same messages, stably
        loaded = store.load(conversation.id)
        assert _dump(loaded.messages()) == _dump(log)
        resumed = store.load(conversation.id, resume=True)
        assert _dump(resumed.messages()) == _dump(log)
        assert _dump(store.load(conversation.id).messages()) == _dump(log)
        # export and import: the same messages under a new id
        info = store.info(conversation.id)
        exported = render(loaded, "json", info)
        exported.encode("utf-8")
        imported = read_export(exported.encode("utf-8"), "export.json", new_id="s_copy")
        store.import_session(imported.conversation, name=None, created_at=1.0, updated_at=2.0,
                             provider=None, model=None, forked_from=None)
        assert _dump(store.load("s_copy").messages()) == _dump(log)
        store.delete("s_copy")
        # and the stored text is valid UTF-8 JSON for any other reader
        with sqlite3.connect(home / "hypothesis.db") as con:
            for (raw,) in con.execute("SELECT CAST(json AS BLOB) FROM messages"):
                json.loads(raw.decode("utf-8"))
    finally:
        store.close()


@settings(max_examples=STORE_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(user=any_text, answer=any_text, args=arguments, output=any_text, name=any_text,
       fields=st.lists(any_text, min_size=5, max_size=5))
def test_an_import_with_any_escaped_text_is_stored_safe(
        user: str, answer: str, args: dict[str, Any], output: str, name: str, fields: list[str],
        home: Path) -> None:
    """An export file written by hand (or by an older chatcli) may spell any character with a
    JSON escape, in any field; importing it stores safe text and never fails on it."""
    from chatcli import Checkpoint
    from chatcli_sessions.restore import read_export
    from chatcli_sessions.store import SessionStore

    call = ToolCallPart(name=name, arguments=args)
    raw = [Message.user(user), Message.assistant(answer, [call]),
           Message(role=Role.TOOL, parts=[ToolResultPart(call_id=call.id, name=name,
                                                         content=output)])]
    raw[0].id = "msg_" + fields[4]  # an id that needs replacing, referenced by its child
    for parent, child in itertools.pairwise(raw):
        child.parent_id = parent.id
    title, session_name, provider, model, _ = fields
    checkpoint = Checkpoint(head=raw[0].id, label=user)
    data = {"format": "chatcli-session", "version": 1,
            "session": {"id": "s_hand", "title": title, "name": session_name or None,
                        "provider": provider, "model": model},
            "messages": [m.model_dump(mode="python") for m in raw], "head": raw[-1].id,
            "checkpoints": [checkpoint.model_dump(mode="python")]}
    text = json.dumps(data, ensure_ascii=True, default=str)  # escapes, as a hand may write
    imported = read_export(text.encode("ascii"), "hand.json")
    for message in imported.conversation.all_messages():
        assert all(is_safe(s) for s in all_strings(message.model_dump(mode="json")))
    store = SessionStore(home / "imports.db", synchronous="OFF")
    try:
        store.import_session(imported.conversation, name=imported.name,
                             created_at=1.0, updated_at=2.0, provider=imported.provider,
                             model=imported.model, forked_from=None)
        loaded = store.load("s_hand")
        assert [m.text for m in loaded.messages()] == [safe_text(user), safe_text(answer), ""]
        assert loaded.messages()[2].tool_results[0].content == safe_text(output)
        assert [c.label for c in loaded.checkpoints] == [safe_text(user[:80])]
        info = store.info("s_hand")
        assert info is not None and all(is_safe(v) for v in (info.title, info.provider or "",
                                                             info.model or "", info.name or ""))
        store.delete("s_hand")
    finally:
        store.close()


@settings(max_examples=500, deadline=None)
@given(st.text(_chars, max_size=200))
def test_safe_text_replaces_exactly_what_cannot_be_stored(text: str) -> None:
    made = safe_text(text)
    made.encode("utf-8")
    assert "\x00" not in made
    assert safe_text(made) == made  # stable
    if "\x00" not in text:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            assert made is text  # clean text is never touched


if __name__ == "__main__":
    sys.exit(main())
