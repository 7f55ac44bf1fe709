"""A fact stated in one session is in the prompt of the next: added with ``/memory add``, or
picked out of the conversation by the extraction model (the wire server plays it too). The
index is a stable section, byte-identical turn after turn."""

from __future__ import annotations

from typing import Any

from chatcli_testing import Reply
from memory_support import (
    EXTRACTION_MARK,
    chat_requests,
    extraction,
    extraction_requests,
    stable_prefix,
    system_of,
)


def test_a_fact_added_in_one_session_is_in_the_next_sessions_prompt(
        chat: Any, openai_server: Any) -> None:
    first = chat()
    out = first.command("add remember: this project uses uv")
    assert out.startswith("remembered as ") and "(this project)" in out
    first.close()

    second = chat()
    second.turn("how do I add a dependency?")
    (request,) = chat_requests(openai_server)
    prefix = stable_prefix(request)
    assert "# Memory" in prefix and "- this project uses uv" in prefix


def test_a_fact_from_the_extraction_model_is_in_the_next_sessions_prompt(
        chat: Any, openai_server: Any) -> None:
    openai_server.script("Use uv add.", "Sure.", Reply(text=extraction(
        long_term=[{"text": "The project manages dependencies with uv.",
                    "category": "tooling", "subject": "package manager"}],
        profile={"name": "Ada", "preferences": ["terse answers"]},
        daily=["set up the project's dependencies"])))
    first = chat()
    first.turn("We use uv here, I'm Ada. How do I add a dependency?")
    assert extraction_requests(openai_server) == []  # 2 messages: not yet
    first.turn("Thanks, keep answers short please.")
    first.wait()
    (sent,) = extraction_requests(openai_server)
    body = sent.json["messages"][1]["content"]
    assert "USER: We use uv here" in body and "ASSISTANT: Sure." in body
    assert first.runtime.worker.last_outcome == "ok: 4 stored"
    first.close()

    second = chat()
    second.turn("what next?")
    request = chat_requests(openai_server)[-1]
    prefix = stable_prefix(request)
    assert "- The project manages dependencies with uv." in prefix
    assert "User: name Ada" in prefix
    assert "Preferences:\n- terse answers" in prefix
    assert "set up the project's dependencies" in prefix
    assert EXTRACTION_MARK not in system_of(request)


def test_the_index_is_byte_identical_turn_after_turn(chat: Any, openai_server: Any) -> None:
    seed = chat()
    seed.command("add the staging database is read only")
    seed.command("add --profile directive never push to main")
    seed.close()

    openai_server.script("a", "b", Reply(text=extraction(
        long_term=[{"text": "CI runs on GitHub Actions."}])), "c", "d")
    session = chat()
    session.turn("one")
    session.turn("two")
    session.wait()  # the extraction stored a fact in the middle of the session
    session.command("add a fact added during the session")
    session.turn("three")
    session.turn("four about the session")
    prefixes = {stable_prefix(r) for r in chat_requests(openai_server)}
    assert len(prefixes) == 1
    (prefix,) = prefixes
    assert "Directives (always follow):\n- never push to main" in prefix
    assert "GitHub Actions" not in prefix  # learnt this session: the next session's index
    third, fourth = (system_of(r).split(prefix)[1] for r in chat_requests(openai_server)[2:])
    assert "- a fact added during the session (added just now)" in third
    assert "- a fact added during the session\n" in fourth + "\n"  # it matches: recalled
