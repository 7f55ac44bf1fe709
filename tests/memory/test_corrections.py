"""A correction supersedes the fact it corrects: the new one is recalled, the old one is kept,
archived, with ``superseded_by`` naming its successor — through the extraction model (naming
the id it supersedes, or the same subject), ``/memory edit`` and ``/memory add --subject``."""

from __future__ import annotations

from typing import Any

import pytest
from chatcli_memory_api import MemoryKind, Provenance
from chatcli_testing import Reply
from memory_support import chat_requests, extraction, extraction_requests, stable_prefix


def _facts(chat: Any, archived: bool = True) -> list[Any]:
    return chat.runtime.memory.backend.list(kind=MemoryKind.FACT, include_archived=archived)


def test_the_extraction_model_corrects_a_stated_fact(chat: Any, openai_server: Any) -> None:
    first = chat()
    first.command("add remember: this project uses uv")
    (old,) = _facts(first)
    first.close()

    openai_server.script("ok", "ok", Reply(text=extraction(long_term=[{
        "text": "The project switched from uv to poetry.", "subject": "package manager",
        "correction": True, "supersedes": old.id}])))
    second = chat()
    second.turn("we moved to poetry last week")
    second.turn("yes, poetry for everything now")
    second.wait()
    assert old.id in extraction_requests(openai_server)[0].json["messages"][0]["content"]
    items = {i.id: i for i in _facts(second)}
    (new,) = [i for i in items.values() if i.id != old.id]
    assert (new.text, new.provenance, new.confidence) == (
        "The project switched from uv to poetry.", Provenance.CORRECTED, 1.0)
    assert items[old.id].archived and items[old.id].superseded_by == new.id
    second.close()

    third = chat()
    third.turn("which package manager?")
    prefix = stable_prefix(chat_requests(openai_server)[-1])
    assert "poetry" in prefix and "this project uses uv" not in prefix


def test_a_newer_fact_on_the_same_subject_supersedes(chat: Any, openai_server: Any) -> None:
    session = chat()
    session.command('add --subject "package manager" we use pip')
    openai_server.script("ok", "ok", Reply(text=extraction(long_term=[{
        "text": "We use uv for packaging.", "subject": "Package Manager"}])))
    session.turn("switching to uv")
    session.turn("done")
    session.wait()
    live = _facts(session, archived=False)
    assert [i.text for i in live] == ["We use uv for packaging."]
    (old,) = [i for i in _facts(session) if i.archived]
    assert old.text == "we use pip" and old.superseded_by == live[0].id


def test_memory_edit_is_a_correction(chat: Any) -> None:
    session = chat()
    session.command("add deploys happen on fridays")
    (item,) = _facts(session)
    out = session.command(f"edit {item.id[4:10]} deploys happen on mondays")
    assert out.startswith("corrected: ") and "(kept, archived)" in out
    live = _facts(session, archived=False)
    assert [(i.text, i.provenance, i.confidence) for i in live] == [
        ("deploys happen on mondays", Provenance.CORRECTED, 1.0)]
    old = session.runtime.memory.backend.get(item.id)
    assert old.archived and old.superseded_by == live[0].id
    assert "deploys happen on mondays" in session.request().system_text()
    assert "fridays" not in session.request().system_text()


def test_a_near_identical_fact_merges_and_reinforces(chat: Any) -> None:
    session = chat()
    session.command("add The project uses uv.")
    out = session.command("add remember: the project uses uv")
    assert out.startswith("already remembered as ")
    (item,) = _facts(session)
    assert item.confidence == pytest.approx(0.95)  # stated 0.9, reinforced +0.05
    session.command("add the project uses uv!")
    session.command("add Project uses UV")
    (item,) = _facts(session)
    assert item.confidence == pytest.approx(1.0)  # clamped
