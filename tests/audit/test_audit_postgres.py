"""The audit table where sessions live in PostgreSQL, against a real server: a scripted run's
records reach both the file and the table (the same records), ``chatcli audit`` reads the
table (``--file`` the local log), a server that is down costs one warning and no record, and
writers that start at once make the table once and lose no row."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from audit_support import CANARY, chatcli, environment, git_repo, log_file, records
from chatcli_audit.postgres import PostgresSink, TableConfig
from chatcli_testing import OpenAIServer, Reply, ToolCall

pytestmark = pytest.mark.slow

#: The run's plugins: no sessions store (the audit reads [sessions] itself; the team's store
#: is chatcli-sessions-postgres's business).
PLUGINS = "openai,coder,agent,permissions,audit,cost,print"


def _config(home: Path, url: str, schema: str | None = None) -> None:
    (home / "config").mkdir(parents=True, exist_ok=True)
    extra = f'postgres_schema = "{schema}"\n' if schema else ""
    (home / "config" / "config.toml").write_text(
        f'[sessions]\nbackend = "postgres"\npostgres_url = "{url}"\n{extra}')


def _run(tmp_path: Path, home: Path) -> tuple[Path, dict[str, str], Any]:
    repo = git_repo(tmp_path / "repo")
    with OpenAIServer() as server:
        server.script(
            Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"}),
                              ToolCall("exec", {"command": f"echo {CANARY}"})],
                  usage={"input_tokens": 10, "output_tokens": 1}),
            Reply(text="Done.", usage={"input_tokens": 20, "output_tokens": 2}))
        env = environment(home, server.url, PLUGINS)
        done = chatcli(repo, env, "--provider", "openai", "--model", "gpt-4o",
                       "--allow", "exec(echo:*)", "-p", "/coder look")
    return repo, env, done


def _rows(url: str, table: str = "chatcli_audit") -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as connection:
        return connection.execute(
            f"SELECT kind, session, turn, call, tool, decision, decided_by, record "
            f"FROM {table} ORDER BY id").fetchall()


@pytest.mark.parametrize("schema", [None, "team_audit"])
def test_a_runs_records_reach_the_table(tmp_path: Path, pg_url: str, schema: str | None) -> None:
    home = tmp_path / "home"
    _config(home, pg_url, schema)
    repo, env, done = _run(tmp_path, home)
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    in_file = records(log_file(home))
    rows = _rows(pg_url, f"{schema}.chatcli_audit" if schema else "chatcli_audit")
    assert [row[-1] for row in rows] == in_file
    assert [r["kind"] for r in in_file] == ["session", "model_call", "tool_call", "tool_call",
                                            "command", "model_call", "session"]
    exec_call = next(row for row in rows if row[0] == "tool_call" and row[4] == "exec")
    assert exec_call[5:7] == ("allow", "rule")
    assert exec_call[1] == in_file[0]["session"] and exec_call[2] and exec_call[3]
    # no key, and not the server's password either
    dumped = json.dumps([row[-1] for row in rows])
    assert CANARY not in dumped and "s3cret" not in dumped

    # chatcli audit reads the table: the local file gone, the records are still there
    log_file(home).unlink()
    table = chatcli(repo, env, "audit", "--json", "--kind", "command")
    assert table.returncode == 0, table.stderr
    assert [r["command"] for r in json.loads(table.stdout)] == ["echo ***"]
    assert json.loads(chatcli(repo, env, "audit", "--json", "--session",
                              in_file[0]["session"][:6]).stdout) == in_file
    assert json.loads(chatcli(repo, env, "audit", "--json", "--decision", "allow",
                              "--limit", "1").stdout) == [in_file[3]]
    local = chatcli(repo, env, "audit", "--file", "--json")
    assert local.returncode == 0 and json.loads(local.stdout) == []


def test_a_server_that_is_down_costs_one_warning_and_no_record(tmp_path: Path,
                                                               pg_url: str) -> None:
    home = tmp_path / "home"
    down = "postgresql://team:s3cret@127.0.0.1:9/nothing"
    _config(home, down)
    repo, env, done = _run(tmp_path, home)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "audit table" in line]
    assert len(warnings) == 1, done.stderr
    assert "could not be written" in warnings[0] and "s3cret" not in done.stderr
    assert len(records(log_file(home))) == 7  # the file has every record
    query = chatcli(repo, env, "audit")
    assert query.returncode == 2
    assert "could not be read" in query.stderr and "chatcli audit --file" in query.stderr
    assert len(query.stderr.strip().splitlines()) == 1 and "s3cret" not in query.stderr
    assert len(json.loads(chatcli(repo, env, "audit", "--file", "--json").stdout)) == 7


def test_writers_starting_at_once_make_the_table_once_and_lose_nothing(pg_url: str) -> None:
    count, names = 50, ["a", "b", "c", "d"]
    warnings: list[str] = []
    start = threading.Barrier(len(names))

    def write(name: str) -> None:
        sink = PostgresSink(TableConfig(pg_url), warnings.append)
        start.wait()
        for number in range(count):
            sink.write({"time": "2026-12-07T10:00:00.000Z", "kind": "model_call",
                        "session": name, "n": number})
        sink.close()

    threads = [threading.Thread(target=write, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert warnings == []
    rows = _rows(pg_url)
    for name in names:
        assert [row[-1]["n"] for row in rows if row[1] == name] == list(range(count))
