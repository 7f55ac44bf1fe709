"""A conformance kit for session stores: subclass :class:`SessionStoreContract`.

Every :class:`chatcli_sessions_api.SessionStore` (the embedded SQLite one of chatcli-sessions,
the PostgreSQL one of chatcli-sessions-postgres, yours) must pass the same tests, through the
protocol only: the append-only log (any unicode round-trips; a tree of branches with parents
and a gap-free ``seq``), nothing written before an answer, missing ancestors written with a
message, rewind and undo (head events, ``head_history``), compactions, checkpoints pruned to
``max_checkpoints``, fork, import (every field, the undo stack and the log's order kept),
search, what exports read (titles, provider/model, names), delete with the workers' sessions,
lists by project, resolve by id, prefix or name, resume closing unanswered tool calls — and
several store objects ("replicas") on one backing storage: interleavings of turns, rewinds,
undos and reloads (hypothesis) never lose, duplicate or reorder a message, and the head is
compare-and-set (:class:`chatcli_sessions_api.HeadMoved`), also from threads at once.

pytest collects it only through a subclass whose name starts with ``Test``::

    import pytest
    from chatcli_testing import SessionStoreContract

    class TestMyStoreContract(SessionStoreContract):
        @pytest.fixture
        def open_store(self, tmp_path):
            opened = []

            def open_replica():          # each call: another store object, same storage
                store = MyStore(tmp_path / "sessions.db")
                opened.append(store)
                return store

            yield open_replica
            for store in opened:
                store.close()

The storage must be empty when the fixture starts; the hypothesis tests run many examples on
one storage, each in sessions of its own.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from chatcli import (
    Checkpoint,
    Compaction,
    Conversation,
    Message,
    Role,
    ToolCallPart,
    ToolResultPart,
    UsageError,
)
from chatcli_sessions_api import HERE, HeadMoved, SessionStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

__all__ = ["SessionStoreContract"]

#: (replica, action) steps of the interleaving tests
ACTIONS = ("turn", "turn", "rewind", "undo", "reload")

#: (each subclass is another executor of the same test, by design)
_SETTINGS = settings(max_examples=25, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture,
                                            HealthCheck.too_slow,
                                            HealthCheck.differing_executors])


def _answer(text: str, provider: str = "prov", model: str = "m1") -> Message:
    reply = Message.assistant(text)
    reply.provider, reply.model = provider, model
    return reply


def _dump(messages: list[Message]) -> list[dict[str, Any]]:
    return [m.model_dump() for m in messages]


class _Replica:
    """One store object and the conversation it holds of a session, as a process would: it
    appends to and moves its conversation, and reloads it when the store says another replica
    moved the session on."""

    def __init__(self, store: SessionStore, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.conversation = store.load(session_id)
        self.known: str | None = self.conversation.head  # the stored head as it last saw it

    def reload(self) -> None:
        self.conversation = self.store.load(self.session_id)
        self.known = self.conversation.head


class SessionStoreContract:
    """Conformance tests for a :class:`chatcli_sessions_api.SessionStore`.

    Subclasses (named ``Test...``) override :meth:`open_store`.
    """

    #: turns each thread appends in the threaded test
    turns_per_thread: ClassVar[int] = 15

    # -------------------------------------------------------------------------------- fixtures

    @pytest.fixture
    def open_store(self) -> Iterator[Callable[[], SessionStore]]:
        """A function opening another store object on one fresh, empty backing storage (each
        call: another replica, as another process or server would open it); every store it
        opened is closed after the test. Subclasses must override it."""
        raise NotImplementedError(
            f"{type(self).__name__} must override the 'open_store' fixture")

    @pytest.fixture
    def store(self, open_store: Callable[[], SessionStore]) -> SessionStore:
        """The first replica."""
        return open_store()

    @pytest.fixture
    def folder(self, tmp_path_factory: pytest.TempPathFactory) -> Path:
        """A folder to start sessions in (its own project: no ``.git`` above it is assumed)."""
        return tmp_path_factory.mktemp("project")

    # -------------------------------------------------------------------------------- helpers

    @staticmethod
    def new(folder: Path | None = None, max_checkpoints: int = 20) -> Conversation:
        """A conversation started in ``folder`` (``metadata["cwd"]``)."""
        conversation = Conversation(max_checkpoints=max_checkpoints)
        if folder is not None:
            conversation.metadata["cwd"] = str(folder)
        return conversation

    @staticmethod
    def add(store: SessionStore, conversation: Conversation, message: Message) -> Message:
        """Append ``message`` as the engine does and write it, as the plugin's hook does."""
        stored = conversation.append(message)
        store.append(conversation, stored)
        return stored

    def turn(self, store: SessionStore, conversation: Conversation, question: str,
             answer: str | None = None) -> None:
        """Checkpoint, question, answer."""
        checkpoint = conversation.checkpoint(question[:40])
        store.add_checkpoint(conversation, checkpoint)
        self.add(store, conversation, Message.user(question))
        self.add(store, conversation, _answer(answer if answer is not None else f"re {question}"))

    def started(self, store: SessionStore, folder: Path | None = None, turns: int = 1,
                tag: str = "q") -> Conversation:
        """A stored session of ``turns`` turns."""
        conversation = self.new(folder)
        for n in range(turns):
            self.turn(store, conversation, f"{tag} {n}")
        return conversation

    def imported(self, store: SessionStore, *, project: str | None, updated_at: float,
                 name: str | None = None, title: str = "imported") -> Conversation:
        """A one-turn session stored with :meth:`SessionStore.import_session`."""
        conversation = Conversation(title=title)
        conversation.append(Message.user(title))
        conversation.append(_answer("ok"))
        store.import_session(conversation, name=name, created_at=updated_at - 10,
                             updated_at=updated_at, provider="prov", model="m1",
                             forked_from=None, project=project)
        return conversation

    # -------------------------------------------------------------------------------- basics

    def test_is_a_session_store(self, store: SessionStore) -> None:
        assert isinstance(store, SessionStore)
        assert store.integrity() == "ok"

    def test_nothing_is_written_before_an_answer(self, store: SessionStore,
                                                 folder: Path) -> None:
        conversation = self.new(folder)
        assert not store.add_checkpoint(conversation, conversation.checkpoint("first"))
        self.add(store, conversation, Message.user("a question never answered"))
        assert store.info(conversation.id) is None
        assert not store.move_head(conversation, None, "clear")
        assert store.info(conversation.id) is None
        self.add(store, conversation, _answer("now an answer"))
        info = store.info(conversation.id)
        assert info is not None and info.messages == 2
        assert store.checkpoints(conversation.id) == conversation.checkpoints  # taken before

    @_SETTINGS
    @given(texts=st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=6))
    def test_any_text_round_trips(self, store: SessionStore, texts: list[str]) -> None:
        conversation = self.new()
        sent = []
        for n, text in enumerate(texts):
            sent.append(self.add(store, conversation, Message.user(text)))
            sent.append(self.add(store, conversation, _answer(text + str(n))))
        assert _dump(store.messages(conversation.id)) == _dump(sent)
        loaded = store.load(conversation.id)
        assert loaded.head == conversation.head
        assert _dump(loaded.messages()) == _dump(conversation.messages())

    def test_a_tree_of_branches_keeps_every_message_and_its_parent(self, store: SessionStore,
                                                                   folder: Path) -> None:
        conversation = self.started(store, folder, turns=2)
        fork_point = conversation.checkpoints[1]
        conversation.rewind(fork_point.id)
        store.move_head(conversation, conversation.head, "rewind")
        self.turn(store, conversation, "the other branch")
        stored = store.messages(conversation.id)
        assert [m.id for m in stored] == [m.id for m in conversation.all_messages()]
        assert {m.id: m.parent_id for m in stored} == {
            m.id: m.parent_id for m in conversation.all_messages()}
        loaded = store.load(conversation.id)
        assert [m.text for m in loaded.messages()] == ["q 0", "re q 0", "the other branch",
                                                       "re the other branch"]
        assert len(loaded.log) == 6
        info = store.info(conversation.id)
        assert info is not None and info.messages == 6 and info.head == conversation.head

    def test_an_append_writes_the_ancestors_an_earlier_one_missed(self, store: SessionStore,
                                                                  folder: Path) -> None:
        conversation = self.started(store, folder)
        lost = conversation.append(Message.user("written by nobody"))  # its append failed
        last = self.add(store, conversation, _answer("answer"))
        assert [m.id for m in store.messages(conversation.id)][-2:] == [lost.id, last.id]
        assert store.load(conversation.id).head == last.id

    # -------------------------------------------------------------------------------- head

    def test_rewind_and_undo_survive_a_reload(self, store: SessionStore, folder: Path) -> None:
        conversation = self.started(store, folder, turns=3)
        end = conversation.head
        conversation.rewind(conversation.checkpoints[1].id)
        assert store.move_head(conversation, conversation.head, "rewind", expected=end)
        middle = conversation.head
        conversation.clear()
        assert store.move_head(conversation, None, "clear")
        assert store.head_history(conversation.id) == [end, middle]
        loaded = store.load(conversation.id)
        assert loaded.head is None
        assert loaded.undo() and loaded.head == middle
        assert store.move_head(loaded, middle, "undo", expected=None)
        assert store.head_history(conversation.id) == [end]
        again = store.load(conversation.id)
        assert again.head == middle
        assert again.undo() and again.head == end

    def test_a_head_move_is_compare_and_set(self, open_store: Callable[[], SessionStore],
                                            folder: Path) -> None:
        first, second = open_store(), open_store()
        conversation = self.started(first, folder, turns=2)
        end = conversation.head
        mine = second.load(conversation.id)
        self.turn(first, conversation, "moves the session on")
        mine.rewind(mine.checkpoints[0].id)
        with pytest.raises(HeadMoved) as caught:
            second.move_head(mine, mine.head, "rewind", expected=end)
        assert caught.value.current == conversation.head
        assert caught.value.session_id == conversation.id
        assert second.info(conversation.id).head == conversation.head  # type: ignore[union-attr]
        assert second.head_history(conversation.id) == []  # nothing written
        assert second.move_head(mine, mine.head, "rewind", expected=conversation.head)
        assert first.info(conversation.id).head == mine.head  # type: ignore[union-attr]

    def test_an_append_on_a_moved_head_is_stored_and_reported(
            self, open_store: Callable[[], SessionStore], folder: Path) -> None:
        first, second = open_store(), open_store()
        conversation = self.started(first, folder)
        other = second.load(conversation.id)
        self.turn(first, conversation, "first replica's turn")
        mine = other.append(Message.user("second replica's question"))
        with pytest.raises(HeadMoved) as caught:
            second.append(other, mine)
        assert caught.value.current == conversation.head
        assert caught.value.wanted == mine.id
        stored = first.messages(conversation.id)
        assert mine.id in [m.id for m in stored]  # never lost: a branch of the log
        assert next(m for m in stored if m.id == mine.id).parent_id == mine.parent_id
        assert first.info(conversation.id).head == conversation.head  # type: ignore[union-attr]
        # appending the same message again stores nothing twice
        with pytest.raises(HeadMoved):
            second.append(other, mine)
        assert len(first.messages(conversation.id)) == len(stored)

    @_SETTINGS
    @given(steps=st.lists(st.tuples(st.integers(0, 1), st.sampled_from(ACTIONS)),
                          min_size=1, max_size=14))
    def test_replicas_interleaved_lose_duplicate_and_reorder_nothing(
            self, open_store: Callable[[], SessionStore],
            steps: list[tuple[int, str]]) -> None:
        if not hasattr(self, "_replica_stores"):  # one pair of store objects for every example
            self._replica_stores = (open_store(), open_store())
        stores = self._replica_stores
        base = self.started(stores[0])
        replicas = [_Replica(stores[0], base.id), _Replica(stores[1], base.id)]
        appended = [m.id for m in base.all_messages()]  # the model: every message, in order
        head: str | None = base.head
        stack: list[str | None] = []
        for n, (index, action) in enumerate(steps):
            replica = replicas[index]
            conversation = replica.conversation
            if action == "reload":
                replica.reload()
            elif action == "turn":
                message = conversation.append(Message.user(f"{index} says {n}"))
                if message.id not in appended:
                    appended.append(message.id)
                moves = head in (message.parent_id, message.id)
                try:
                    replica.store.append(conversation, message)
                except HeadMoved as err:
                    assert not moves, "the head was the message's parent"
                    assert err.current == head
                    replica.reload()
                    continue
                assert moves, "the head moved though another replica had moved it"
                head = replica.known = message.id
            else:
                before = conversation.head
                if action == "undo":
                    if not conversation.undo():
                        continue
                else:
                    path = conversation.messages()
                    conversation.move_head(path[-3].id if len(path) > 2 else None, "rewind")
                try:
                    replica.store.move_head(conversation, conversation.head, action,
                                            expected=replica.known)
                except HeadMoved as err:
                    assert replica.known != head and err.current == head
                    replica.reload()
                    continue
                assert replica.known == head
                if action == "undo":
                    if stack:
                        stack.pop()
                else:
                    stack.append(before)
                head = replica.known = conversation.head
        for store in stores:
            stored = store.messages(base.id)
            assert [m.id for m in stored] == appended  # none lost, duplicated or reordered
            ids = {m.id for m in stored}
            assert all(m.parent_id is None or m.parent_id in ids for m in stored)
            info = store.info(base.id)
            assert info is not None and info.head == head and info.messages == len(appended)
            assert store.head_history(base.id) == stack

    def test_replicas_appending_from_threads_lose_nothing(
            self, open_store: Callable[[], SessionStore], folder: Path) -> None:
        first, second = open_store(), open_store()
        base = self.started(first, folder)
        errors: list[BaseException] = []
        written: dict[int, list[str]] = {0: [], 1: []}
        start = threading.Barrier(2)

        def writer(index: int, store: SessionStore) -> None:
            try:
                conversation = store.load(base.id)
                start.wait()
                for n in range(self.turns_per_thread):
                    for message in (Message.user(f"{index}/{n}"), _answer(f"{index}/{n} re")):
                        stored = conversation.append(message)
                        written[index].append(stored.id)
                        # HeadMoved: stored all the same, this replica goes on as a branch
                        with contextlib.suppress(HeadMoved):
                            store.append(conversation, stored)
            except BaseException as err:  # reported by the test below
                errors.append(err)

        threads = [threading.Thread(target=writer, args=(i, s))
                   for i, s in enumerate((first, second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors, errors
        stored = [m.id for m in first.messages(base.id)]
        assert len(stored) == len(set(stored)) == 2 + 4 * self.turns_per_thread
        for ids in written.values():  # each writer's messages in its own order
            assert [i for i in stored if i in set(ids)] == ids
        loaded = second.load(base.id)
        for ids in written.values():
            loaded.head = ids[-1]
            assert len(loaded.messages()) == 2 + 2 * self.turns_per_thread

    # -------------------------------------------------------------------------------- view

    def test_compactions_are_kept_in_order_and_rewritten(self, store: SessionStore,
                                                         folder: Path) -> None:
        conversation = self.started(store, folder, turns=3)
        view = conversation.view()
        first = Compaction(first=view[0].id, last=view[1].id,
                           replacement=[Message.user("summary ✓ 一")], strategy="summarise")
        conversation.compact(first)
        assert store.save_compactions(conversation)
        view = conversation.view()
        second = Compaction(first=view[1].id, last=view[2].id, replacement=[],
                            strategy="trim", note="dropped two")
        conversation.compact(second)
        assert store.save_compactions(conversation)
        assert store.compactions(conversation.id) == [first, second]
        assert store.load(conversation.id).compactions == [first, second]
        conversation.compactions.remove(first)
        assert store.save_compactions(conversation)
        assert store.compactions(conversation.id) == [second]
        unsaved = self.new(folder)
        assert not store.save_compactions(unsaved)

    def test_checkpoints_are_pruned_to_the_newest(self, store: SessionStore,
                                                  folder: Path) -> None:
        conversation = self.new(folder, max_checkpoints=3)
        for n in range(5):
            self.turn(store, conversation, f"turn {n}")
        stored = store.checkpoints(conversation.id)
        assert [c.label for c in stored] == ["turn 2", "turn 3", "turn 4"]
        assert stored == conversation.checkpoints
        again = conversation.checkpoints[-1]
        assert store.add_checkpoint(conversation, again)  # an id stored already: kept once
        assert len(store.checkpoints(conversation.id)) == 3
        assert len(store.load(conversation.id, max_checkpoints=2).checkpoints) == 2

    def test_a_fork_is_a_new_session_with_the_current_path(self, store: SessionStore,
                                                           folder: Path) -> None:
        conversation = self.started(store, folder, turns=2)
        conversation.rewind(conversation.checkpoints[1].id)
        store.move_head(conversation, conversation.head, "rewind")
        self.turn(store, conversation, "branch")
        forked = store.fork(conversation)
        assert forked.id != conversation.id
        info = store.info(forked.id)
        assert info is not None and info.forked_from == conversation.id
        assert info.title == "fork of q 0" and info.name is None
        loaded = store.load(forked.id)
        assert [m.id for m in loaded.messages()] == [m.id for m in conversation.messages()]
        assert len(loaded.log) == 4
        assert {c.head for c in loaded.checkpoints} <= {m.id for m in loaded.log.values()} | {
            None}
        assert len(store.messages(conversation.id)) == 6  # the original untouched

    # -------------------------------------------------------------------------------- exports

    def test_what_an_export_reads(self, store: SessionStore, folder: Path) -> None:
        conversation = self.new(folder)
        self.add(store, conversation, Message.user("Title line ünïcode\nmore text"))
        self.add(store, conversation, _answer("first", "p1", "m1"))
        self.add(store, conversation, Message.user("again"))
        self.add(store, conversation, _answer("second", "p2", "m2"))
        store.save(conversation, name="  my name ")
        info = store.info(conversation.id)
        assert info is not None
        assert (info.title, info.name, info.provider, info.model, info.messages) == (
            "Title line ünïcode", "my name", "p2", "m2", 4)
        assert info.created_at <= info.updated_at
        assert info.cwd == str(folder)
        assert info.project is not None and Path(info.project) == folder.resolve()
        assert store.resolve("my name").id == conversation.id
        other = self.started(store, folder)
        with pytest.raises(UsageError):
            store.save(other, name="my name")
        unanswered = self.new(folder)
        unanswered.append(Message.user("saved before any answer"))
        store.save(unanswered)
        assert store.info(unanswered.id) is not None

    def test_an_import_keeps_everything(self, store: SessionStore) -> None:
        conversation = Conversation(title="imported ✓", max_checkpoints=50)
        conversation.metadata["cwd"] = "/somewhere/else"
        for n in range(3):
            conversation.checkpoint(f"c{n}")
            conversation.append(Message.user(f"q{n}"))
            conversation.append(_answer(f"a{n}"))
        top = conversation.head
        conversation.rewind(conversation.checkpoints[1].id)
        conversation.append(Message.user("late"))
        late = conversation.all_messages()[-1]
        late.created_at = 1.0  # older than the rest: the log's order still wins
        history = [top, None]
        store.import_session(conversation, name="imp", created_at=100.0, updated_at=200.0,
                             provider="prov", model="m9", forked_from="s_origin",
                             project="/somewhere", head_history=history)
        assert [m.id for m in store.messages(conversation.id)] == [
            m.id for m in conversation.all_messages()]
        assert store.checkpoints(conversation.id) == conversation.checkpoints
        assert store.head_history(conversation.id) == history
        info = store.info(conversation.id)
        assert info is not None
        assert (info.name, info.title, info.created_at, info.updated_at, info.provider,
                info.model, info.forked_from, info.project, info.cwd, info.head) == (
            "imp", "imported ✓", 100.0, 200.0, "prov", "m9", "s_origin", "/somewhere",
            "/somewhere/else", conversation.head)
        with pytest.raises(UsageError):
            store.import_session(conversation, name=None, created_at=1.0, updated_at=1.0,
                                 provider=None, model=None, forked_from=None)
        copy = Conversation()
        copy.append(Message.user("x"))
        with pytest.raises(UsageError):
            store.import_session(copy, name="imp", created_at=1.0, updated_at=1.0,
                                 provider=None, model=None, forked_from=None)
        here = Conversation()
        here.append(Message.user("here"))
        store.import_session(here, name=None, created_at=1.0, updated_at=1.0, provider=None,
                             model=None, forked_from=None, project=HERE)
        assert store.info(here.id).project  # type: ignore[union-attr]

    def test_resume_answers_tool_calls_a_killed_process_left(self, store: SessionStore,
                                                            folder: Path) -> None:
        conversation = self.started(store, folder)
        call = ToolCallPart(name="read_file", arguments={"path": "x"})
        asking = self.add(store, conversation, Message.assistant("", [call]))
        resumed = store.load(conversation.id, resume=True)
        closing = resumed.log[resumed.head]  # type: ignore[index]
        assert closing.parent_id == asking.id and closing.role == Role.TOOL
        result = closing.parts[0]
        assert isinstance(result, ToolResultPart) and result.call_id == call.id
        assert result.is_error
        assert store.info(conversation.id).head == closing.id  # type: ignore[union-attr]
        assert store.load(conversation.id).head == closing.id

    # -------------------------------------------------------------------------------- search

    def test_search_finds_every_word_newest_first(self, store: SessionStore,
                                                  folder: Path) -> None:
        conversation = self.new(folder)
        texts = ["the Quick brown fox", "a quick résumé of 東京 travel", "nothing here"]
        for n, text in enumerate(texts):
            message = Message.user(text)
            message.created_at = 1000.0 + n
            self.add(store, conversation, message)
            self.add(store, conversation, _answer(f"noted {n}"))
        tool = self.started(store, folder)
        call = ToolCallPart(name="grep", arguments={})
        self.add(store, tool, Message.assistant("", [call]))
        self.add(store, tool, Message(role=Role.TOOL, parts=[ToolResultPart(
            call_id=call.id, name="grep", content="found zanzibar in the logs")]))
        hits = store.search("QUICK")
        assert [h.message_id for h in hits][:2] == [
            conversation.all_messages()[2].id, conversation.all_messages()[0].id]
        assert hits[0].session_id == conversation.id and hits[0].role == "user"
        assert [h.session_title for h in hits][:1] == ["the Quick brown fox"]
        assert len(store.search("fox quick")) == 1  # every word, any order
        assert len(store.search("qui")) == 2  # the last word a prefix
        assert len(store.search("東京")) == 1
        assert len(store.search("résumé")) == 1
        assert [h.session_id for h in store.search("zanzibar")] == [tool.id]
        assert len(store.search("quick", limit=1)) == 1
        assert store.search("   ") == []
        assert isinstance(store.search('"quick" NOT * ( col:x'), list)  # never a syntax error
        with pytest.raises(UsageError):
            store.search("bad \udcff bytes")

    # -------------------------------------------------------------------------------- lists

    def test_lists_by_project_newest_first(self, store: SessionStore) -> None:
        a1 = self.imported(store, project="/p/a", updated_at=1000.0, title="a1")
        b1 = self.imported(store, project="/p/b", updated_at=2000.0, title="b1")
        a2 = self.imported(store, project="/p/a", updated_at=3000.0, title="a2")
        sub = self.imported(store, project="/p/a/sub", updated_at=4000.0, title="sub")
        none = self.imported(store, project=None, updated_at=5000.0, title="none")
        assert [i.id for i in store.list()] == [none.id, sub.id, a2.id, b1.id, a1.id]
        assert [i.id for i in store.list(project="/p/a")] == [a2.id, a1.id]
        assert [i.id for i in store.list(under="/p/a")] == [sub.id, a2.id, a1.id]
        assert [i.id for i in store.list(under="/p")] == [sub.id, a2.id, b1.id, a1.id]
        assert [i.id for i in store.list(limit=2)] == [none.id, sub.id]
        assert store.count() == 5 and store.count("/p/a") == 2 and store.count("/p/c") == 0
        assert store.latest("/p/b").id == b1.id  # type: ignore[union-attr]
        assert store.latest().id == none.id  # type: ignore[union-attr]
        assert store.latest("/p/c") is None
        assert store.list(project="/p/c") == []

    def test_resolve_by_id_prefix_or_name(self, store: SessionStore) -> None:
        one = self.imported(store, project=None, updated_at=1.0, name="alpha")
        assert store.resolve(one.id).id == one.id
        assert store.resolve(f"  {one.id} ").id == one.id
        assert store.resolve("alpha").id == one.id
        assert store.resolve(one.id[:12]).id == one.id
        assert store.resolve(one.id[2:12]).id == one.id  # without the s_
        for bad in ("", "   ", "s_nothing_like_it", "50%_off", "bad \udcff"):
            with pytest.raises(UsageError):
                store.resolve(bad)
        others = [self.imported(store, project=None, updated_at=2.0) for _ in range(30)]
        ids = [one.id, *(o.id for o in others)]
        shared = next(p for p in (a[:3] for a in ids) if sum(i.startswith(p) for i in ids) > 1)
        with pytest.raises(UsageError):
            store.resolve(shared)
        with pytest.raises(UsageError):
            store.load("no such session")

    def test_delete_takes_the_workers_sessions_along(self, store: SessionStore,
                                                     folder: Path) -> None:
        parent = self.started(store, folder)
        workers = []
        for n in range(2):
            worker = self.new(folder)
            worker.metadata["parent"] = parent.id
            worker.metadata["subagent"] = {"id": f"w{n}", "type": "explore", "task": f"t{n}"}
            self.turn(store, worker, f"worker task {n}")
            workers.append(worker)
        other = self.started(store, folder)
        assert {i.id for i in store.list()} == {parent.id, other.id}  # roots only
        assert store.count() == 2
        found = store.workers(parent.id)
        assert [(i.id, i.parent, w) for i, w in found] == [
            (w.id, parent.id, w.metadata["subagent"]) for w in workers]
        loaded = store.load(workers[0].id)
        assert loaded.metadata.get("parent") == parent.id
        assert loaded.metadata.get("subagent") == workers[0].metadata["subagent"]
        assert store.delete(parent.id)
        assert store.info(parent.id) is None
        assert all(store.info(w.id) is None for w in workers)
        assert store.messages(parent.id) == [] and store.checkpoints(parent.id) == []
        assert store.workers(parent.id) == []
        assert not store.delete(parent.id)
        assert store.info(other.id) is not None

    def test_many_sessions_and_their_counts(self, store: SessionStore, folder: Path) -> None:
        made = [self.started(store, folder, turns=n + 1, tag=f"s{n}") for n in range(4)]
        for conversation, n in zip(made, itertools.count(1), strict=False):
            info = store.info(conversation.id)
            assert info is not None and info.messages == 2 * n
            assert len(store.checkpoints(conversation.id)) == n
        assert {i.id for i in store.list(project=str(folder.resolve()))} == {
            c.id for c in made}

    def test_checkpoint_records_round_trip(self, store: SessionStore, folder: Path) -> None:
        conversation = self.started(store, folder)
        marked = Checkpoint(head=conversation.head, label="ünï ✓ label", created_at=1234.5)
        conversation.checkpoints.append(marked)
        assert store.add_checkpoint(conversation, marked)
        assert store.checkpoints(conversation.id)[0] == marked  # oldest first
