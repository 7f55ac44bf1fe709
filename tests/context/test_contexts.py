"""``/context create|attach|detach|list|show|delete``: named snapshots of files, folders and
globs (binary refused, ``.gitignore`` respected, caps), stored privately, attached to the
conversation as stable sections that do not change turn after turn."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from chatcli import data_dir
from context_support import openai_stable_prefix, openai_system, write


def _docs(workspace: Path) -> None:
    write(workspace, "docs/intro.md", "# Intro\nWelcome.\n")
    write(workspace, "docs/api/get.md", "# GET /items\nLists items.\n")
    write(workspace, "docs/logo.png", "")
    (workspace / "docs/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    write(workspace, "docs/build/out.md", "generated\n")
    write(workspace, "docs/notes.tmp", "scratch\n")
    write(workspace, ".gitignore", "build/\n*.tmp\n")


def test_create_list_show_attach_detach_delete(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    _docs(workspace)
    session = chat()
    out = session.command("create docs docs")
    assert 'created context "docs": 2 files, 43 characters (from docs)' in out
    assert "refused docs/logo.png: binary file (not UTF-8 text)" in out
    assert "2 paths left out: .gitignore excludes them" in out  # build/ and notes.tmp
    assert "/context attach docs" in out
    out = session.command("list")
    assert "  docs  2 files, 43 characters" in out
    out = session.command("show docs")
    assert 'context "docs": 2 files, 43 characters' in out and "not attached" in out
    assert "docs/api/get.md" in out and "docs/intro.md" in out
    assert "refused when created: docs/logo.png (binary file (not UTF-8 text))" in out

    out = session.command("attach docs")
    assert 'attached "docs" (2 files, 43 characters): in the prompt whole' in out
    assert "* docs" in session.command("list")
    session.turn("what do the docs say?")
    system = openai_system(openai_server.requests[-1])
    assert ('Attached context "docs" (2 files, 43 characters):\n\n'
            '<file path="docs/intro.md">\n# Intro\nWelcome.\n</file>\n\n'
            '<file path="docs/api/get.md">\n# GET /items\nLists items.\n</file>') in system
    assert system.index("You are chatcli") < system.index('Attached context "docs"')

    assert "detached docs" in session.command("detach docs")
    session.turn("and now?")
    assert 'Attached context "docs"' not in openai_system(openai_server.requests[-1])

    session.command("attach docs")
    assert 'deleted context "docs" (and detached it)' in session.command("delete docs")
    assert "No contexts yet" in session.command("list")
    assert "error: no context named 'docs'" in session.command("show docs")


def test_a_model_without_tools_gets_the_attached_context(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    # a lean request (a small model, [providers.NAME] tools = false) keeps what the user
    # attached
    _docs(workspace)
    session = chat(provider_options={"tools": False})
    session.command("create docs docs")
    session.command("attach docs")
    session.turn("what do the docs say?")
    request = openai_server.requests[-1]
    assert "tools" not in request.json
    assert '<file path="docs/intro.md">\n# Intro\nWelcome.\n</file>' in openai_system(request)


def test_globs_explicit_files_and_refusals(chat: Any, workspace: Path) -> None:
    _docs(workspace)
    write(workspace, "src/a.py", "print('a')\n")
    write(workspace, "src/deep/b.py", "print('b')\n")
    write(workspace, "src/build/gen.py", "ignored\n")
    write(workspace, ".gitignore", "build/\n*.tmp\n")
    session = chat()
    out = session.command("create code 'src/**/*.py' docs/notes.tmp missing.txt")
    assert 'created context "code": 3 files' in out  # a.py, deep/b.py, notes.tmp (by name)
    assert "not found: missing.txt" in out
    out = session.command("show code")
    assert "src/build/gen.py" not in out and "docs/notes.tmp" in out
    assert "a context named 'code' exists" in session.command("create code src")
    assert "is not a context name" in session.command("create ../x src")
    assert "usage: /context create NAME PATH" in session.command("create lonely")
    out = session.command("create images docs/logo.png")
    assert "error: nothing to put in 'images': refused: docs/logo.png (binary file" in out
    assert "images" not in session.command("list")
    assert "no context named 'nope'" in session.command("attach nope")


def test_caps_per_file_per_context_and_files(chat: Any, workspace: Path) -> None:
    for index in range(5):
        write(workspace, f"data/f{index}.txt", "x" * 400)
    write(workspace, "data/huge.txt", "y" * 2000)
    session = chat(context={"file_max_chars": 1000, "context_max_chars": 1000,
                            "context_max_files": 10})
    out = session.command("create data data")
    assert 'created context "data": 2 files, 800 characters' in out
    assert "refused data/f2.txt: the context would pass its 1,000 characters" in out
    assert "refused data/huge.txt: 2,000 characters, over the 1,000 of file_max_chars" in out
    session = chat(context={"context_max_files": 3})
    out = session.command("create three data")
    assert "3 files" in out and "the context already has 3 files" in out


def test_contexts_are_stored_privately(chat: Any, workspace: Path) -> None:
    write(workspace, "notes.md", "secret plans\n")
    session = chat()
    session.command("create notes notes.md")
    session.command("attach notes")
    folder = data_dir() / "contexts"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for path in folder.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    stored = json.loads((folder / "notes.json").read_text())
    assert stored["files"] == [{"path": "notes.md", "text": "secret plans\n"}]
    assert not list(folder.glob(".*.json.*"))  # no temporary file left behind


def test_an_attached_context_is_a_snapshot_byte_identical_turn_after_turn(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    notes = write(workspace, "notes.md", "version one\n")
    session = chat()
    session.command("create notes notes.md")
    session.command("attach notes")
    for question in ("one", "two", "three"):
        session.turn(question)
    notes.write_text("version two: the file changed, the snapshot does not\n")
    session.turn("four")
    prefixes = [openai_stable_prefix(r) for r in openai_server.requests]
    assert len(set(prefixes)) == 1 and "version one" in prefixes[0]


def test_attachments_come_back_with_the_conversation(
        openai_server: Any, workspace: Path) -> None:
    from context_support import Chat

    write(workspace, "notes.md", "remember the milk\n")
    first = Chat(openai_server, workspace, conversation_id="s_resumed")
    first.command("create notes notes.md")
    first.command("attach notes")
    first.turn("hi")
    first.close()
    # a store that keeps no metadata gives the conversation back without it
    second = Chat(openai_server, workspace, conversation_id="s_resumed")
    assert second.conversation.metadata["contexts"] == ["notes"]
    second.turn("again")
    assert openai_stable_prefix(openai_server.requests[0]) == openai_stable_prefix(
        openai_server.requests[1])
    other = Chat(openai_server, workspace, conversation_id="s_other")
    other.turn("elsewhere")
    assert "remember the milk" not in openai_system(openai_server.requests[2])
    second.close()
    other.close()


def test_a_prompt_is_built_for_the_conversation_it_is_for(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    """prompt_sections names its conversation: a request built for a conversation that is not
    the one worked on last (another session of the process opened since), even one with no
    message to recognise it by, carries that conversation's attachments and no other's."""
    from chatcli import Session

    _docs(workspace)
    first = chat()
    first.command("create docs docs")
    first.command("attach docs")
    second = Session(first.host, first.settings, workspace=workspace).open()
    try:
        ours = system_text(first.session.engine.build_request(first.conversation))
        theirs = system_text(second.engine.build_request(second.conversation))
    finally:
        second.close()
    assert 'Attached context "docs"' in ours
    assert 'Attached context "docs"' not in theirs


def system_text(request: Any) -> str:
    return "\n\n".join(section.text for section in request.ordered_system())
