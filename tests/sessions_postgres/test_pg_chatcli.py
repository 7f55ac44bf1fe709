"""chatcli itself — real processes against the OpenAI wire server — keeps its sessions in
PostgreSQL: ``-p`` writes one, ``-c`` in another process (another person's home: nothing shared
but the server) continues it, ``chatcli sessions list/show/export/search`` read it, and a
server that is down is one line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from chatcli_sessions_postgres.settings import PostgresConfig
from chatcli_sessions_postgres.store import PostgresSessionStore
from chatcli_testing import OpenAIServer, Reply
from process_support import CHATCLI, process_env

pytestmark = pytest.mark.slow


def _write_config(home: Path, text: str) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "config.toml").write_text(text)


def _env(home: Path, server: OpenAIServer, **extra: str) -> dict[str, str]:
    return process_env(home, CHATCLI_CACHE_DIR=str(home / "cache"),
                       OPENAI_API_KEY="sk-test-key-123456", OPENAI_BASE_URL=server.url,
                       CHATCLI_PROVIDER="openai", **extra)


def _chatcli(home: Path, workspace: Path, server: OpenAIServer, *args: str,
             **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), *args], cwd=workspace, env=_env(home, server, **extra),
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


@pytest.fixture
def team(tmp_path: Path, pg_url: str) -> tuple[Path, Path, Path, str]:
    """Two people's homes (two machines: nothing shared but the server) configured for the
    postgres store, one project folder; returns (home a, home b, workspace, url)."""
    homes = []
    for who in ("a", "b"):
        home = tmp_path / f"home-{who}"
        for folder in ("config", "data", "cache"):
            (home / folder).mkdir(parents=True)
        _write_config(home, f'[sessions]\nbackend = "postgres"\npostgres_url = "{pg_url}"\n')
        homes.append(home)
    workspace = tmp_path / "project"
    (workspace / ".git").mkdir(parents=True)
    return homes[0], homes[1], workspace, pg_url


def test_a_session_written_by_one_process_is_continued_by_another(team) -> None:
    home_a, home_b, workspace, url = team
    with OpenAIServer() as server:
        server.script(Reply(text="Hello from the first replica."),
                      Reply(text="Still the same session."))
        first = _chatcli(home_a, workspace, server, "-p", "hello there", "--model", "gpt-test")
        assert first.returncode == 0, first.stderr
        assert first.stdout.strip() == "Hello from the first replica."
        assert not (home_a / "data" / "sessions.db").exists()  # nothing went to SQLite
        second = _chatcli(home_b, workspace, server, "-c", "-p", "and then?",
                          "--model", "gpt-test")
        assert second.returncode == 0, second.stderr
        assert second.stdout.strip() == "Still the same session."
        sent = [m.get("content") for m in server.requests[-1].json["messages"]
                if m["role"] in ("user", "assistant")]
        assert sent == ["hello there", "Hello from the first replica.", "and then?"]

        store = PostgresSessionStore.open(PostgresConfig(url=url))
        try:
            [info] = store.list()
            assert (info.messages, info.title, info.project) == (4, "hello there",
                                                                 str(workspace.resolve()))
            texts = [m.text for m in store.messages(info.id)]
            assert texts == ["hello there", "Hello from the first replica.", "and then?",
                             "Still the same session."]
        finally:
            store.close()

        listed = _chatcli(home_b, workspace, server, "sessions", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        assert [s["id"] for s in json.loads(listed.stdout)] == [info.id]
        shown = _chatcli(home_a, workspace, server, "sessions", "show", info.id[:8])
        assert shown.returncode == 0, shown.stderr
        assert "hello there" in shown.stdout and "Still the same session." in shown.stdout
        exported = _chatcli(home_a, workspace, server, "sessions", "export", info.id,
                            "--format", "json")
        assert exported.returncode == 0, exported.stderr
        data = json.loads(exported.stdout)
        assert data["session"]["id"] == info.id
        found = _chatcli(home_b, workspace, server, "sessions", "search", "replica")
        assert found.returncode == 0, found.stderr
        assert info.id in found.stdout


def test_a_server_that_is_down_is_one_line(team, tmp_path: Path) -> None:
    home_a, _, workspace, _ = team
    password = "Sup3r-secret-pw"
    _write_config(home_a, '[sessions]\nbackend = "postgres"\npostgres_url = '
                          f'"postgresql://team:{password}@127.0.0.1:9/sessions"\n')
    with OpenAIServer() as server:
        server.script(Reply(text="an answer nobody can store"))
        done = _chatcli(home_a, workspace, server, "sessions", "list")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and password not in done.stderr and "Traceback" not in done.stderr
    assert "cannot use PostgreSQL at postgresql://team@127.0.0.1:9/sessions" in lines[0]
    assert "postgres_url" in lines[0]
