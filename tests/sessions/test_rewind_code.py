"""/rewind with a plugin that tracks the workspace (``workspace_restore_point``,
``workspace_undo``): what is offered, what each argument restores, and what undo undoes.

A stand-in plugin plays the workspace: its restore point says which files changed and counts
its restores; the real one (chatcli-checkpoints) is tested in tests/checkpoints."""

from __future__ import annotations

import pytest
from chatcli import PluginHost, hookimpl
from chatcli_plugin_records import RestorePoint
from sessions_helpers import FakeApp, path_texts, turn


class Workspace:
    """A workspace whose files changed since every checkpoint (unless ``unchanged``)."""

    def __init__(self) -> None:
        self.unchanged = False
        self.fail = False
        self.restored: list[str] = []
        self.undone = 0
        self.heads_at_undo: list[str | None] = []

    @hookimpl
    def workspace_restore_point(self, conversation, checkpoint):
        if self.unchanged:
            return None

        def restore() -> str:
            if self.fail:
                raise OSError("disk full")
            self.restored.append(checkpoint.id)
            return "Restored 2 files: a.py, new.txt (removed)."

        return RestorePoint("2 files: a.py (changed), new.txt (created since, removed on "
                            "restore)", restore)

    @hookimpl
    def workspace_undo(self, conversation):
        self.heads_at_undo.append(conversation.head)
        if not self.restored or self.undone >= len(self.restored):
            return None
        self.undone += 1
        return "Code rewind undone: 2 files: a.py, new.txt (recreated)."


@pytest.fixture
def tracker(host: PluginHost) -> Workspace:
    plugin = Workspace()
    assert host.register(plugin, "workspace")
    return plugin


def _three_turns(app: FakeApp) -> None:
    for question in ("first question", "second question", "third question"):
        turn(app.conversation, question)


def test_rewind_last_restores_both_in_a_one_shot_run(app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    out = app.run("/rewind last")
    assert path_texts(app.conversation)[-1] == "answer to second question"
    assert tracker.restored == [app.conversation.checkpoints[-1].id]
    assert "Rewound to before “third question”" in out
    assert "Restored 2 files: a.py, new.txt (removed)." in out
    assert app.pick_calls == []  # nobody asked: both is the default
    out = app.run("/rewind undo")
    assert len(app.conversation.messages()) == 6
    assert "back to 6 messages" in out and "Code rewind undone" in out
    # the code is undone after the conversation, as the hook's contract says
    assert tracker.heads_at_undo == [app.conversation.head]


def test_code_only_leaves_the_conversation_and_undo_undoes_only_that(
        app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    app.run("/rewind 1 conversation")  # an earlier rewind, conversation only
    turn(app.conversation, "third, asked again")
    texts = path_texts(app.conversation)
    out = app.run("/rewind last code")
    assert path_texts(app.conversation) == texts
    assert tracker.restored and "The conversation is unchanged" in out
    out = app.run("/rewind undo")
    assert path_texts(app.conversation) == texts  # the conversation-only rewind stays done
    assert out.strip() == "Code rewind undone: 2 files: a.py, new.txt (recreated)."


def test_conversation_only_does_not_restore(app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    out = app.run("/rewind last --conversation-only")
    assert tracker.restored == [] and "Restored" not in out
    assert path_texts(app.conversation)[-1] == "answer to second question"


def test_the_menu_asks_what_to_restore(app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    app.picks = [1, 0]  # second question; conversation and code
    out = app.run("/rewind")
    title, options = app.pick_calls[1]
    assert options == ["conversation and code", "conversation only", "code only"]
    assert "a.py (changed)" in title and "new.txt (created since" in title
    assert path_texts(app.conversation) == ["first question", "answer to first question"]
    assert "Restored 2 files" in out

    app.run("/rewind undo")
    app.picks = [0, None]  # a checkpoint, then Esc on the second question: nothing happens
    out = app.run("/rewind")
    assert "cancelled" in out and len(tracker.restored) == 1
    assert len(app.conversation.messages()) == 6

    app.picks = [0, 1]  # conversation only: the files are named, not restored
    out = app.run("/rewind")
    assert "Files left as they are: 2 files: a.py (changed)" in out
    assert len(tracker.restored) == 1


def test_no_file_changed_means_no_second_question(app: FakeApp, tracker: Workspace) -> None:
    tracker.unchanged = True
    _three_turns(app)
    app.picks = [0]
    out = app.run("/rewind")
    assert len(app.pick_calls) == 1 and "Restored" not in out
    assert "No file to restore" in app.run("/rewind last code")
    assert "No file to restore: none changed since then." in app.run("/rewind last both")


def test_checkpoints_by_number_and_id(app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    second = app.conversation.checkpoints[1]
    app.run("/rewind 2 conversation")
    assert path_texts(app.conversation) == ["first question", "answer to first question"]
    app.run("/rewind undo")
    app.run(f"/rewind {second.id[3:9]} conversation")  # an id prefix, "cp_" may be left out
    assert path_texts(app.conversation) == ["first question", "answer to first question"]
    app.run("/rewind undo")
    with_prefix = app.run(f"/rewind {second.id[:9]} chat")
    assert "Rewound to before “second question”" in with_prefix


def test_an_id_prefix_of_digits_is_an_id_not_a_number(app: FakeApp,
                                                       tracker: Workspace) -> None:
    # ids are hex: one in sixteen 6-character prefixes is all digits ("/rewind 409817")
    _three_turns(app)
    second = app.conversation.checkpoints[1]
    second.id = "cp_409817" + second.id[9:]
    app.run("/rewind 409817 conversation")
    assert path_texts(app.conversation) == ["first question", "answer to first question"]
    assert "there is 1 checkpoint to rewind to, not 999999" in app.run(
        "/rewind 999999 conversation")


@pytest.mark.parametrize(("words", "error"), [
    ("9", "there are 3 checkpoints to rewind to, not 9 — give 1 (the newest) to 3"),
    ("0", "not 0"),
    ("last code conversation", "'conversation' contradicts the earlier word"),
    ("last 2", "/rewind takes one checkpoint, not 'last' and '2'"),
    ("zz", "no single checkpoint matches 'zz'"),
])
def test_wrong_arguments_say_what_to_give(app: FakeApp, tracker: Workspace, words: str,
                                          error: str) -> None:
    _three_turns(app)
    out = app.run(f"/rewind {words}")
    assert error in out
    assert len(app.conversation.messages()) == 6 and tracker.restored == []


def test_a_one_shot_run_without_an_argument_lists_what_to_give(
        app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    app.picks = [None]  # what the one-shot run's pick answers
    out = app.run("/rewind")
    assert "Give the checkpoint as the argument: /rewind last" in out
    lines = out.splitlines()
    newest = app.conversation.checkpoints[-1]
    assert any(line.split()[:2] == ["1", newest.id] and line.endswith("third question")
               for line in lines)
    assert len(app.conversation.messages()) == 6


def test_the_chat_says_only_cancelled(app: FakeApp, tracker: Workspace) -> None:
    app.session.interactive = True
    _three_turns(app)
    app.picks = [None]
    assert app.run("/rewind").strip() == "Rewind cancelled."


def test_a_failed_restore_rewinds_nothing(app: FakeApp, tracker: Workspace) -> None:
    _three_turns(app)
    tracker.fail = True
    out = app.run("/rewind last")
    assert "the files could not be restored (OSError: disk full); nothing was rewound" in out
    assert len(app.conversation.messages()) == 6
