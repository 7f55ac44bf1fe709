"""Pull off (``[context] pull = false``, ``CHATCLI_CHAT_CONTEXT_PULL=false``, ``/context pull
off``) disarms every deferral: the request is the full, uncurated one, byte for byte — and
with pull on and nothing deferred, the request is that same one (the curation costs nothing
until it defers something)."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

import pytest
from chatcli import Compaction, Message, Role, TextPart
from context_support import cli, openai_system, tool_names, write


def _material(workspace: Path) -> None:
    write(workspace, "AGENTS.md", "".join(f"rule {i:03d}\n" for i in range(300)))  # 2,700
    write(workspace, "docs/a.md", "# A\n" + "a" * 2000 + "\n")
    write(workspace, "docs/b.md", "# B\n" + "b" * 2000 + "\n")


def _setup(session: Any) -> None:
    session.command("create docs docs")
    session.command("attach docs")


def _uncurated(workspace: Path) -> str:
    """The prompt as chatcli sent it before curation: every attached context whole, a cut
    file naming its path, nothing about context_pull — written out by hand."""
    kept = "\n".join(f"rule {i:03d}" for i in range(111))  # whole lines: 999 characters
    return "\n\n".join([
        "You are chatcli, an AI assistant in a developer's terminal. Answer concisely in "
        "markdown. Use the tools you are given when they help; never invent their results.",
        'Attached context "docs" (2 files, 4,010 characters):',
        '<file path="docs/a.md">\n# A\n' + "a" * 2000 + "\n</file>",
        '<file path="docs/b.md">\n# B\n' + "b" * 2000 + "\n</file>",
        f"Contents of AGENTS.md (project file {workspace / 'AGENTS.md'}):",
        kept,
        "[AGENTS.md is cut here: the first 999 of its 2,699 characters are above. The whole "
        f"file: {workspace / 'AGENTS.md'}]",
        f"Today is {_dt.date.today().isoformat()}.",
    ])


SETTINGS = {"prompt_budget": 1000, "bootstrap_max_chars": 1000}


@pytest.mark.parametrize("how", ["setting", "env", "command"])
def test_pull_off_sends_the_uncurated_prompt_byte_for_byte(
        how: str, chat: Any, openai_server: Any, workspace: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    _material(workspace)
    if how == "env":
        monkeypatch.setenv("CHATCLI_CHAT_CONTEXT_PULL", "false")
    session = chat(context={**SETTINGS, "pull": how != "setting"})
    _setup(session)
    if how == "command":
        assert "context_pull is off for this session" in session.command("pull off")
    session.turn("hello")
    request = openai_server.requests[0]
    assert openai_system(request) == _uncurated(workspace)
    assert "tools" not in request.json
    assert "context_pull" not in str(request.json)
    assert session.request().system_text() == _uncurated(workspace)


def test_pull_on_defers_and_cites_calls_where_pull_off_shows_everything(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    _material(workspace)
    session = chat(context=SETTINGS)
    _setup(session)
    session.turn("hello")
    assert "context_pull is off" in session.command("pull off")
    session.turn("hello again")
    assert "context_pull is on" in session.command("pull on")
    session.turn("and once more")
    curated, uncurated, again = openai_server.requests
    assert tool_names(curated) == ["context_pull"] == tool_names(again)
    assert "tools" not in uncurated.json
    # the same bytes as a run that had pull off from the start
    assert openai_system(uncurated) == _uncurated(workspace)
    curated_system = openai_system(curated)
    assert '{"kind":"context","name":"docs"}' in curated_system
    assert '{"kind":"bootstrap","name":"AGENTS.md","offset":999}' in curated_system
    assert "a" * 2000 not in curated_system
    assert openai_system(again) == curated_system


def test_a_compaction_note_is_disarmed_with_pull_off(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"pull": False})
    session.turn("the word is heron")
    path = session.conversation.messages()
    session.conversation.compact(Compaction(
        first=path[0].id, last=path[1].id,
        replacement=[Message(role=Role.USER, parts=[TextPart(text="[summary]")])]))
    session.turn("what was it?")
    assert "context_pull" not in str(openai_server.requests[1].json)
    assert "compacted" not in openai_system(openai_server.requests[1])


def test_with_nothing_deferred_pull_on_sends_exactly_the_pull_off_request(
        openai_server: Any, workspace: Path) -> None:
    from context_support import Chat

    write(workspace, "AGENTS.md", "Be brief.\n")
    write(workspace, "docs/a.md", "short\n")
    bodies = []
    for pull in (True, False):
        openai_server.reset()
        session = Chat(openai_server, workspace, context={"pull": pull})
        session.command("create docs docs" if pull else "list")
        session.command("attach docs")
        session.turn("hello")
        bodies.append(openai_server.requests[0].body)
        session.close()
    assert bodies[0] == bodies[1]


def test_pull_status_says_where_the_setting_comes_from(
        chat: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _material(workspace)
    session = chat(context=SETTINGS)
    _setup(session)
    out = session.command("pull status")
    assert "context_pull is on (from the default)" in out
    assert 'context_pull {"kind":"context","name":"docs"}' in out
    assert "the tool is offered to the model" in out
    monkeypatch.setenv("CHATCLI_CHAT_CONTEXT_PULL", "off")
    assert "context_pull is off (from CHATCLI_CHAT_CONTEXT_PULL)" in chat().command("pull")
    monkeypatch.delenv("CHATCLI_CHAT_CONTEXT_PULL")
    assert "context_pull is off (from [context] pull)" in chat(context={"pull": "no"}).command(
        "pull")


def test_the_variable_is_honoured_by_the_command_line(
        openai_server: Any, workspace: Path, home: Path) -> None:
    _material(workspace)
    done = cli(home, workspace, openai_server, "-p", "/context create docs docs")
    assert done.returncode == 0, done.stderr
    cli(home, workspace, openai_server, "-p", "hello")
    done = cli(home, workspace, openai_server, "-c", "-p", "/context attach docs")
    assert "attached" in done.stdout, done.stderr
    for pull in ("true", "false"):
        done = cli(home, workspace, openai_server, "-c", "-p", "question",
                   CHATCLI_CHAT_CONTEXT_PULL=pull,
                   CHATCLI_CONTEXT__BOOTSTRAP_MAX_CHARS="1000",
                   CHATCLI_CONTEXT__PROMPT_BUDGET="1000")
        assert done.returncode == 0, done.stderr
    curated, uncurated = openai_server.requests[-2:]
    assert tool_names(curated) == ["context_pull"]
    assert openai_system(uncurated) == _uncurated(workspace)
    assert "context_pull" not in str(uncurated.json)
