"""``chatcli sessions migrate --to NAME``: every session copied through the store protocol into
the store a plugin registers (here ``second``: the SQLite store on another file), read back and
compared; run again, nothing is copied twice; a session the target holds otherwise, or a name
it gives another session, is one line and exit 1; an unknown target is one line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from chatcli import Compaction, Conversation, Message, PluginHost, attach_hooks
from chatcli_sessions.cli import sessions
from chatcli_sessions.store import SessionStore
from click.testing import CliRunner, Result
from sessions_helpers import new_conversation, turn
from sessions_stores import SecondStore

CHATCLI = Path(sys.executable).parent / "chatcli"


@pytest.fixture
def second(host: PluginHost, tmp_path: Path) -> SecondStore:
    plugin = SecondStore(tmp_path / "target" / "sessions.db")
    assert host.register(plugin, "second-store")
    return plugin


@pytest.fixture
def stored(host: PluginHost, db_path: Path) -> list[Conversation]:
    """Sessions with everything a session holds: branches, an undo stack, compactions, a name,
    a worker's session, text in any script."""
    plain = new_conversation(host)
    turn(plain, "héllo wörld ✓ 東京", "answer ✓")
    rich = new_conversation(host, max_checkpoints=50)
    for n in range(3):
        turn(rich, f"question {n}")
    top = rich.head
    rich.rewind(rich.checkpoints[1].id)
    turn(rich, "a second branch")
    rich.undo()  # back on the first branch: the stack is stored as head events
    rich.move_head(top, "rewind")
    view = rich.view()
    rich.compact(Compaction(first=view[0].id, last=view[1].id,
                            replacement=[Message.user("summary")], strategy="summarise"))
    with SessionStore(db_path) as store:
        store.save(rich, name="the rich one")
    worker = Conversation(parent=rich, metadata={"subagent": {"id": "w1", "type": "explore"}})
    attach_hooks(worker, host)
    turn(worker, "task of w1", "result of w1")
    return [plain, rich, worker]


def migrate(host: PluginHost, *args: str) -> Result:
    return CliRunner().invoke(sessions, ["migrate", "--to", "second", *args],
                              obj=SimpleNamespace(host=host))


def _everything(store: SessionStore, session_id: str) -> tuple[object, ...]:
    info = store.info(session_id)
    assert info is not None
    return (info, [m.model_dump() for m in store.messages(session_id)],
            store.checkpoints(session_id), store.head_history(session_id),
            store.compactions(session_id), store.workers(session_id))


def test_every_session_is_copied_and_verified(host: PluginHost, db_path: Path,
                                              second: SecondStore,
                                              stored: list[Conversation]) -> None:
    result = migrate(host)
    assert result.exit_code == 0, result.output
    messages = sum(len(c.log) for c in stored)
    assert result.output.strip().splitlines()[-1] == (
        f"migrated 3 sessions ({messages} messages), verified")
    with SessionStore(db_path) as source, SessionStore(second.path) as target:
        assert [i.id for i in target.list()] == [i.id for i in source.list()]
        for conversation in stored:
            assert _everything(target, conversation.id) == _everything(source, conversation.id)
        rich = target.load("the rich one")
        assert rich.head == stored[1].head and len(rich.log) == len(stored[1].log)
        assert rich.undo()  # the undo stack came along
        seqs = target.db.execute("SELECT seq FROM messages WHERE session_id = ? ORDER BY seq",
                                 (stored[1].id,)).fetchall()
        assert [s for (s,) in seqs] == list(range(1, len(stored[1].log) + 1))
        assert target.integrity() == "ok"


def test_running_it_again_copies_nothing(host: PluginHost, second: SecondStore,
                                         stored: list[Conversation]) -> None:
    assert migrate(host).exit_code == 0
    again = migrate(host)
    assert again.exit_code == 0, again.output
    assert again.output.strip().splitlines()[-1] == (
        "migrated 0 sessions (0 messages), 3 already there, verified")
    with SessionStore(second.path) as target:
        assert sum(target.info(c.id).messages for c in stored) == sum(  # type: ignore[union-attr]
            len(c.log) for c in stored)
    turn(stored[0], "one more turn")  # the source moved on: that session now differs
    changed = migrate(host)
    assert changed.exit_code == 1
    assert (f"chatcli: session {stored[0].id}: already in the target with other content "
            "(left as it is there)") in changed.output
    assert changed.output.strip().splitlines()[-1] == (
        "migrated 0 sessions (0 messages), 2 already there, verification failed: 1 problem")


def test_a_name_the_target_gives_another_session_is_a_problem(
        host: PluginHost, second: SecondStore, stored: list[Conversation]) -> None:
    with SessionStore(second.path) as target:
        other = Conversation()
        other.append(Message.user("theirs"))
        target.save(other, name="the rich one")
    result = migrate(host)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[-1] == (f"migrated 2 sessions ({len(stored[0].log) + len(stored[2].log)} "
                         "messages), verification failed: 1 problem")
    assert [line for line in lines if stored[1].id in line] == [
        f"chatcli: session {stored[1].id}: not copied: the name 'the rich one' is already "
        f"used by session {other.id} — import with --name OTHER"]


def test_an_empty_store_migrates_nothing(host: PluginHost, second: SecondStore) -> None:
    result = migrate(host)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "migrated 0 sessions (0 messages), verified"


def test_a_target_that_fails_to_open_is_one_line(host: PluginHost, second: SecondStore,
                                                 stored: list[Conversation]) -> None:
    result = CliRunner().invoke(sessions, ["migrate", "--to", "broken"],
                                obj=SimpleNamespace(host=host))
    assert result.exit_code == 2
    assert result.output.strip() == (
        "Error: --to 'broken': the store failed to open: cannot reach the server at "
        "db.example:5432 — start the server")


def test_the_real_command_line_names_an_unknown_store(home: Path) -> None:
    env = dict(os.environ)
    for target, why in (("nowhere", "--to 'nowhere': no session store of that name is "
                                    "installed"),
                        ("sqlite", "--to and --from name the same store ('sqlite')")):
        done = subprocess.run([str(CHATCLI), "sessions", "migrate", "--to", target],
                              capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and why in lines[0], done.stderr
        assert "Traceback" not in done.stderr
    assert "pip install chatcli-sessions-nowhere" in subprocess.run(
        [str(CHATCLI), "sessions", "migrate", "--to", "nowhere"], capture_output=True,
        text=True, timeout=60, env=env).stderr
