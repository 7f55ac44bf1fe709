"""Two processes writing the same database at the same time: no corruption, nothing lost."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

from chatcli import Conversation, PluginHost, Role
from chatcli_sessions.store import SessionStore
from sessions_helpers import new_conversation, turn

WORKER = Path(__file__).with_name("session_worker.py")
TURNS = 120


def run_workers(tmp_path: Path, jobs: list[list[str]]) -> list[tuple[str, str]]:
    """Start one worker per job, release them together, return (session id, head) of each."""
    go = tmp_path / "go"
    processes = [
        subprocess.Popen([sys.executable, str(WORKER), *job, str(go), *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ))
        for job, extra in ((j[:2], j[2:]) for j in jobs)
    ]
    for process in processes:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "ready", process.stderr.read()  # type: ignore[union-attr]
    go.touch()
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, out + err
        _, session_id, head = out.split()
        results.append((session_id, head))
    return results


def chain(conversation: Conversation, head: str) -> list[str]:
    """The texts from the root to ``head``."""
    conversation.head = head
    return [m.text for m in conversation.messages()]


def expected(tag: str, turns: int) -> list[str]:
    texts = []
    for n in range(turns):
        texts += [f"{tag} question {n}", f"{tag} answer {n}"]
    return texts


def test_two_processes_on_different_sessions(home: Path, db_path: Path, tmp_path: Path) -> None:
    (a_id, a_head), (b_id, b_head) = run_workers(tmp_path, [["A", str(TURNS)],
                                                            ["B", str(TURNS)]])
    assert a_id != b_id
    with SessionStore(db_path) as store:
        assert store.integrity() == "ok"
        assert chain(store.load(a_id), a_head) == expected("A", TURNS)
        assert chain(store.load(b_id), b_head) == expected("B", TURNS)
        assert len(store.checkpoints(a_id)) == 20  # pruned to the default
        order = [r[0] for r in store.db.execute("SELECT session_id FROM messages ORDER BY rowid")]
    switches = sum(x != y for x, y in itertools.pairwise(order))
    assert switches > 2, "the two writers never overlapped"


def test_two_processes_on_the_same_session(
    host: PluginHost, db_path: Path, tmp_path: Path
) -> None:
    base = new_conversation(host)
    turn(base, "shared start")
    (a_id, a_head), (b_id, b_head) = run_workers(
        tmp_path, [["A", str(TURNS), base.id], ["B", str(TURNS), base.id]]
    )
    assert a_id == b_id == base.id
    with SessionStore(db_path) as store:
        assert store.integrity() == "ok"
        restored = store.load(base.id)
        seqs = [r[0] for r in store.db.execute(
            "SELECT seq FROM messages WHERE session_id = ? ORDER BY seq", (base.id,))]
    # every message of both writers is in the log, each writer's chain intact (two branches)
    authors = [m.text.split()[0] for m in sorted(restored.log.values(), key=lambda m: m.created_at)]
    assert sum(x != y for x, y in itertools.pairwise(authors)) > 2, "the writers never overlapped"
    assert len(restored.log) == 2 + 4 * TURNS
    assert seqs == list(range(1, 2 + 4 * TURNS + 1))
    start = ["shared start", "answer to shared start"]
    assert chain(restored, a_head) == start + expected("A", TURNS)
    assert chain(restored, b_head) == start + expected("B", TURNS)
    assert sum(m.role == Role.USER for m in restored.log.values()) == 1 + 2 * TURNS
