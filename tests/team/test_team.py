"""The team deployment on one machine: three ``chatcli serve`` replicas sharing one sessions
store (one data folder: SQLite across processes) behind Debian's nginx, round robin — so
consecutive requests of one session land on different replicas, each of which must continue the
session from the store."""

from __future__ import annotations

import threading
import uuid

import pytest
from team_support import (
    HOLD,
    EchoModel,
    Team,
    TurnResult,
    answer_for,
    post_turn,
    session_messages,
)

pytestmark = pytest.mark.slow


def _mid() -> str:
    return uuid.uuid4().hex


def _converse(team: Team, texts: list[str]) -> tuple[str, set[str]]:
    """A new session through the balancer: the first message creates it, the others follow
    it; every turn must end with its own answer. (The session id, the boots seen.)"""
    boots: set[str] = set()
    with team.client() as client:
        first = post_turn(client, "/api/sessions", {"text": texts[0], "id": _mid()})
        assert first.status == 201 and first.done, (first, team.logs())
        sid = first.session
        assert first.headers["location"] == f"/api/sessions/{sid}"
        assert first.text == answer_for(texts[0])
        boots.add(first.events[0].id.split("-")[0])
        for text in texts[1:]:
            turn = post_turn(client, f"/api/sessions/{sid}/messages",
                             {"text": text, "id": _mid()})
            assert turn.done, (text, turn, team.logs())
            assert turn.text == answer_for(text), (text, turn.text)
            boots.add(turn.events[0].id.split("-")[0])
    return sid, boots


def _expected(texts: list[str]) -> list[tuple[str, str]]:
    return [pair for text in texts for pair in (("user", text), ("assistant", answer_for(text)))]


def test_a_session_continued_across_replicas_keeps_every_message_in_order(
        team: Team, model: EchoModel) -> None:
    texts = [f"message {n}" for n in range(1, 10)]
    sid, boots = _converse(team, texts)
    assert len(boots) >= 2  # round robin did spread the turns over replicas
    for replica in team.replicas:  # each replica reads the same session now
        with team.direct(replica) as client:
            assert session_messages(client, sid) == _expected(texts)
    # and the model was sent the whole conversation every time, in order
    for number, text in enumerate(texts):
        sent = next(s for s in model.seen if s and s[-1] == ("user", text))
        assert sent == [*_expected(texts[:number]), ("user", text)]


def test_concurrent_turns_on_different_sessions_through_the_balancer(team: Team) -> None:
    results: dict[int, tuple[str, set[str]]] = {}
    errors: list[BaseException] = []

    def client(number: int) -> None:
        try:
            results[number] = _converse(team, [f"s{number} m{n}" for n in range(1, 5)])
        except BaseException as err:  # the test reports it
            errors.append(err)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    assert not errors, errors
    with team.client() as reader:
        for number, (sid, _) in results.items():
            assert session_messages(reader, sid) == _expected(
                [f"s{number} m{n}" for n in range(1, 5)])
        listed = {s["id"] for s in reader.get("/api/sessions").json()["sessions"]}
    assert {sid for sid, _ in results.values()} <= listed


def test_sse_through_nginx_streams_each_event_as_it_comes(team: Team, model: EchoModel) -> None:
    seen_before_release: list[str] = []

    def watch(event: object) -> None:
        kind = getattr(event, "kind", "")
        if kind == "text" and not model.release.is_set():
            # the model holds the rest of its answer until the client saw this first piece
            assert model.holding.is_set()
            seen_before_release.append(str(getattr(event, "data", {}).get("delta")))
            model.release.set()

    with team.client(headers={"Accept-Encoding": "gzip"}) as client:
        turn = post_turn(client, "/api/sessions", {"text": f"{HOLD} stream it"}, watch)
    assert turn.done, (turn, team.logs())
    assert seen_before_release, "no text arrived before the model finished its answer"
    assert turn.text == answer_for(f"{HOLD} stream it")
    assert turn.headers["content-type"].startswith("text/event-stream")
    assert "content-encoding" not in turn.headers  # nginx must not gzip the stream


def test_a_replica_killed_mid_turn_leaves_the_session_to_the_others(
        team: Team, model: EchoModel) -> None:
    texts = ["before 1", "before 2"]
    sid, _ = _converse(team, texts)
    held = f"{HOLD} during the kill"
    held_id = _mid()
    with team.client() as client:
        cut: list[TurnResult] = []
        killer = threading.Thread(target=lambda: cut.append(post_turn(
            client, f"/api/sessions/{sid}/messages", {"text": held, "id": held_id})))
        killer.start()
        assert model.holding.wait(60), team.logs()
        running = []
        for replica in team.replicas:
            with team.direct(replica) as direct:
                if direct.get(f"/api/sessions/{sid}").json()["running"]:
                    running.append(replica)
        assert len(running) == 1, [r.name for r in running]
        running[0].kill()  # kill -9, mid-answer
        model.release.set()
        killer.join(60)
        first_try = cut[0]
        assert not first_try.done, first_try
        # the client sends the same message again (same id): another replica answers it once
        again = post_turn(client, f"/api/sessions/{sid}/messages", {"text": held, "id": held_id})
        assert again.done, (again, team.logs())
        assert again.text == answer_for(held)
        # a third try is told it was answered (nothing is appended twice)
        third = client.post(f"/api/sessions/{sid}/messages", json={"text": held, "id": held_id})
        assert third.status_code == 409 and third.json()["error"]["type"] == "MessageSent"
        after = post_turn(client, f"/api/sessions/{sid}/messages", {"text": "after", "id": _mid()})
        assert after.done, (after, team.logs())
        assert session_messages(client, sid) == _expected([*texts, held, "after"])


def test_chatcli_remote_through_the_balancer_starts_and_continues_sessions(
        team: Team, model: EchoModel) -> None:
    """``chatcli --remote`` makes its session empty on one replica and sends the first message
    through the balancer to another: that one has never seen it (the store keeps a session
    once answered), so the client starts it there with its message. Then ``-c`` goes on with it
    from any replica."""
    import subprocess

    from process_support import CHATCLI, process_env

    client = team.home / "client"
    (client / "work").mkdir(parents=True, exist_ok=True)
    env = process_env(client, CHATCLI_REMOTE_TOKEN=team.token, HOME=str(client),
                      CHATCLI_CACHE_DIR=str(client / "cache"))

    def remote(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CHATCLI), "--remote", team.url, *args], env=env,
                              cwd=client / "work", capture_output=True, text=True, timeout=120)

    for number in range(3):  # round robin: each start lands its two requests differently
        done = remote("-p", f"new {number}")
        assert done.returncode == 0, (done.stderr, team.logs())
        assert done.stdout == answer_for(f"new {number}") + "\n"
    following = remote("-c", "-p", "and then")
    assert following.returncode == 0, (following.stderr, team.logs())
    assert following.stdout == answer_for("and then") + "\n"
    sent = next(s for s in model.seen if s and s[-1] == ("user", "and then"))
    assert sent == [("user", "new 2"), ("assistant", answer_for("new 2")), ("user", "and then")]
