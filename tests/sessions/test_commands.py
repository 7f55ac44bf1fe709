"""The /session, /rewind and /fork slash commands, driven through a ChatApp."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_sessions.store import SessionStore
from sessions_helpers import FakeApp, path_texts, turn


def test_the_plugin_registers_its_commands(host: PluginHost) -> None:
    commands = host.slash_commands()
    assert {"session", "rewind", "fork"} <= set(commands)
    assert commands["session"].subcommands == [
        "new", "save", "load", "list", "delete", "fork", "export", "search"
    ]
    assert "undo" in commands["rewind"].subcommands


def test_rewind_menu_moves_back_and_prefills_the_message(app: FakeApp, db_path: Path) -> None:
    turn(app.conversation, "first question")
    turn(app.conversation, "second question\nwith a second line")
    turn(app.conversation, "third question")
    app.picks = [1]  # newest first: third, second, first
    out = app.run("/rewind")
    title, options = app.pick_calls[0]
    assert "Rewind" in title
    assert [o.split("  ", 1)[1] for o in options] == [
        "third question", "second question", "first question"
    ]
    assert options[0][:2].isdigit()  # the time comes first
    assert path_texts(app.conversation) == ["first question", "answer to first question"]
    assert app.prefilled == ["second question\nwith a second line"]  # the whole message
    assert "Rewound to before “second question”" in out
    with SessionStore(db_path) as store:
        assert path_texts(store.load(app.conversation.id)) == [
            "first question", "answer to first question"
        ]
    out = app.run("/rewind undo")
    assert "6 messages" in out
    assert len(app.conversation.messages()) == 6
    assert "Nothing to undo" in app.run("/rewind undo")


def test_rewind_cancelled_and_empty(app: FakeApp) -> None:
    assert "No checkpoints yet" in app.run("/rewind")
    turn(app.conversation, "q")
    app.picks = [None]
    assert "cancelled" in app.run("/rewind")
    assert len(app.conversation.messages()) == 2
    assert "no single checkpoint matches 'zz'" in app.run("/rewind zz")


def test_session_new_save_list_load_delete(app: FakeApp, db_path: Path) -> None:
    turn(app.conversation, "about [b]databases[/b]")
    first = app.conversation.id
    assert "Saved session" in app.run("/session save db-notes")
    out = app.run("/session new")
    assert "new session" in out
    assert app.conversation.id != first and app.conversation.messages() == []
    turn(app.conversation, "about gardening")
    second = app.conversation.id

    listing = app.run("/session list")
    assert "db-notes" in listing and "about [b]databases[/b]" in listing
    assert "about gardening" in listing
    current_line = next(line for line in listing.splitlines() if second in line)
    assert current_line.lstrip().startswith("*")

    out = app.run("/session load db-notes")
    assert app.conversation.id == first
    assert path_texts(app.conversation) == [
        "about [b]databases[/b]", "answer to about [b]databases[/b]"
    ]
    assert "Loaded session" in out and "about [b]databases[/b]" in out
    turn(app.conversation, "more on databases")  # the loaded session keeps being saved
    with SessionStore(db_path) as store:
        assert store.info(first).messages == 4

    app.picks = [1]  # the menu: newest first; `first` was just updated, so index 1 = second
    app.run("/session load")
    assert app.conversation.id == second
    assert "about gardening" in app.pick_calls[-1][1][1]

    out = app.run(f"/session delete {second}")
    assert "Deleted session" in out and "started a new one" in out
    assert app.conversation.id != second
    with SessionStore(db_path) as store:
        assert [s.id for s in store.list()] == [first]


def test_session_fork(app: FakeApp, db_path: Path) -> None:
    assert "nothing to fork" in app.run("/fork")
    turn(app.conversation, "base")
    original = app.conversation.id
    out = app.run("/session fork")
    assert "Forked into session" in out
    assert app.conversation.id != original
    turn(app.conversation, "only in the fork")
    with SessionStore(db_path) as store:
        assert len(store.load(original).log) == 2
        assert len(store.load(app.conversation.id).log) == 4


def test_session_export(app: FakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    turn(app.conversation, "export me", "**exported**")
    target = tmp_path / "out.json"
    assert "(json) to" in app.run(f"/session export json {target}")
    data = json.loads(target.read_text())
    assert [m["role"] for m in data["messages"]] == ["user", "assistant"]
    monkeypatch.chdir(tmp_path)
    app.run("/session export")
    markdown = (tmp_path / f"{app.conversation.id}.md").read_text()
    assert "## User\n\nexport me" in markdown and "**exported**" in markdown
    md_target = tmp_path / "notes.md"
    app.run(f"/session export markdown {md_target}")
    assert md_target.read_text() == markdown
    by_suffix = tmp_path / "by-suffix.JSON"  # no format named: the suffix decides
    assert "(json) to" in app.run(f"/session export {by_suffix}")
    assert json.loads(by_suffix.read_text())["messages"][0]["role"] == "user"


def test_session_search(app: FakeApp) -> None:
    turn(app.conversation, "the [quick] brown fox", "jumps")
    out = app.run("/session search quick fox")
    assert app.conversation.id in out and "[quick]" in out
    assert "No messages match" in app.run("/session search zebra")


def test_errors_are_one_line_and_change_nothing(app: FakeApp) -> None:
    turn(app.conversation, "keep")
    before = app.conversation.id
    out = app.run("/session load nothing-like-this")
    assert out.strip() == (
        "error: no session matches 'nothing-like-this' — see `chatcli sessions list`"
    )
    assert app.conversation.id == before
    assert "did you mean /session list?" in app.run("/session lst")
    assert "which session?" in app.run("/session delete")
    assert "search for what?" in app.run("/session search")
    status = app.run("/session")
    assert before in status and "/session new" in status


def test_completion_of_subcommands_and_session_ids(app: FakeApp) -> None:
    complete = app.host.slash_commands()["session"].complete
    assert complete is not None
    assert complete(app, "") == [
        "new", "save", "load", "list", "delete", "fork", "export", "search"
    ]
    assert complete(app, "l") == ["load", "list"]
    turn(app.conversation, "x")
    app.run("/session save named")
    sid = app.conversation.id
    assert complete(app, "load ") == [f"load {sid}", "load named"]
    assert complete(app, "delete na") == ["delete named"]
    assert complete(app, "export j") == ["export json"]
    assert complete(app, "search anything") == []


def test_rewind_prefills_what_was_typed_without_attached_files(app: FakeApp) -> None:
    from chatcli import Message, Role, TextPart

    conversation = app.conversation
    conversation.checkpoint("explain @a.py")
    conversation.append(Message(role=Role.USER, parts=[
        TextPart(text="explain @a.py"), TextPart(text='\n\n<file path="a.py">\nx = 1\n</file>')]))
    conversation.append(Message.assistant("it sets x"))
    app.picks = [0]
    app.run("/rewind")
    assert app.prefilled == ["explain @a.py"]
    assert conversation.messages() == []


def test_rewind_offers_only_checkpoints_on_the_current_path(app: FakeApp) -> None:
    conversation = app.conversation
    turn(conversation, "first question")
    turn(conversation, "second question")
    turn(conversation, "third question")
    app.picks = [1]
    app.run("/rewind")  # back to before "second question"
    assert path_texts(conversation) == ["first question", "answer to first question"]
    app.picks = [None]
    app.run("/rewind")  # what lies ahead of the head is another branch now
    assert [o.split("  ", 1)[1] for o in app.pick_calls[-1][1]] == ["first question"]

    turn(conversation, "second, asked again")  # a new branch from the same point
    app.picks = [0]
    app.run("/rewind")
    options = [o.split("  ", 1)[1] for o in app.pick_calls[-1][1]]
    assert options == ["second, asked again", "first question"]  # newest first
    assert app.prefilled[-1] == "second, asked again"  # not the abandoned "second question"
    assert path_texts(conversation) == ["first question", "answer to first question"]

    conversation.clear()
    out = app.run("/rewind")
    assert "Nothing to rewind here" in out and len(app.pick_calls) == 3  # no menu


def test_rewind_finds_the_message_after_a_checkpoint_when_the_clock_stepped(app: FakeApp) -> None:
    # CI once stepped the clock between a checkpoint and its message: the abandoned sibling,
    # created a moment before the checkpoint, looked closer than the message that followed it.
    conversation = app.conversation
    turn(conversation, "first question")
    turn(conversation, "second question")
    app.picks = [0]
    app.run("/rewind")  # back to before "second question"
    turn(conversation, "second, asked again")
    retried = conversation.messages()[-2]
    retried.created_at = conversation.checkpoints[-1].created_at + 5.0  # the clock jumped 5 s
    app.picks = [None]
    app.run("/rewind")
    options = [o.split("  ", 1)[1] for o in app.pick_calls[-1][1]]
    assert options == ["second, asked again", "first question"]


def test_rewind_pairs_checkpoints_and_messages_by_order_when_the_clock_is_coarse(
        app: FakeApp) -> None:
    # A clock that ticks every few milliseconds gives a checkpoint, its message and the
    # abandoned sibling before them one and the same time.
    conversation = app.conversation
    turn(conversation, "first question")
    turn(conversation, "second question")
    app.picks = [0]
    app.run("/rewind")
    turn(conversation, "second, asked again")
    tick = conversation.checkpoints[-1].created_at
    for message in conversation.all_messages():
        message.created_at = tick
    for checkpoint in conversation.checkpoints:
        checkpoint.created_at = tick
    app.picks = [0]
    app.run("/rewind")
    options = [o.split("  ", 1)[1] for o in app.pick_calls[-1][1]]
    assert options == ["second, asked again", "first question"]
    assert app.prefilled[-1] == "second, asked again"
