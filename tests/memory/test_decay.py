"""Facts age: an unused fact's strength halves every half-life and below the threshold it is
archived (kept, never recalled, never deleted); a fact that keeps being recalled stays; daily
notes are kept ``memory.daily_days`` days. Time is simulated with the clock the tests move."""

from __future__ import annotations

from typing import Any

from chatcli_memory_api import MemoryKind
from chatcli_testing import Reply
from memory_support import chat_requests, extraction, stable_prefix


def test_an_unused_fact_decays_and_is_archived(chat: Any, openai_server: Any,
                                               clock: Any) -> None:
    first = chat()
    first.command("add the release branch is called stable")
    first.command("add --profile name Ada")
    first.close()

    clock.advance(days=60)  # stated 0.9 × ½^(60/30) = 0.225: still above 0.15
    second = chat()
    second.wait()
    (item,) = second.runtime.memory.backend.list(kind=MemoryKind.FACT)
    assert not item.archived
    assert round(second.runtime.memory.strength(item), 3) == 0.225
    second.close()

    clock.advance(days=30)  # 0.9 × ½³ = 0.1125 < 0.15
    third = chat()
    third.wait()
    backend = third.runtime.memory.backend
    assert backend.list(kind=MemoryKind.FACT) == []
    (archived,) = backend.list(kind=MemoryKind.FACT, include_archived=True)
    assert archived.archived and archived.metadata["archived_reason"] == "decayed"
    assert [i.text for i in backend.list(kind=MemoryKind.PROFILE)] == ["Ada"]  # no decay
    third.turn("what is the release branch called?")
    prefix = stable_prefix(chat_requests(openai_server)[-1])
    assert "stable" not in prefix.split("# Memory")[1] and "User: name Ada" in prefix
    assert "release branch" not in chat_requests(openai_server)[-1].json["messages"][0][
        "content"].split("Today is")[1]  # not recalled either
    assert "1 archived" in third.command("status")


def test_a_recalled_fact_stays(chat: Any, clock: Any) -> None:
    first = chat(memory={"index_items": 0})  # reachable only by recall
    first.command("add the staging database must never be touched")
    first.close()
    for _ in range(4):
        clock.advance(days=25)
        session = chat(memory={"index_items": 0})
        session.wait()
        session.turn("can I run migrations on the staging database?")
        assert "staging database must never be touched" in session.request().system_text()
        session.close()
    (item,) = session.runtime.memory.backend.list(kind=MemoryKind.FACT)
    assert item.uses == 4 and not item.archived  # 100 days old, used every 25


def test_daily_notes_are_kept_daily_days(chat: Any, openai_server: Any, clock: Any) -> None:
    openai_server.script("a", "b", Reply(text=extraction(daily=["fixed the flaky test"])))
    session = chat(memory={"daily_days": 3})
    session.turn("one")
    session.turn("two")
    session.wait()
    (note,) = session.runtime.memory.backend.list(kind=MemoryKind.DAILY)
    assert note.key == session.runtime.memory.today()
    session.close()
    same_day = chat(memory={"daily_days": 3})
    assert "- " + note.key + ": fixed the flaky test" in same_day.request().system_text()
    same_day.close()

    clock.advance(days=3)
    later = chat(memory={"daily_days": 3})
    later.wait()
    assert len(later.runtime.memory.backend.list(kind=MemoryKind.DAILY)) == 1
    later.close()
    clock.advance(days=1)
    last = chat(memory={"daily_days": 3})
    last.wait()
    backend = last.runtime.memory.backend
    assert backend.list(kind=MemoryKind.DAILY) == []
    (kept,) = backend.list(kind=MemoryKind.DAILY, include_archived=True)
    assert kept.metadata["archived_reason"] == "expired"
