"""Per-file claims of parallel workers (chatcli_workspace.claim), with real threads: a waiter
blocks until the holder releases, a bounded wait ends in FileBusy naming the holder, a root
conversation waits but holds nothing, and an owner claiming twice never waits for itself."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli import Conversation
from chatcli_workspace import FileBusy, claim, claims_of, holder, release_claims


@pytest.fixture
def root() -> Iterator[Conversation]:
    made = Conversation(title="session")
    yield made


@pytest.fixture
def workers(root: Conversation) -> Iterator[list[Conversation]]:
    """Two workers of ``root``, as the delegation tool makes them; their claims released at the
    end whatever the test did."""
    made = [Conversation(parent=root, title=f"w{n} explore: look", metadata={
        "subagent": {"id": f"w{n}", "type": "explore" if n == 2 else "general"}})
        for n in (1, 2)]
    yield made
    for worker in made:
        release_claims(worker)


def test_a_worker_holds_its_claim_until_released(tmp_path: Path, workers: list[Conversation]
                                                 ) -> None:
    w1, _w2 = workers
    target = tmp_path / "a.py"
    assert holder(target) is None
    claim(target, w1, wait=0)
    assert holder(target) == "worker w1 (general)"
    assert claims_of(w1) == [str(target.resolve())]
    assert release_claims(w1) == [str(target.resolve())]
    assert holder(target) is None
    assert release_claims(w1) == []


def test_a_bounded_wait_ends_in_file_busy_naming_the_holder(
        tmp_path: Path, workers: list[Conversation]) -> None:
    w1, w2 = workers
    target = tmp_path / "a.py"
    claim(target, w2, wait=0)
    started = time.monotonic()
    with pytest.raises(FileBusy) as raised:
        claim(target, w1, wait=0.3)
    waited = time.monotonic() - started
    assert 0.3 <= waited < 2.0
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"'{target}' is being edited by worker w2 (explore); wait for "
                              "it to finish or work on another file")
    assert raised.value.holder == "worker w2 (explore)"
    assert holder(target) == "worker w2 (explore)"  # the holder keeps it


def test_a_waiter_blocks_until_the_holder_releases_then_holds_the_file(
        tmp_path: Path, workers: list[Conversation]) -> None:
    w1, w2 = workers
    target = tmp_path / "a.py"
    claim(target, w1, wait=0)
    got: list[float] = []
    errors: list[BaseException] = []

    def second() -> None:
        try:
            claim(target, w2, wait=10)
            got.append(time.monotonic())
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    thread = threading.Thread(target=second)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive() and not got  # still waiting
    released = time.monotonic()
    release_claims(w1)
    thread.join(5)
    assert not thread.is_alive() and not errors
    assert got and got[0] - released < 1.0  # woken by the release, not by the 10 s bound
    assert holder(target) == "worker w2 (explore)"


def test_release_wakes_every_waiter_and_one_of_them_wins_each_file(
        tmp_path: Path, root: Conversation) -> None:
    holder_worker = Conversation(parent=root, title="w0 general: hold")
    waiters = [Conversation(parent=root, title=f"w{n} general: wait") for n in range(1, 5)]
    target = tmp_path / "shared.txt"
    claim(target, holder_worker, wait=0)
    outcomes: dict[str, str] = {}
    lock = threading.Lock()

    def wait_for(worker: Conversation) -> None:
        try:
            claim(target, worker, wait=0.8)
            outcome = "got"
        except FileBusy as err:
            outcome = err.holder
        with lock:
            outcomes[worker.title] = outcome

    threads = [threading.Thread(target=wait_for, args=(w,)) for w in waiters]
    for thread in threads:
        thread.start()
    time.sleep(0.2)
    release_claims(holder_worker)
    for thread in threads:
        thread.join(5)
    try:
        winners = [title for title, outcome in outcomes.items() if outcome == "got"]
        assert len(outcomes) == 4 and len(winners) == 1  # one holder at a time
        for title, outcome in outcomes.items():
            if title != winners[0]:
                assert outcome == winners[0]  # the others were told who has it now
    finally:
        for worker in waiters:
            release_claims(worker)


def test_the_same_owner_claiming_twice_never_waits_for_itself(
        tmp_path: Path, workers: list[Conversation]) -> None:
    w1, _w2 = workers
    target = tmp_path / "a.py"
    claim(target, w1, wait=0)
    started = time.monotonic()
    claim(target, w1, wait=5)
    claim(tmp_path / "." / "a.py", w1, wait=5)  # the same file by another spelling
    assert time.monotonic() - started < 0.5
    assert claims_of(w1) == [str(target.resolve())]


def test_a_link_to_a_claimed_file_is_the_same_file(tmp_path: Path,
                                                   workers: list[Conversation]) -> None:
    w1, w2 = workers
    target = tmp_path / "real.txt"
    target.write_text("x")
    (tmp_path / "link.txt").symlink_to(target)
    claim(target, w1, wait=0)
    with pytest.raises(FileBusy, match="worker w1"):
        claim(tmp_path / "link.txt", w2, wait=0)


def test_a_root_conversation_waits_for_a_worker_but_holds_nothing(
        tmp_path: Path, root: Conversation, workers: list[Conversation]) -> None:
    w1, w2 = workers
    target = tmp_path / "a.py"
    claim(target, root, wait=0)  # nobody holds it: through, holding nothing
    assert holder(target) is None
    claim(target, w1, wait=0)  # so a worker gets it at once
    with pytest.raises(FileBusy, match="worker w1"):
        claim(target, root, wait=0.1)  # the user's own agent waits for the worker
    release_claims(w1)
    claim(target, root, wait=0)
    claim(target, w2, wait=0)


def test_a_worker_is_not_blocked_by_the_worker_that_delegated_to_it(
        tmp_path: Path, root: Conversation) -> None:
    parent = Conversation(parent=root, title="w1 general: plan")
    child = Conversation(parent=parent, title="w2 general: part")
    sibling = Conversation(parent=root, title="w3 general: other")
    target = tmp_path / "a.py"
    try:
        claim(target, parent, wait=0)
        claim(target, child, wait=0)  # its delegator waits for it: no deadlock
        assert holder(target) == "w1 general: plan"
        with pytest.raises(FileBusy, match="w1 general: plan"):
            claim(target, sibling, wait=0)
    finally:
        for worker in (parent, child, sibling):
            release_claims(worker)


def test_a_waiter_stops_when_its_turn_is_cancelled(tmp_path: Path,
                                                    workers: list[Conversation]) -> None:
    w1, w2 = workers
    target = tmp_path / "a.py"
    claim(target, w1, wait=0)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(FileBusy, match="the turn was stopped while waiting"):
        claim(target, w2, wait=30, cancel=cancel)
    assert time.monotonic() - started < 2.0


def test_two_workers_crossing_two_files_end_in_file_busy_not_a_deadlock(
        tmp_path: Path, workers: list[Conversation]) -> None:
    w1, w2 = workers
    a, b = tmp_path / "a", tmp_path / "b"
    claim(a, w1, wait=0)
    claim(b, w2, wait=0)
    errors: list[str] = []

    def want(path: Path, worker: Conversation) -> None:
        try:
            claim(path, worker, wait=0.3)
        except FileBusy as err:
            errors.append(err.holder)

    threads = [threading.Thread(target=want, args=(b, w1)),
               threading.Thread(target=want, args=(a, w2))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert not any(t.is_alive() for t in threads)
    assert sorted(errors) == ["worker w1 (general)", "worker w2 (explore)"]


def test_the_holder_is_named_on_one_line_by_title_or_id(tmp_path: Path, root: Conversation
                                                        ) -> None:
    titled = Conversation(parent=root, title="w7 general: fix\nthe parser")
    untitled = Conversation(parent=root)
    try:
        claim(tmp_path / "a", titled, wait=0)
        claim(tmp_path / "b", untitled, wait=0)
        assert holder(tmp_path / "a") == "w7 general: fix the parser"
        assert holder(tmp_path / "b") == untitled.id
        with pytest.raises(FileBusy) as raised:
            claim(tmp_path / "a", untitled, wait=0)
        assert "\n" not in str(raised.value)
    finally:
        release_claims(titled)
        release_claims(untitled)
