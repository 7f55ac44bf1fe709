"""`chatcli sessions import`: a JSON export restored whole, or refused in one line (real CLI)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from chatcli import PluginHost, Settings, attach_hooks
from chatcli_sessions.store import SessionStore
from sessions_helpers import turn
from test_cli import CHATCLI, run_chatcli


def run_with_input(*args: str, stdin: str) -> subprocess.CompletedProcess:
    """``chatcli ARGS`` with ``stdin`` as its standard input."""
    return subprocess.run([str(CHATCLI), *args], input=stdin, capture_output=True, text=True,
                          timeout=60, env=dict(os.environ))


def listed() -> list[dict]:
    """``chatcli sessions list --json``."""
    result = run_chatcli("sessions", "list", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def one_line_error(result: subprocess.CompletedProcess) -> str:
    """The single error line of a failed run (exit code 2)."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


@pytest.fixture
def long_session(home: Path, host: PluginHost, openai_server) -> tuple[str, dict[str, str]]:
    """A named session with three real turns, a rewind and a branch; returns (id, env)."""
    from chatcli_testing import Reply

    env = dict(os.environ, OPENAI_API_KEY="test", OPENAI_BASE_URL=openai_server.url)
    openai_server.script(Reply(text="Paris."), Reply(text="About 2.1 million."),
                         Reply(text="```python\nprint('x')\n```"))
    assert run_chatcli("--provider", "openai", "-p", "capital of France?", env=env).returncode == 0
    for question in ("its population?", "a script printing x"):
        result = run_chatcli("--provider", "openai", "-c", "-p", question, env=env)
        assert result.returncode == 0, result.stderr
    conversation = host.hooks.open_conversation(settings=Settings(), resume=None,
                                                continue_last=True)
    attach_hooks(conversation, host)
    conversation.rewind(conversation.checkpoints[-1].id)  # before "a script printing x"
    turn(conversation, "and in Germany?", "Around 83 million.")  # a second branch
    with SessionStore(home / "data" / "sessions.db") as store:
        store.save(conversation, "geo")
    return conversation.id, env


def test_export_delete_import_restores_the_session_whole(
    long_session: tuple[str, dict[str, str]], tmp_path: Path, openai_server
) -> None:
    from chatcli_testing import Reply

    session_id, env = long_session
    shown = run_chatcli("sessions", "show", session_id).stdout
    export = tmp_path / "geo.json"
    assert run_chatcli("sessions", "export", "geo", "--format", "json",
                       "-o", str(export)).returncode == 0
    original = json.loads(export.read_text())
    assert len(original["messages"]) == 8 and len(original["checkpoints"]) == 4
    assert run_chatcli("sessions", "delete", session_id).returncode == 0
    assert listed() == []

    result = run_chatcli("sessions", "import", str(export))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"Imported session {session_id}: 8 messages, 4 checkpoints"
    assert run_chatcli("sessions", "show", "geo").stdout == shown
    again = run_chatcli("sessions", "export", session_id, "--format", "json")
    assert json.loads(again.stdout) == original  # ids, parents, branches, head, checkpoints

    openai_server.script(Reply(text="Berlin, too."))
    result = run_chatcli("--provider", "openai", "--resume", "geo", "-p", "its capital?",
                         env=env)
    assert result.returncode == 0, result.stderr
    assert "Berlin, too." in result.stdout
    sent = [m["content"] for m in openai_server.requests[-1].json["messages"][1:]]
    assert sent == ["capital of France?", "Paris.", "its population?", "About 2.1 million.",
                    "and in Germany?", "Around 83 million.", "its capital?"]


def test_an_existing_id_is_refused_and_new_id_imports_a_copy(
    long_session: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    session_id, _ = long_session
    text = run_chatcli("sessions", "export", session_id, "--format", "json").stdout
    line = one_line_error(run_with_input("sessions", "import", "-", stdin=text))
    assert line == (f"chatcli: error: session {session_id} already exists — delete it first "
                    f"(chatcli sessions delete {session_id}) or import a copy with --new-id")
    line = one_line_error(run_with_input("sessions", "import", "--new-id", "-", stdin=text))
    assert "the name 'geo' is already used" in line and "--name" in line
    assert len(listed()) == 1  # nothing was written

    result = run_with_input("sessions", "import", "--new-id", "--name", "geo-copy", "-",
                            stdin=text)
    assert result.returncode == 0, result.stderr
    copy_id = result.stdout.split()[2].rstrip(":")
    assert copy_id != session_id and f"(a copy of {session_id})" in result.stdout
    copy = json.loads(run_chatcli("sessions", "export", "geo-copy", "--format", "json").stdout)
    source = json.loads(text)
    assert copy["messages"] == source["messages"] and copy["head"] == source["head"]
    assert copy["checkpoints"] == source["checkpoints"]
    assert copy["session"]["name"] == "geo-copy" and copy["session"]["id"] == copy_id
    assert {s["id"] for s in listed()} == {session_id, copy_id}


def test_a_file_name_that_is_not_utf8_still_imports(
    long_session: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    session_id, _ = long_session
    export = os.path.join(os.fsencode(tmp_path), b"caf\xe9.json")
    with open(export, "wb") as handle:
        handle.write(run_chatcli("sessions", "export", session_id, "--format", "json")
                     .stdout.encode())
    assert run_chatcli("sessions", "delete", session_id).returncode == 0
    result = subprocess.run([os.fsencode(str(CHATCLI)), b"sessions", b"import", export],
                            capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert [s["id"] for s in listed()] == [session_id]


def _export(**changes: object) -> str:
    """A small valid export with ``changes`` applied (a value of None removes the key)."""
    data: dict = {
        "format": "chatcli-session", "version": 1,
        "session": {"id": "s_0123456789abcdef", "name": None, "title": "t", "created_at": 1.0,
                    "updated_at": 2.0, "provider": None, "model": None},
        "head": "msg_b",
        "messages": [
            {"id": "msg_a", "parent_id": None, "role": "user",
             "parts": [{"type": "text", "text": "hi"}], "created_at": 1.0},
            {"id": "msg_b", "parent_id": "msg_a", "role": "assistant",
             "parts": [{"type": "text", "text": "hello"}], "created_at": 2.0},
        ],
        "checkpoints": [{"id": "cp_1", "head": None, "label": "hi", "created_at": 1.0}],
    }
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return json.dumps(data)


def _messages(*parents: tuple[str, str | None]) -> list[dict]:
    return [{"id": i, "parent_id": p, "role": "user", "parts": []} for i, p in parents]


@pytest.mark.parametrize(("content", "problem"), [
    ("", "the file is empty"),
    ("{not json", "not JSON (Expecting property name enclosed in double quotes at line 1"),
    ('[{"role": "user", "content": "hi"}]', 'not a chatcli session export (no "format"'),
    ('{"messages": []}', 'not a chatcli session export'),
    (_export(version=9), "written by a newer chatcli (export version 9) — upgrade"),
    (_export(version="1"), "unknown export version '1'"),
    (_export(session={"id": "has space"}), "the session id is missing or malformed"),
    (_export(messages=[{"id": "m", "role": "wizard"}]), "message 1 is invalid (role: Input"),
    (_export(messages="many"), "'messages' has the wrong type (str)"),
    (_export(messages=_messages(("m1", None), ("m2", "gone"))),
     "message m2 has the parent gone, which is not in the file"),
    (_export(head="m2", messages=_messages(("m1", "m2"), ("m2", "m1"))),
     "is its own ancestor"),
    (_export(messages=_messages(("m1", None), ("m1", None))), "two messages have the same id"),
    (_export(head="msg_zz"), "the head msg_zz is not one of its messages"),
    (_export(checkpoints=[{"id": "cp", "head": "msg_zz", "label": "x"}]),
     "checkpoint 1 points at msg_zz, not in the file"),
    (_export(checkpoints=[{"head": None}]), "checkpoint 1 is invalid (label: Field required)"),
])
def test_malformed_or_foreign_files_are_one_line_and_import_nothing(
    home: Path, tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    line = one_line_error(run_chatcli("sessions", "import", str(path)))
    assert line.startswith(f"chatcli: error: cannot import {path}: ")
    assert problem in line, line
    assert listed() == []


def test_unreadable_and_non_utf8_files_are_one_line(home: Path, tmp_path: Path) -> None:
    line = one_line_error(run_chatcli("sessions", "import", str(tmp_path / "none.json")))
    assert line == (f"chatcli: error: cannot read {tmp_path / 'none.json'}: No such file or "
                    "directory — check the path")
    (tmp_path / "latin1.json").write_bytes(b'{"format": "caf\xe9"}')
    line = one_line_error(run_chatcli("sessions", "import", str(tmp_path / "latin1.json")))
    assert "latin1.json: not UTF-8 text (byte 15)" in line
    line = one_line_error(run_with_input("sessions", "import", "-", stdin="nope"))
    assert line.startswith("chatcli: error: cannot import standard input: not JSON")
    assert listed() == []


def test_a_valid_minimal_export_imports(home: Path) -> None:
    result = run_with_input("sessions", "import", "-", stdin=_export())
    assert result.returncode == 0, result.stderr
    [info] = listed()
    assert info["id"] == "s_0123456789abcdef" and info["messages"] == 2 and info["head"] == "msg_b"
    assert info["created_at"] == 1.0 and info["updated_at"] == 2.0 and info["title"] == "t"
