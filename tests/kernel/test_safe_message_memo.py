"""``chatcli.safe_message`` remembers the messages it found safe (a request builder asks about
every message of the history on every turn): asking again is a look-up, and the memory never
lets an unsafe message through — not a copy, not a new message that took a dead one's id."""

from __future__ import annotations

import gc

from chatcli import Message, safe_message
from chatcli._safetext import _KNOWN_SAFE


def test_a_safe_message_is_itself_and_remembered() -> None:
    message = Message.user("plain text")
    assert safe_message(message) is message
    assert id(message) in _KNOWN_SAFE
    assert safe_message(message) is message


def test_an_unsafe_message_is_replaced_and_only_its_safe_copy_remembered() -> None:
    message = Message.user("a\ud800b\x00c")
    made = safe_message(message)
    assert made is not message and made.text == "a\ufffdb\ufffdc"
    assert id(made) in _KNOWN_SAFE and id(message) not in _KNOWN_SAFE
    assert safe_message(made) is made


def test_a_dead_messages_memory_goes_with_it_and_its_id_proves_nothing() -> None:
    for _ in range(200):  # ids of dead objects are soon reused by new ones of the same size
        safe = Message.user("fine")
        safe_message(safe)
        old = id(safe)
        del safe
        gc.collect()
        assert old not in _KNOWN_SAFE
        unsafe = Message.user("bad \ud800")
        assert "\ud800" not in safe_message(unsafe).text
