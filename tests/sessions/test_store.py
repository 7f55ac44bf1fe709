"""The session store via the plugin's hooks: persistence, branches, rewind/undo, fork, search."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from chatcli import (
    Message,
    PluginHost,
    Role,
    Session,
    Settings,
    ToolCallPart,
    UsageError,
    attach_hooks,
)
from chatcli_sessions.export import to_json, to_markdown
from chatcli_sessions.store import SCHEMA_VERSION, SessionStore, StoreError, fts_query
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sessions_helpers import new_conversation, path_texts, turn


def test_an_empty_run_leaves_no_session(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    conversation.checkpoint("never sent")  # a checkpoint alone does not create a session
    host.hooks.session_end(session=Session(host, Settings()), conversation=conversation)
    with SessionStore(db_path) as store:
        assert store.list() == []


def test_every_append_is_on_disk_before_the_hook_returns(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    conversation.checkpoint("hello there")
    conversation.append(Message.user("hello there"))
    with SessionStore(db_path) as other:  # a first question alone is no session yet
        assert other.list() == []
    reply = Message.assistant("hi!")
    reply.provider, reply.model = "openai", "gpt-x"
    conversation.append(reply)
    with SessionStore(db_path) as other:  # another connection sees it at once
        [info] = other.list()
        assert info.id == conversation.id and info.title == "hello there"
        assert (info.messages, info.provider, info.model) == (2, "openai", "gpt-x")
        assert info.head == reply.id
        assert [c.label for c in other.checkpoints(info.id)] == ["hello there"]
    conversation.append(Message.user("and then?"))
    with SessionStore(db_path) as other:  # from then on every message at once
        info = other.info(conversation.id)
        assert info is not None and info.messages == 3


def test_round_trip_keeps_branches_after_a_rewind(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    turn(conversation, "one")
    turn(conversation, "two")
    turn(conversation, "three")
    checkpoint_two = conversation.checkpoints[1]
    conversation.rewind(checkpoint_two.id)
    turn(conversation, "two, again", "a different answer")
    tool_call = ToolCallPart(name="read_file", arguments={"path": "x.py"})
    conversation.append(Message.assistant("let me look", [tool_call]))

    with SessionStore(db_path) as store:
        restored = store.load(conversation.id)
    assert restored.head == conversation.head
    assert path_texts(restored) == [
        "one", "answer to one", "two, again", "a different answer", "let me look"
    ]
    # the abandoned branch is still in the log, message for message
    assert set(restored.log) == set(conversation.log)
    for message_id, message in conversation.log.items():
        assert restored.log[message_id].model_dump() == message.model_dump()
    assert [c.model_dump() for c in restored.checkpoints] == [
        c.model_dump() for c in conversation.checkpoints
    ]
    assert restored.messages()[-1].tool_calls[0].arguments == {"path": "x.py"}


def test_rewind_then_undo_is_persisted_and_undo_survives_a_restart(
    host: PluginHost, db_path: Path
) -> None:
    conversation = new_conversation(host)
    turn(conversation, "first")
    turn(conversation, "second")
    full_head = conversation.head
    conversation.rewind(conversation.checkpoints[1].id)
    with SessionStore(db_path) as store:
        assert path_texts(store.load(conversation.id)) == ["first", "answer to first"]
    assert conversation.undo()
    with SessionStore(db_path) as store:
        assert store.load(conversation.id).head == full_head

    conversation.rewind(conversation.checkpoints[0].id)  # back to empty
    with SessionStore(db_path) as store:
        restarted = store.load(conversation.id)
    assert restarted.messages() == []
    assert restarted.undo()  # the undo stack came back from the database
    assert restarted.head == full_head


def test_clear_is_a_head_move_and_keeps_the_log(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    turn(conversation, "keep me")
    conversation.clear()
    with SessionStore(db_path) as store:
        restored = store.load(conversation.id)
    assert restored.messages() == []
    assert len(restored.log) == 2


def test_only_the_newest_checkpoints_are_kept(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host, max_checkpoints=3)
    for n in range(6):
        turn(conversation, f"q{n}")
    with SessionStore(db_path) as store:
        assert [c.label for c in store.checkpoints(conversation.id)] == ["q3", "q4", "q5"]


def test_session_start_applies_the_max_checkpoints_setting(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    host.hooks.session_start(session=Session(host, Settings()), conversation=conversation,
                             settings=Settings(max_checkpoints=2))
    for n in range(4):
        turn(conversation, f"q{n}")
    with SessionStore(db_path) as store:
        assert [c.label for c in store.checkpoints(conversation.id)] == ["q2", "q3"]


def test_fork_copies_the_current_path_into_a_new_session(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    turn(conversation, "alpha")
    turn(conversation, "beta")
    conversation.rewind(conversation.checkpoints[1].id)  # fork from after "alpha"
    with SessionStore(db_path) as store:
        forked = store.fork(conversation)
    assert forked.id != conversation.id
    assert path_texts(forked) == ["alpha", "answer to alpha"]
    attach_hooks(forked, host)
    turn(forked, "gamma")
    with SessionStore(db_path) as store:
        original = store.load(conversation.id)
        copy = store.load(forked.id)
        info = store.info(forked.id)
    assert path_texts(copy) == ["alpha", "answer to alpha", "gamma", "answer to gamma"]
    assert len(original.log) == 4  # untouched by the fork's new turn
    assert info is not None and info.forked_from == conversation.id
    assert info.title.startswith("fork of alpha")
    # the fork's checkpoints work: rewinding it to before "alpha" empties it
    copy.rewind(copy.checkpoints[0].id)
    assert copy.messages() == []


def test_export_markdown_and_json(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    turn(conversation, "what is `x`?", "x is ```code``` here")
    conversation.rewind(conversation.checkpoints[0].id)
    turn(conversation, "different question")
    with SessionStore(db_path) as store:
        info = store.info(conversation.id)
        restored = store.load(conversation.id)
    markdown = to_markdown(restored, info)
    assert markdown.startswith("# what is `x`?\n")
    assert "## User\n\ndifferent question" in markdown
    assert "## Assistant (m1)\n\nanswer to different question" in markdown
    assert "what is `x`?\n\n## User" not in markdown  # the rewound-away turn is not on the path
    data = json.loads(to_json(restored, info))
    assert data["format"] == "chatcli-session"
    assert data["session"]["id"] == conversation.id
    assert len(data["messages"]) == 4  # the whole log, both branches
    assert [m["parts"][0]["text"] for m in data["messages"] if m["id"] in data["path"]] == [
        "different question", "answer to different question"
    ]
    assert data["head"] == conversation.head


def test_search_finds_words_across_sessions(host: PluginHost, db_path: Path) -> None:
    first = new_conversation(host)
    turn(first, "how do I configure nginx reverse proxy", "use proxy_pass")
    second = new_conversation(host)
    turn(second, "tell me about postgres vacuum", "vacuum reclaims space")
    with SessionStore(db_path) as store:
        assert store.has_fts
        hits = store.search("vacuum")
        assert {h.session_id for h in hits} == {second.id}
        assert any("[vacuum]" in h.snippet for h in hits)
        assert [h.session_id for h in store.search("NGINX proxy")] == [first.id]
        assert [h.session_id for h in store.search("ngi")] == [first.id]  # prefix of last word
        assert store.search("nginx vacuum") == []
        store.has_fts = False  # the LIKE fallback (SQLite without FTS5) answers the same
        assert {h.session_id for h in store.search("vacuum")} == {second.id}
        assert [h.session_id for h in store.search("nginx proxy")] == [first.id]
        assert store.search("100%_") == []


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_search_text_is_a_valid_fts_query(text: str) -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    db.execute("INSERT INTO t VALUES ('some words here')")
    query = fts_query(text)
    if query:
        db.execute("SELECT * FROM t WHERE t MATCH ?", (query,)).fetchall()


def test_resolve_by_id_prefix_and_name(host: PluginHost, db_path: Path) -> None:
    conversation = new_conversation(host)
    turn(conversation, "hello")
    with SessionStore(db_path) as store:
        store.save(conversation, "work")
        assert store.resolve(conversation.id).id == conversation.id
        assert store.resolve(conversation.id[:8]).id == conversation.id
        assert store.resolve(conversation.id[2:9]).id == conversation.id  # without "s_"
        assert store.resolve("work").id == conversation.id
        with pytest.raises(UsageError, match="no session matches 'nope'") as err:
            store.resolve("nope")
        assert "\n" not in str(err.value)
        other = new_conversation(host)
        turn(other, "other")
        with pytest.raises(UsageError, match="already used"):
            store.save(other, "work")
        with pytest.raises(UsageError, match="matches 2 sessions"):
            store.resolve("s_")


def test_open_conversation_continue_and_resume(host: PluginHost, db_path: Path) -> None:
    settings_ = Settings()
    assert host.hooks.open_conversation(settings=settings_, resume=None,
                                        continue_last=False) is None
    with pytest.raises(UsageError, match=r"no saved session in this project .* to continue"):
        host.hooks.open_conversation(settings=settings_,
                                     resume=None, continue_last=True)
    old = new_conversation(host)
    turn(old, "old question")
    new = new_conversation(host)
    turn(new, "new question")
    latest = host.hooks.open_conversation(settings=settings_, resume=None, continue_last=True)
    assert latest.id == new.id
    assert path_texts(latest) == ["new question", "answer to new question"]
    assert (latest.messages()[-1].provider, latest.messages()[-1].model) == ("scripted", "m1")
    resumed = host.hooks.open_conversation(settings=settings_, resume=old.id[:6],
                                           continue_last=False)
    assert resumed.id == old.id
    with pytest.raises(UsageError, match="no session matches 'zzz'"):
        host.hooks.open_conversation(settings=settings_,
                                     resume="zzz", continue_last=False)
    # continuing appends to the same session
    attach_hooks(resumed, host)
    turn(resumed, "more")
    with SessionStore(db_path) as store:
        assert store.info(old.id).messages == 4


def test_resume_answers_tool_calls_left_open_by_a_killed_process(
    host: PluginHost, db_path: Path
) -> None:
    conversation = new_conversation(host)
    conversation.append(Message.user("list files"))
    call = ToolCallPart(name="ls", arguments={})
    conversation.append(Message.assistant("", [call]))  # then the process died
    resumed = host.hooks.open_conversation(settings=Settings(), resume=conversation.id,
                                           continue_last=False)
    last = resumed.messages()[-1]
    assert last.role == Role.TOOL
    assert last.tool_results[0].call_id == call.id and last.tool_results[0].is_error
    with SessionStore(db_path) as store:
        assert store.load(conversation.id).head == last.id  # persisted


def test_database_mode_and_schema(host: PluginHost, db_path: Path) -> None:
    turn(new_conversation(host), "x")
    with SessionStore(db_path) as store:
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.integrity() == "ok"
        store.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this chatcli"):
        SessionStore(db_path)


def test_a_deleted_session_is_rewritten_whole_by_its_next_append(
    host: PluginHost, db_path: Path
) -> None:
    conversation = new_conversation(host)
    turn(conversation, "first")
    with SessionStore(db_path) as other:  # e.g. `chatcli sessions delete` from another shell
        assert other.delete(conversation.id)
    turn(conversation, "second")
    with SessionStore(db_path) as store:
        assert path_texts(store.load(conversation.id)) == [
            "first", "answer to first", "second", "answer to second"
        ]


def test_a_file_that_is_not_a_database_gives_one_line(home: Path, db_path: Path) -> None:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db_path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError) as err:
        SessionStore(db_path)
    assert str(err.value).startswith(f"the session database {db_path} is unusable")
    assert "move it aside" in str(err.value) and "\n" not in str(err.value)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ref=st.text(max_size=30))
def test_any_reference_resolves_or_fails_in_one_line(host: PluginHost, db_path: Path,
                                                     ref: str) -> None:
    if not db_path.exists():
        turn(new_conversation(host), "x")
    with SessionStore(db_path) as store:
        try:
            info = store.resolve(ref)
        except UsageError as err:
            assert "\n" not in str(err)
        else:
            # ids are lower-case hex; prefixes match whatever the case ("S_1A" finds "s_1a…")
            prefix = ref.strip().lower()
            assert prefix and (info.id.startswith(prefix) or info.id[2:].startswith(prefix))


def test_the_plugin_changes_conversations_only_through_their_methods() -> None:
    """No assignment to (or item of) a Conversation's log, head, checkpoints or undo stack, and
    no mutating call on them: the kernel may change how it keeps them."""
    import ast

    import chatcli_sessions

    internals = {"log", "head", "checkpoints", "_head_history", "observers"}
    mutators = {"append", "extend", "insert", "pop", "clear", "update", "setdefault",
                "remove", "__setitem__", "__delitem__"}

    def internal(node: ast.AST) -> bool:
        if isinstance(node, ast.Subscript):
            node = node.value
        return isinstance(node, ast.Attribute) and node.attr in internals

    found = []
    for source in Path(chatcli_sessions.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in mutators
            ):
                targets = [node.func.value]
            found += [f"{source.name}:{t.lineno}" for t in targets if internal(t)]
    assert found == []
