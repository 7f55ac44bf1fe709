"""The question slot of the chat (``chatcli_repl.app.Turns``): threads asking at once are served
one at a time in the order they came, the one holding it may ask again (an approval's follow-up
question), and a waiting thread whose turn was stopped gives up without being served. And who
asks: the worker's label chatcli-subagents puts before a verdict's reason."""

from __future__ import annotations

import threading
import time

import pytest
from chatcli_repl.app import Turns
from chatcli_repl.approval_view import asker


def test_threads_asking_at_once_are_served_one_at_a_time_in_order() -> None:
    turns = Turns()
    assert turns.take(lambda: False)  # the first asker holds the slot
    served: list[int] = []
    inside = 0
    most = 0
    guard = threading.Lock()

    def ask(number: int) -> None:
        nonlocal inside, most
        assert turns.take(lambda: False)
        try:
            assert turns.take(lambda: False)  # a follow-up question of its own: no wait
            turns.give_back()
            with guard:
                inside += 1
                most = max(most, inside)
            served.append(number)
            time.sleep(0.02)
            with guard:
                inside -= 1
        finally:
            turns.give_back()

    threads = []
    for number in range(5):
        thread = threading.Thread(target=ask, args=(number,))
        thread.start()
        threads.append(thread)
        time.sleep(0.1)  # each comes after the previous one is waiting
    turns.give_back()
    for thread in threads:
        thread.join(5)
    assert served == [0, 1, 2, 3, 4]
    assert most == 1


def test_a_waiting_thread_gives_up_when_its_turn_is_stopped() -> None:
    turns = Turns()
    assert turns.take(lambda: False)
    stopped = threading.Event()
    outcome: list[bool] = []
    thread = threading.Thread(target=lambda: outcome.append(turns.take(stopped.is_set)))
    thread.start()
    time.sleep(0.2)
    assert outcome == []  # waits while the slot is held
    began = time.monotonic()
    stopped.set()
    thread.join(2)
    assert outcome == [False] and time.monotonic() - began < 0.5
    turns.give_back()
    assert turns.take(lambda: False)  # the slot is free again: the one that gave up holds none
    turns.give_back()


@pytest.mark.parametrize(("reason", "header", "rest"), [
    ("w2 explore: the command writes outside the workspace",
     "worker w2 (explore) asks:", "the command writes outside the workspace"),
    ("w12 code-reviewer: a: b", "worker w12 (code-reviewer) asks:", "a: b"),
    ("w1 general", "worker w1 (general) asks:", ""),
    ("w3 general: ", "worker w3 (general) asks:", ""),
    ("the note file is outside src", "", "the note file is outside src"),
    ("w2 is not a label: no", "", "w2 is not a label: no"),
    ("", "", ""),
])
def test_the_worker_that_asks_is_read_from_the_verdicts_label(reason: str, header: str,
                                                              rest: str) -> None:
    assert asker(reason) == (header, rest)
