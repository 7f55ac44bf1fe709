"""The crash test: kill -9 a writer 200 times; the database must always open clean and complete.

Each round forks a child that writes turns through the plugin's hooks on a real Conversation,
exactly as the engine does (checkpoint, user message, assistant answer), sometimes continuing the
latest session (``-c``) and sometimes starting a new one. After every finished turn the child
reports ``SESSION TURN`` on a pipe. The parent kills it with SIGKILL after a random few
milliseconds, then opens the database with a fresh connection and checks:

* ``PRAGMA integrity_check`` is ``ok`` (nothing needed repair);
* every session loads, and its path is exactly q1 a1 q2 a2 … qk ak, optionally followed by the
  question of the turn in flight (never a gap, never a half-written message);
* k is at least the last turn the child reported finished (nothing finished was lost);
* every checkpoint points at a message that exists.
"""

from __future__ import annotations

import os
import random
import signal
import time
import traceback
from pathlib import Path

import pytest
from chatcli import (
    Conversation,
    Message,
    PluginHost,
    Role,
    Session,
    Settings,
    UsageError,
    attach_hooks,
)
from chatcli_sessions import plugin as sessions_plugin
from chatcli_sessions.store import SessionStore

KILLS = 200
MAX_CHECKPOINTS = 5


def child(seed: int, report: int) -> None:
    """Write turns forever, reporting each finished one (runs in the forked process)."""
    rnd = random.Random(seed)
    host = PluginHost(warn=lambda line: os.write(report, f"ERROR {line}\n".encode()))
    host.register(sessions_plugin, "sessions")
    settings = Settings(max_checkpoints=MAX_CHECKPOINTS)
    conversation: Conversation | None = None
    if rnd.random() < 0.7:  # `chatcli -c`
        try:
            conversation = host.hooks.open_conversation(settings=settings, resume=None,
                                                        continue_last=True)
        except UsageError:
            conversation = None
    if conversation is None:
        conversation = Conversation(max_checkpoints=MAX_CHECKPOINTS)
    attach_hooks(conversation, host)
    host.hooks.session_start(session=Session(host, settings), conversation=conversation,
                             settings=settings)
    path = conversation.messages()
    n = sum(m.role == Role.USER for m in path)
    if path and path[-1].role == Role.USER:  # the turn killed last time: answer it (/retry)
        conversation.append(Message.assistant(f"a{n} retried"))
    os.write(report, f"{conversation.id} {n}\n".encode())
    while True:
        n += 1
        conversation.checkpoint(f"q{n}")
        conversation.append(Message.user(f"q{n} " + "x" * rnd.randint(0, 400)))
        conversation.append(Message.assistant(f"a{n} " + "y" * rnd.randint(0, 3000)))
        os.write(report, f"{conversation.id} {n}\n".encode())


def read_all(fd: int) -> str:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode()


def check_session(store: SessionStore, session_id: str, finished: int) -> str:
    """Verify one session; returns "complete" or "in-flight" (a question without answer)."""
    conversation = store.load(session_id)
    words = [m.text.split(" ")[0] for m in conversation.messages()]
    roles = [m.role for m in conversation.messages()]
    turns = len(words) // 2
    expected = [w for k in range(1, turns + 1) for w in (f"q{k}", f"a{k}")]
    if len(words) % 2:
        expected.append(f"q{turns + 1}")
    assert words == expected, f"session {session_id} path is broken: {words}"
    assert roles == [Role.USER, Role.ASSISTANT] * turns + [Role.USER] * (len(words) % 2)
    assert turns >= finished, f"session {session_id} lost turns: {turns} < {finished}"
    checkpoints = store.checkpoints(session_id)
    assert len(checkpoints) <= MAX_CHECKPOINTS
    assert all(c.head is None or c.head in conversation.log for c in checkpoints)
    return "in-flight" if len(words) % 2 else "complete"


@pytest.mark.slow
def test_kill_9_during_writes_never_corrupts_or_loses_finished_turns(
    home: Path, db_path: Path
) -> None:
    rnd = random.Random(20240611)
    finished: dict[str, int] = {}
    checked: dict[str, tuple[float, int]] = {}
    outcomes = {"complete": 0, "in-flight": 0}
    for round_number in range(KILLS):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child never returns into pytest
            os.close(read_end)
            try:
                child(round_number, write_end)
            except BaseException:
                os.write(write_end, ("ERROR " + traceback.format_exc()).encode())
            finally:
                os._exit(3)
        os.close(write_end)
        # mostly mid-stream (a turn costs a few fsyncs, ~10-30 ms); sometimes during start-up
        time.sleep(rnd.uniform(0.0, 0.02) if rnd.random() < 0.15 else rnd.uniform(0.02, 0.15))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        report = read_all(read_end)
        assert "ERROR" not in report, report
        assert os.WIFSIGNALED(status), f"child ended by itself: {status}"
        for line in report.splitlines():
            session_id, turn_number = line.split()
            if int(turn_number) > 0:  # a new, still empty conversation has no row (lazy)
                finished[session_id] = max(finished.get(session_id, 0), int(turn_number))

        with SessionStore(db_path) as store:  # a fresh open: WAL recovery, no repair step
            assert store.integrity() == "ok", f"round {round_number}"
            infos = {info.id: info for info in store.list()}
            assert set(finished) <= set(infos), "a reported session vanished"
            for info in infos.values():
                if checked.get(info.id) == (info.updated_at, info.messages):
                    continue
                checked[info.id] = (info.updated_at, info.messages)
                outcomes[check_session(store, info.id, finished.get(info.id, 0))] += 1

    with SessionStore(db_path) as store:  # a last full pass over everything
        infos = store.list()
        for info in infos:
            check_session(store, info.id, finished.get(info.id, 0))
        total_turns = sum(i.messages for i in infos) // 2
    print(f"\ncrash test: {KILLS} kills, {len(infos)} sessions, ~{total_turns} turns on disk, "
          f"sessions seen with a turn in flight after a kill: {outcomes['in-flight']}")
    assert total_turns > KILLS  # the children really were writing when killed
    assert outcomes["in-flight"] > 0  # and some kills landed inside a turn
