"""``[sessions] backend`` picks the store a plugin registers (``register_session_stores``): the
hooks then write there; an unknown one is one line naming the setting and the fix; a project's
config never picks it (a cloned repository must not send conversations elsewhere). The head is
compare-and-set: a chat whose session another chat moved on keeps every message (a branch), the
head stays where the other put it, and the person is told once."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli import ConfigError, Message, PluginHost, Settings, attach_hooks
from chatcli_sessions import stores
from chatcli_sessions.store import SessionStore
from sessions_helpers import new_conversation, turn
from sessions_stores import SecondStore

CHATCLI = Path(sys.executable).parent / "chatcli"


@pytest.fixture
def configured(host: PluginHost, tmp_path: Path) -> Iterator[SecondStore]:
    """``second`` registered and named by ``[sessions] backend``, as ``configure`` does it."""
    plugin = SecondStore(tmp_path / "second" / "sessions.db")
    assert host.register(plugin, "second-store")
    before = dict(stores._configured)
    stores.configure(host, Settings(sessions={"backend": "second"}))
    yield plugin
    stores.close_stores()
    stores._configured.clear()
    stores._configured.update(before)


def test_the_hooks_write_to_the_store_the_setting_names(host: PluginHost, db_path: Path,
                                                        configured: SecondStore) -> None:
    conversation = new_conversation(host)
    turn(conversation, "where does this go?", "to the second store")
    assert len(configured.opened) == 1  # opened once, then shared
    turn(conversation, "and this?")
    assert len(configured.opened) == 1
    with SessionStore(configured.path) as second:
        assert len(second.load(conversation.id).log) == 4
    with SessionStore(db_path) as default:
        assert default.info(conversation.id) is None


def test_an_unknown_or_failing_store_is_one_line(host: PluginHost,
                                                 configured: SecondStore) -> None:
    with pytest.raises(ConfigError) as unknown:
        stores.get_store(host, Settings(sessions={"backend": "nope"}))
    assert str(unknown.value) == (
        "[sessions] backend = 'nope': no session store of that name is installed (installed: "
        "broken, second, sqlite) — pip install chatcli-sessions-nope, or chatcli config set "
        "sessions.backend sqlite")
    with pytest.raises(ConfigError) as failing:
        stores.get_store(host, Settings(sessions={"backend": "broken"}))
    assert str(failing.value) == (
        "[sessions] backend = 'broken': the store failed to open: cannot reach the server at "
        "db.example:5432 — start the server")
    with pytest.raises(ConfigError, match="must be a store's name"):
        stores.get_store(host, Settings(sessions={"backend": 3}))


def _chatcli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ), cwd=cwd)


def test_the_user_config_names_the_store_and_a_project_cannot(home: Path,
                                                              workspace: Path) -> None:
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('[sessions]\nbackend = "nope"\n')
    done = _chatcli("sessions", "list", cwd=workspace)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("chatcli: error: [sessions] backend = 'nope': no session store "
                               "of that name is installed (installed: ")
    assert "sqlite) — pip install chatcli-sessions-nope, or chatcli config set " \
           "sessions.backend sqlite" in lines[0]
    config.write_text("")
    (workspace / ".chatcli").mkdir()
    (workspace / ".chatcli" / "config.toml").write_text('[sessions]\nbackend = "nope"\n')
    assert _chatcli("trust", "--yes", cwd=workspace).returncode == 0
    done = _chatcli("sessions", "list", "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_a_chat_whose_session_moved_on_goes_on_as_a_branch(
        host: PluginHost, db_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = new_conversation(host)
    turn(first, "shared start")
    other = host.hooks.open_conversation(settings=Settings(), resume=first.id,
                                         continue_last=False)
    attach_hooks(other, host)
    turn(first, "the first chat goes on")
    capsys.readouterr()
    turn(other, "the other chat goes on too")
    turn(other, "and again")
    warned = capsys.readouterr().err.strip().splitlines()
    assert warned == [
        f"chatcli: warning: session {first.id} was moved on by another chatcli (its head is "
        f"now {first.head}); this chat goes on as a branch of it, every message saved — resume "
        f"it again to see the other turns: chatcli --resume {first.id}"]
    assert not host.failures
    with SessionStore(db_path) as store:
        assert store.info(first.id).head == first.head  # type: ignore[union-attr]
        stored = {m.id for m in store.messages(first.id)}
        assert {m.id for m in first.all_messages()} | {m.id for m in other.all_messages()} == (
            stored)
    other.append(Message.user("rewound by hand"))  # the same warning is not repeated
    assert capsys.readouterr().err == ""


def test_the_store_stays_open_until_the_last_conversation_ends(host: PluginHost,
                                                               db_path: Path) -> None:
    """A server holds many conversations: one ending must not close the store another's turn
    is writing with (its answer would be lost)."""
    first, second = new_conversation(host), new_conversation(host)
    for conversation in (first, second):
        host.hook.session_start(session=None, conversation=conversation, settings=Settings())
    turn(first, "first")
    store = stores.get_store()
    host.hook.session_end(session=None, conversation=first)
    assert stores.get_store() is store
    turn(second, "second goes on")  # the host fails the test on any plugin failure
    with SessionStore(db_path) as other:
        assert len(other.messages(second.id)) == 2
    host.hook.session_end(session=None, conversation=second)
    assert stores.get_store() is not store  # closed with the last one, opened again
