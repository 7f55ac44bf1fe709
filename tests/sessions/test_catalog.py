"""The ``session_catalog`` hook: the store as a :class:`SessionCatalog` for a server that does not
import this plugin. It lists the user's sessions (not subagent workers') whose project is inside
a folder, describes one, exports it as ``sessions export`` does and deletes it with its
workers' sessions. Sessions are written by the plugin's hooks, read back through the hook."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chatcli import Conversation, PluginHost, UsageError, attach_hooks
from chatcli_plugin_records import SessionCatalog, SessionSummary
from chatcli_sessions.store import SessionStore
from sessions_helpers import turn


def _session(host: PluginHost, folder: Path, question: str,
             parent: Conversation | None = None) -> Conversation:
    folder.mkdir(parents=True, exist_ok=True)
    conversation = Conversation(parent=parent, metadata={"cwd": str(folder)})
    attach_hooks(conversation, host)
    turn(conversation, question, f"answer to {question}")
    return conversation


def _catalog(host: PluginHost) -> SessionCatalog:
    catalog = host.hook.session_catalog()
    assert catalog is not None
    return catalog


@pytest.fixture
def projects(host: PluginHost, tmp_path: Path) -> dict[str, Conversation]:
    """Sessions in ``work/alpha``, ``work/alpha/sub``, ``work/beta``, ``workshop`` (a folder
    whose name only starts like ``work``), and a worker of the alpha one."""
    root = tmp_path.resolve()
    made = {
        "alpha": _session(host, root / "work" / "alpha", "alpha question"),
        "sub": _session(host, root / "work" / "alpha" / "sub", "sub question"),
        "beta": _session(host, root / "work" / "beta", "beta question"),
        "shop": _session(host, root / "workshop", "shop question"),
    }
    made["worker"] = _session(host, root / "work" / "alpha", "worker task", parent=made["alpha"])
    return made


def test_the_list_holds_the_sessions_whose_project_is_inside_the_folder(
        host: PluginHost, projects: dict[str, Conversation], tmp_path: Path) -> None:
    catalog = _catalog(host)
    ids = {name: c.id for name, c in projects.items()}
    under_work = {s.id for s in catalog.list(str(tmp_path / "work"))}
    assert under_work == {ids["alpha"], ids["sub"], ids["beta"]}  # not workshop, no worker
    assert {s.id for s in catalog.list(str(tmp_path / "work" / "alpha"))} == {
        ids["alpha"], ids["sub"]}
    everything = catalog.list(None)
    assert {s.id for s in everything} == under_work | {ids["shop"]}
    assert [s.updated for s in everything] == sorted((s.updated for s in everything),
                                                     reverse=True)
    assert len(catalog.list(None, limit=2)) == 2
    assert catalog.list(str(tmp_path / "nowhere")) == []


def test_info_describes_a_root_session_and_not_a_worker(
        host: PluginHost, projects: dict[str, Conversation], tmp_path: Path) -> None:
    catalog = _catalog(host)
    alpha = catalog.info(projects["alpha"].id)
    assert isinstance(alpha, SessionSummary)
    assert alpha.title == "alpha question"
    assert alpha.project == str((tmp_path / "work" / "alpha").resolve())
    assert (alpha.messages, alpha.model, alpha.provider) == (2, "m1", "scripted")
    assert alpha.head == projects["alpha"].head  # a server compares it to see another's turn
    assert catalog.info(projects["worker"].id) is None
    assert catalog.info("s_no_such_session") is None


def test_export_writes_markdown_and_json_as_the_cli_does(
        host: PluginHost, projects: dict[str, Conversation]) -> None:
    catalog = _catalog(host)
    session_id = projects["beta"].id
    markdown = catalog.export(session_id, "md")
    assert "beta question" in markdown and "answer to beta question" in markdown
    data = json.loads(catalog.export(session_id, "json"))
    assert data["session"]["id"] == session_id
    assert [m["parts"][0]["text"] for m in data["messages"]] == [
        "beta question", "answer to beta question"]
    with pytest.raises(UsageError, match="unknown export format"):
        catalog.export(session_id, "html")
    with pytest.raises(UsageError, match="no session"):
        catalog.export(projects["worker"].id, "md")


def test_delete_removes_the_session_with_its_workers(
        host: PluginHost, projects: dict[str, Conversation], db_path: Path) -> None:
    catalog = _catalog(host)
    assert catalog.delete(projects["worker"].id) is False  # a worker goes with its session
    assert catalog.delete(projects["alpha"].id) is True
    assert catalog.delete(projects["alpha"].id) is False
    assert catalog.info(projects["alpha"].id) is None
    with SessionStore(db_path) as store:
        assert store.info(projects["worker"].id) is None
        assert store.info(projects["sub"].id) is not None


def test_the_catalog_works_again_after_the_session_closed_the_store(
        host: PluginHost, projects: dict[str, Conversation]) -> None:
    catalog = _catalog(host)
    host.hook.session_end(session=None, conversation=projects["beta"])  # closes the store
    assert catalog.info(projects["beta"].id) is not None
