"""The extraction worker: when it runs (4 new messages, a 2-minute cooldown, a slow timer),
that it runs in the background (the next prompt never waits for it), what a malformed answer,
a slow model, a failing model and exit do to memory (nothing), and where it is off."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from chatcli_testing import Fault, Reply
from memory_support import (
    chat_requests,
    cli,
    extraction,
    extraction_requests,
    wait_for,
)


def _dump(chat: Any) -> list[dict[str, Any]]:
    return [i.model_dump() for i in chat.runtime.memory.backend.list(include_archived=True)]


def test_it_waits_for_four_new_messages_and_the_cooldown(chat: Any, openai_server: Any,
                                                        clock: Any) -> None:
    openai_server.script("a1", "a2", Reply(text="{}"), "a3", "a4", "a5", "a6",
                         Reply(text=extraction(topics=["release process"])))
    session = chat()
    session.turn("one")
    assert session.runtime.worker.last_started is None  # 2 new messages
    session.turn("two")
    session.wait()
    assert len(extraction_requests(openai_server)) == 1
    assert session.runtime.worker.last_outcome == "nothing new"
    session.turn("three")
    session.turn("four")  # 4 new messages, but only now + 0 s since the last run
    session.wait()
    assert len(extraction_requests(openai_server)) == 1
    clock.advance(seconds=119)
    session.turn("five")
    session.wait()
    assert len(extraction_requests(openai_server)) == 1
    clock.advance(seconds=1)
    session.turn("six")
    session.wait()
    (_first, second) = extraction_requests(openai_server)
    sent = second.json["messages"][1]["content"]
    assert "USER: three" in sent and "USER: six" in sent  # what the first run had not read
    assert "USER: one" not in sent
    assert "ASSISTANT: a2" in sent  # context: the two messages before the new ones
    assert session.runtime.worker.last_outcome == "ok: 1 stored"


def test_the_slow_timer_extracts_what_answers_left_behind(chat: Any, openai_server: Any,
                                                          clock: Any) -> None:
    openai_server.script("a1", "a2", "{}", "a3", "a4",
                         Reply(text=extraction(projects=["memory plugin"])))
    session = chat(memory={"interval": 0.05})
    session.turn("one")
    session.turn("two")
    session.wait()
    session.turn("three")
    session.turn("four")  # within the cooldown: the answer does not extract
    assert len(extraction_requests(openai_server)) == 1
    clock.advance(seconds=121)  # no answer comes: the timer's tick sees the cooldown over
    wait_for(lambda: len(extraction_requests(openai_server)) == 2)
    session.wait()
    assert session.runtime.worker.last_outcome == "ok: 1 stored"
    assert session.runtime.state.get("last_extraction")["reason"] == "the timer"


def test_the_worker_never_delays_the_next_prompt(chat: Any, openai_server: Any) -> None:
    """While the extraction model streams slowly (every chunk 0.15 s apart), the next turn
    runs to its end; the extraction finishes after it."""
    slow = Reply(text=extraction(long_term=[{"text": "The CI pipeline is in .gitlab-ci.yml."}]),
                 chunk_size=4, delay=0.15)
    openai_server.script("a1", "a2", slow, "a3")
    session = chat()
    order: list[str] = []
    session.wait()  # the start-up maintenance
    session.runtime.events.clear()
    session.turn("one")
    session.turn("two")
    wait_for(lambda: extraction_requests(openai_server))  # the slow answer is the worker's
    assert session.runtime.worker.busy
    session.turn("three")
    order.append("turn three finished" + (" while extracting" if session.runtime.worker.busy
                                          else ""))
    session.wait()
    order.append("extraction finished")
    assert order == ["turn three finished while extracting", "extraction finished"]
    assert [e for e, _ in session.runtime.events] == ["started", "finished"]
    assert session.runtime.worker.last_outcome == "ok: 1 stored"
    assert [r.json["messages"][-1]["content"] for r in chat_requests(openai_server)] == [
        "one", "two", "three"]


def test_malformed_extraction_output_changes_nothing(chat: Any, openai_server: Any) -> None:
    session = chat()
    session.command("add the project uses uv")
    before = _dump(session)
    for answer in ("Sure! Here is what I found: uv is used.", '{"long_term": [{"text": "x"',
                   "[1, 2, 3]", '"just a string"', "```json\n{broken: yes}\n```"):
        openai_server.script("a", "b", Reply(text=answer))
        session.turn("one")
        session.turn("two")
        session.wait()
        outcome = session.runtime.worker.last_outcome
        assert outcome.startswith("malformed: ") and outcome.endswith("(nothing changed)"), \
            answer
        assert _dump(session) == before
        session.runtime.worker.last_started = None  # skip the cooldown
    assert "malformed: " in session.command("status")


def test_entries_of_the_wrong_type_are_skipped(chat: Any, openai_server: Any) -> None:
    openai_server.script("a", "b", Reply(text=json.dumps({
        "long_term": [{"text": "Tests run with pytest -n auto."}, 42, {"category": "x"}],
        "topics": "sqlite", "projects": {"bad": 1}, "profile": ["no"]})))
    session = chat()
    session.turn("one")
    session.turn("two")
    session.wait()
    assert session.runtime.worker.last_outcome == \
        "ok: 2 stored; 4 malformed entries skipped"


def test_a_slow_or_failing_model_changes_nothing(chat: Any, openai_server: Any) -> None:
    openai_server.script("a", "b", Fault(stall=5))
    session = chat(memory={"timeout": 0.5})
    session.turn("one")
    session.turn("two")
    session.wait()
    assert session.runtime.worker.last_outcome == "timed out after 0.5 s (nothing changed)"
    openai_server.script("c", Fault(status=500, message="boom"))
    session.runtime.worker.last_started = None  # the cooldown is over
    session.turn("three")  # 6 messages nobody extracted: a run starts
    session.wait()
    outcome = session.runtime.worker.last_outcome
    assert outcome.startswith("failed: ") and outcome.endswith("(nothing changed)")
    assert session.runtime.memory.backend.list(include_archived=True) == []
    assert session.turn("four").error is None  # the session goes on


def test_a_run_in_flight_at_exit_is_dropped(chat: Any, openai_server: Any) -> None:
    gate = threading.Event()
    session = chat(memory={"exit_wait": 0.1})
    real = session.runtime.call_model

    def held(system: str, user: str, timeout: float) -> str:
        answer = real(system, user, timeout)
        gate.wait(10)  # the answer is in, exit comes before it is applied
        return answer

    session.runtime.worker.call = held
    openai_server.script("a", "b", Reply(text=extraction(long_term=[{"text": "dropped"}])))
    session.turn("one")
    session.turn("two")
    wait_for(lambda: extraction_requests(openai_server))
    session.close()  # waits 0.1 s, then drops the run
    gate.set()
    session.runtime.worker.wait(10)
    assert session.runtime.worker.last_outcome == "dropped at exit (nothing changed)"
    assert session.runtime.memory.backend.list() == []


def test_extraction_off(chat: Any, openai_server: Any) -> None:
    session = chat(memory={"extract": False})
    session.turn("one")
    session.turn("two")
    session.turn("three")
    assert session.runtime.worker.last_started is None
    assert extraction_requests(openai_server) == []
    assert "extraction: off" in session.command("status")


def test_one_shot_runs_extract_only_when_asked(openai_server: Any, home: Path,
                                               workspace: Path) -> None:
    openai_server.script("The answer.")
    done = cli(home, workspace, openai_server, "-p", "we deploy with ansible")
    assert done.returncode == 0, done.stderr
    assert extraction_requests(openai_server) == []

    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "config.toml").write_text("[memory]\nextract_oneshot = true\n")
    openai_server.script("The answer.", Reply(text=extraction(long_term=[
        {"text": "Deploys use ansible.", "subject": "deploys"}])))
    done = cli(home, workspace, openai_server, "-p", "we deploy with ansible")
    assert done.returncode == 0, done.stderr
    assert len(extraction_requests(openai_server)) == 1
    listed = cli(home, workspace, None, "memory", "list", model_flags=False)
    assert "Deploys use ansible." in listed.stdout, listed.stderr
    status = cli(home, workspace, None, "memory", "status", model_flags=False)
    assert "(the end of a one-shot run): ok: 1 stored" in status.stdout
