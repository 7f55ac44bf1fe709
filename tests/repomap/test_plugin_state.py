"""The map a conversation's prompt carries: made at its first request, the same text at every
later one (the cached prefix holds) even when later messages mention other files, made again
after a compaction rewrote the view and in a new session."""

from __future__ import annotations

from pathlib import Path

from chatcli import Conversation, Message, Settings
from chatcli_repomap.plugin import RepomapPlugin
from repomap_support import make_repo

SETTINGS = Settings.model_validate({"repomap": {"tokens": 60}})


def test_the_map_is_kept_until_the_view_changes(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    plugin = RepomapPlugin()
    conversation = Conversation()
    first = plugin.section_text(root, SETTINGS, [Message.user("hello")], conversation)
    assert first and "lonely_helper_function" not in first
    later = [Message.user("hello"), Message.user("now look at app/lonely.py")]
    assert plugin.section_text(root, SETTINGS, later, conversation) == first
    plugin.view_changed(conversation)  # a compaction: the prefix is new anyway
    compacted = [Message.user("summary: we looked at app/lonely.py"), Message.user("go on")]
    again = plugin.section_text(root, SETTINGS, compacted, conversation)
    assert again != first and "lonely_helper_function" in again
    other = Conversation()  # another conversation makes its own
    assert plugin.section_text(root, SETTINGS, [Message.user("hi")], other) == first


def test_switched_off_or_empty_gives_no_section(tmp_path: Path) -> None:
    plugin = RepomapPlugin()
    off = Settings.model_validate({"repomap": {"map": False}})
    root = make_repo(tmp_path / "r")
    assert plugin.section_text(root, off, [], Conversation()) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    assert plugin.section_text(empty, SETTINGS, [], Conversation()) == ""


def test_a_resumed_conversation_gets_the_same_map(tmp_path: Path) -> None:
    """Weighted by the view up to its first user message: what later messages mention does
    not change the map a resumed conversation (a new stash) is given."""
    root = make_repo(tmp_path / "r")
    opening = [Message.user("hello")]
    first = RepomapPlugin().section_text(root, SETTINGS, opening, Conversation())
    resumed = RepomapPlugin().section_text(
        root, SETTINGS, [*opening, Message.assistant("hi"), Message.user("see app/lonely.py")],
        Conversation())
    assert resumed == first


def test_what_the_time_budget_left_is_parsed_in_the_background(tmp_path: Path) -> None:
    import threading
    import time

    from chatcli_repomap.build import build_map
    from chatcli_repomap.settings import RepomapOptions

    root = make_repo(tmp_path / "r")
    plugin = RepomapPlugin()
    hurried = plugin.make(root, RepomapOptions(seconds=0), ["hello"])
    assert "5 files are not parsed yet" in hurried
    deadline = time.monotonic() + 30
    while any(t.name == "repomap-finish" for t in threading.enumerate()):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    after = build_map(root, tokens=None)
    assert after.parsed == 0 and "UserAccount" in after.text  # all parsed by the thread
