"""Two replicas (two store objects, two threads, two OS processes) appending to one session at
once never lose, duplicate or reorder a message, and the head only moves by compare-and-set:
every append whose head move won is on the session's path, every one that lost is a branch."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from chatcli import Conversation, Message
from chatcli_sessions_api import HeadMoved, SessionStore
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sessions_postgres_support import turn, wired

WRITER = Path(__file__).with_name("pg_session_writer.py")


def _started(store: SessionStore) -> str:
    """A stored session with one turn; its id."""
    conversation = wired(store)
    turn(conversation, "start")
    return conversation.id


def _check(store: SessionStore, session_id: str, start: list[str],
           outcomes: dict[str, list[tuple[str, bool]]]) -> None:
    """The log holds the starting messages then every writer's messages, once each, each
    writer's in its own order; the path from the head holds exactly the winners."""
    log = store.messages(session_id)
    ids = [m.id for m in log]
    written = [mid for results in outcomes.values() for mid, _ in results]
    assert len(ids) == len(set(ids)) == len(start) + len(written)  # none lost or doubled
    assert ids[:len(start)] == start
    assert sorted(ids[len(start):]) == sorted(written)
    for results in outcomes.values():  # each writer's messages in the order it wrote them
        mine = [mid for mid, _ in results]
        assert [mid for mid in ids if mid in set(mine)] == mine
    info = store.info(session_id)
    assert info is not None and info.messages == len(ids)
    by_id = {m.id: m for m in log}
    path: list[str] = []
    cursor = info.head
    while cursor is not None:
        path.append(cursor)
        cursor = by_id[cursor].parent_id
    winners = {mid for results in outcomes.values() for mid, won in results if won}
    assert set(path) - set(start) == winners
    assert path[-len(start):] == list(reversed(start))


def test_two_replicas_interleaved_by_threads(open_store) -> None:
    first, second = open_store(), open_store()
    session_id = _started(first)
    start = [m.id for m in first.messages(session_id)]
    outcomes: dict[str, list[tuple[str, bool]]] = {}
    barrier = threading.Barrier(2)

    def writer(store: SessionStore, tag: str) -> None:
        results = outcomes.setdefault(tag, [])
        barrier.wait()
        for n in range(40):
            conversation = store.load(session_id)
            message = Message.user(f"{tag} {n}")
            conversation.append(message)
            try:
                store.append(conversation, message)
            except HeadMoved as moved:
                assert moved.current != message.id
                results.append((message.id, False))
            else:
                results.append((message.id, True))

    threads = [threading.Thread(target=writer, args=(store, tag))
               for store, tag in ((first, "a"), (second, "b"))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _check(second, session_id, start, outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("writers", [2, 3])
def test_replicas_in_separate_processes(open_store, pg_schema_url: str, writers: int) -> None:
    store = open_store()
    session_id = _started(store)
    start = [m.id for m in store.messages(session_id)]
    tags = [f"w{n}" for n in range(writers)]
    procs = [subprocess.Popen([sys.executable, str(WRITER), pg_schema_url, session_id, tag,
                               "60"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for tag in tags]
    outcomes: dict[str, list[tuple[str, bool]]] = {}
    try:
        for proc in procs:  # every writer imported and waiting: then they start together
            assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for proc in procs:
            assert proc.stdin is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
        for tag, proc in zip(tags, procs, strict=True):
            out, err = proc.communicate(timeout=300)
            lines = out.split()
            assert proc.returncode == 0 and lines[-1] == "done", err
            outcomes[tag] = [tuple(json.loads(line)) for line in out.splitlines()[:-1]]
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    _check(store, session_id, start, outcomes)
    assert sum(won for results in outcomes.values() for _, won in results) >= 1


STEPS = st.lists(st.tuples(st.integers(0, 1), st.sampled_from(["append", "reload"])),
                 min_size=1, max_size=25)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_any_interleaving_of_two_replicas_keeps_every_message(open_store_once, steps) -> None:
    """Each step is one replica appending on the head it last read, or reading again; the
    store must end exactly as a model of compare-and-set says."""
    first, second = open_store_once
    session_id = _started(first)
    stores = (first, second)
    views: list[Conversation] = [first.load(session_id), second.load(session_id)]
    log = [m.id for m in first.messages(session_id)]
    head = first.info(session_id).head  # type: ignore[union-attr]
    for replica, action in steps:
        store = stores[replica]
        if action == "reload":
            views[replica] = store.load(session_id)
            assert views[replica].head == head
            continue
        conversation = views[replica]
        message = Message.user(f"from {replica} #{uuid.uuid4().hex[:6]}")
        parent = conversation.head
        conversation.append(message)
        log.append(message.id)
        if parent == head:
            store.append(conversation, message)
            head = message.id
        else:
            with pytest.raises(HeadMoved) as moved:
                store.append(conversation, message)
            assert moved.value.current == head and moved.value.wanted == message.id
        assert [m.id for m in first.messages(session_id)] == log
        assert second.info(session_id).head == head  # type: ignore[union-attr]


def test_one_store_shared_by_many_threads(open_store) -> None:
    """A server's threads share one store (its connections, one per thread at a time)."""
    store = open_store()
    barrier = threading.Barrier(6)
    failures: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            conversation = wired(store)
            barrier.wait()
            for k in range(8):
                turn(conversation, f"thread {n} turn {k}")
            assert [m.text for m in store.load(conversation.id).messages()] == \
                [m.text for m in conversation.messages()]
        except BaseException as err:  # reported by the test's thread
            failures.append(err)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert sorted(i.messages for i in store.list()) == [16] * 6


def test_a_load_during_appends_sees_one_consistent_state(open_store) -> None:
    """``load`` reads in one snapshot: whatever another replica commits meanwhile, the session
    read is whole (its head in its log, every parent before its child, the count right)."""
    writer_store, reader = open_store(), open_store()
    session_id = _started(writer_store)
    done = threading.Event()

    def writer() -> None:
        conversation = writer_store.load(session_id)
        wired(writer_store, conversation)
        for n in range(60):
            turn(conversation, f"appended while read {n}")
        done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    loads = 0
    try:
        while not done.is_set() or loads == 0:
            conversation = reader.load(session_id)
            log = conversation.all_messages()
            seen: set[str] = set()
            for message in log:
                assert message.parent_id is None or message.parent_id in seen
                seen.add(message.id)
            assert conversation.head in seen
            assert [m.id for m in conversation.messages()][-1] == conversation.head
            loads += 1
    finally:
        thread.join()
    assert reader.info(session_id).messages == 2 + 120  # type: ignore[union-attr]
