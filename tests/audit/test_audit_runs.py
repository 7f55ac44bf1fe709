"""The audit log after whole agent runs through the real command line: ``chatcli -p "/coder …"``
in a git repository, the model played by a wire server scripting tool calls, the real coder
tools, permission policy, cost plugin and audit plugin.

One run makes calls decided every way a run without a person can decide them — a read the
policy lets through, a command an ``--allow`` rule allows, a write the mode allows, a command a
``deny`` rule refuses, a command that would ask and is refused because nobody can be asked, a
command that fails with exit code 2 — and the log must say each, with the model calls' tokens
and cost. The run's API key (a canary) is also typed into a command by the model: it must not
reach any file of the log. ``chatcli audit`` then queries the log.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from audit_support import CANARY, PLUGINS, chatcli, environment, git_repo, log_file, records
from chatcli_testing import OpenAIServer, Reply, ToolCall

pytestmark = pytest.mark.slow

USAGE = {"input_tokens": 1000, "output_tokens": 100}
#: gpt-4o's list price (2.50 $ in, 10 $ out per million): 0.0025 + 0.001
CALL_COST = 0.0035


def _script() -> list[Reply]:
    steps = [
        [ToolCall("read", {"path": "notes.txt"}),
         ToolCall("exec", {"command": f"echo {CANARY}"})],
        [ToolCall("write", {"path": "new.txt", "content": "made by the agent\n"})],
        [ToolCall("exec", {"command": "rm notes.txt"})],
        [ToolCall("exec", {"command": "mkdir build"})],
        [ToolCall("exec", {"command": "echo listing && ls missing-file"})],
    ]
    return [*(Reply(tool_calls=calls, usage=USAGE) for calls in steps),
            Reply(text="Done.", usage=USAGE)]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The scripted run, once for the module: its home, repository, environment, result."""
    base = tmp_path_factory.mktemp("audit-run")
    home, repo = base / "home", git_repo(base / "repo")
    with OpenAIServer() as server:
        server.script(*_script())
        env = environment(home, server.url)
        (home / "config" / "config.toml").write_text(
            '[permissions]\ndeny = ["exec(rm:*)"]\n')
        done = chatcli(repo, env, "--provider", "openai", "--model", "gpt-4o",
                       "--permission-mode", "accept-edits", "--allow", "exec(echo:*)",
                       "-p", "/coder tidy up")
    return {"home": home, "repo": repo, "env": env, "done": done,
            "records": records(log_file(home))}


def _calls(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in found if r["kind"] == "tool_call"]


def test_every_tool_call_is_recorded_with_who_decided(run: dict[str, Any]) -> None:
    assert run["done"].returncode in (0, 3), run["done"].stderr
    calls = _calls(run["records"])
    seen = [(c["tool"], c["decision"], c["verdict"], c["decided_by"]) for c in calls]
    assert seen == [
        ("read", "allow", "allow", "policy"),       # reads inside the workspace run
        ("exec", "allow", "allow", "rule"),         # --allow exec(echo:*)
        ("write", "allow", "allow", "mode"),        # accept-edits
        ("exec", "deny", "deny", "rule"),           # [permissions] deny exec(rm:*)
        ("exec", "deny", "deny", "unattended"),     # would ask; nobody to ask in -p
        ("exec", "allow", "allow", "rule"),
    ]
    assert calls[3]["rule"] == "exec(rm:*)"
    assert "denied by the rule exec(rm:*)" in calls[3]["reason"]
    assert "nobody can be asked" in calls[4]["reason"]
    assert all(c["mode"] == "accept-edits" and c["risk"] for c in calls)
    assert calls[0]["arguments"] == '{"path":"notes.txt"}'
    # every record names the session and the turn, and its call's id
    session = run["records"][0]["session"]
    assert all(r["session"] == session for r in run["records"])
    turns = {r.get("turn") for r in run["records"] if r["kind"] != "session"}
    assert len(turns) == 1 and None not in turns
    assert len({c["call"] for c in calls}) == 6


def test_commands_are_recorded_with_their_exit_codes(run: dict[str, Any]) -> None:
    commands = [r for r in run["records"] if r["kind"] == "command"]
    assert [(c["command"], c["exit_code"], c["outcome"]) for c in commands] == [
        ("echo ***", 0, "exit"),
        ("echo listing && ls missing-file", 2, "exit"),
    ]
    # each command follows its decision, with the same call id
    calls = {c["call"]: c for c in _calls(run["records"])}
    assert all(calls[c["call"]]["decision"] == "allow" for c in commands)


def test_files_changed_are_recorded(run: dict[str, Any]) -> None:
    changes = [r for r in run["records"] if r["kind"] == "file_change"]
    assert [(c["tool"], c["path"], c["action"]) for c in changes] == [
        ("write", "new.txt", "write")]
    assert (run["repo"] / "new.txt").exists()
    assert (run["repo"] / "notes.txt").exists()  # the rm was refused


def test_model_calls_have_provider_model_tokens_and_cost(run: dict[str, Any]) -> None:
    calls = [r for r in run["records"] if r["kind"] == "model_call"]
    assert len(calls) == 6
    for call in calls:
        assert (call["provider"], call["model"], call["purpose"]) == ("openai", "gpt-4o",
                                                                        "coder")
        assert (call["input_tokens"], call["output_tokens"]) == (1000, 100)
        assert call["cost_usd"] == pytest.approx(CALL_COST)


def test_sessions_start_and_end(run: dict[str, Any]) -> None:
    found = run["records"]
    assert found[0]["kind"] == "session" and found[0]["event"] == "start"
    assert found[-1]["kind"] == "session" and found[-1]["event"] == "end"
    assert (found[0]["provider"], found[0]["model"], found[0]["mode"]) == (
        "openai", "gpt-4o", "accept-edits")
    assert all(r["time"].endswith("Z") for r in found)


def test_the_log_holds_no_key_and_is_private(run: dict[str, Any]) -> None:
    folder = log_file(run["home"]).parent
    assert folder.stat().st_mode & 0o777 == 0o700
    for file in folder.iterdir():
        assert CANARY not in file.read_text(encoding="utf-8", errors="replace"), file
        if file.name.startswith("audit.jsonl"):
            assert file.stat().st_mode & 0o777 == 0o600
    # the canary did reach the model's command (and the run's output): it was there to leak
    assert CANARY in run["done"].stderr or CANARY in run["done"].stdout


def _query(run: dict[str, Any], *args: str) -> list[dict[str, Any]]:
    done = chatcli(run["repo"], run["env"], "audit", "--json", *args)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert isinstance(found, list)
    return found


def test_chatcli_audit_filters(run: dict[str, Any]) -> None:
    everything = _query(run)
    assert everything == run["records"]
    denied = _query(run, "--decision", "deny")
    assert [r["decided_by"] for r in denied] == ["rule", "unattended"]
    assert [r["exit_code"] for r in _query(run, "--tool", "exec", "--kind", "command")] == [0, 2]
    assert len(_query(run, "--kind", "model_call")) == 6
    assert _query(run, "--decision", "ask") == []
    session = everything[0]["session"]
    assert _query(run, "--session", session[:8]) == everything
    assert _query(run, "--session", "s_nothing") == []
    assert _query(run, "--since", "1h") == everything
    assert _query(run, "--until", "1h") == []
    assert _query(run, "--since", everything[-1]["time"]) == [everything[-1]]
    assert _query(run, "--limit", "2") == everything[-2:]


def test_chatcli_audit_table_and_errors(run: dict[str, Any]) -> None:
    done = chatcli(run["repo"], run["env"], "audit", "--kind", "command")
    assert done.returncode == 0, done.stderr
    assert "exit 2" in done.stdout and "exit 0" in done.stdout
    bad = chatcli(run["repo"], run["env"], "audit", "--since", "yesterday-ish")
    assert bad.returncode == 2
    assert "--since: not a time: 'yesterday-ish'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_plan_mode_refusals_are_put_down_to_the_mode(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", git_repo(tmp_path / "repo")
    with OpenAIServer() as server:
        server.script(
            Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"}),
                              ToolCall("exec", {"command": "ls"})]),
            Reply(tool_calls=[ToolCall("write", {"path": "x.txt", "content": "x\n"}),
                              ToolCall("read", {"paht": "notes.txt"}),
                              ToolCall("no_such_tool", {})]),
            Reply(text="Here is the plan."))
        env = environment(home, server.url)
        done = chatcli(repo, env, "--provider", "openai", "--model", "gpt-4o",
                       "--permission-mode", "plan", "-p", "/coder plan it")
    assert done.returncode in (0, 3), done.stderr
    calls = _calls(records(log_file(home)))
    assert [(c["tool"], c["decision"], c["decided_by"], c.get("mode")) for c in calls] == [
        ("read", "allow", "policy", "plan"),
        ("exec", "allow", "policy", "plan"),  # a read-only command: no rule allowed it
        ("write", "deny", "mode", "plan"),
        ("read", "deny", "invalid", None),  # arguments that do not validate: never decided
        ("no_such_tool", "deny", "invalid", None),
    ]
    assert calls[2]["reason"].startswith("plan mode is read-only")
    assert "path" in calls[3]["reason"] and "no_such_tool" in calls[4]["reason"]


def _plain_run(tmp_path: Path, repo: Path, home: Path) -> None:
    with OpenAIServer() as server:
        server.script(Reply(text="Hello."))
        done = chatcli(repo, environment(home, server.url), "--provider", "openai",
                       "--model", "gpt-4o", "-p", "hi")
    assert done.returncode == 0, done.stderr


def test_enabled_false_in_the_users_config_turns_it_off(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", git_repo(tmp_path / "repo")
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text("[audit]\nenabled = false\n")
    _plain_run(tmp_path, repo, home)
    assert not log_file(home).parent.exists()


def test_a_trusted_project_can_neither_turn_it_off_nor_move_it(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", git_repo(tmp_path / "repo")
    elsewhere = tmp_path / "elsewhere"
    (repo / ".chatcli").mkdir()
    (repo / ".chatcli" / "config.toml").write_text(
        f'[audit]\nenabled = false\npath = "{elsewhere}"\nexcerpt = 100000\n')
    trusted = chatcli(repo, environment(home, "http://127.0.0.1:9", PLUGINS + ",admin"), "trust",
                      "--yes")
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    _plain_run(tmp_path, repo, home)
    kinds = [r["kind"] for r in records(log_file(home))]
    assert kinds == ["session", "model_call", "session"]
    assert not elsewhere.exists()
    # nor point chatcli audit at a log of its own
    elsewhere.mkdir()
    (elsewhere / "audit.jsonl").write_text('{"kind": "session", "session": "s_planted"}\n')
    shown = chatcli(repo, environment(home, "http://127.0.0.1:9"), "audit", "--json")
    assert [r["kind"] for r in json.loads(shown.stdout)] == kinds


def test_a_configured_folder_is_used_and_a_bad_value_is_one_line(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", git_repo(tmp_path / "repo")
    folder = tmp_path / "team-audit"
    (home / "config").mkdir(parents=True)
    config = home / "config" / "config.toml"
    config.write_text(f'[audit]\npath = "{folder}"\n')
    _plain_run(tmp_path, repo, home)
    assert [r["kind"] for r in records(folder / "audit.jsonl")] == [
        "session", "model_call", "session"]
    assert not log_file(home).exists()
    config.write_text("[audit]\nkeep = -1\n")
    with OpenAIServer() as server:
        server.script(Reply(text="Hello."))
        done = chatcli(repo, environment(home, server.url), "--provider", "openai",
                       "--model", "gpt-4o", "-p", "hi")
    assert done.returncode == 2
    assert "[audit] keep must be a whole number from 0 to 1000, not -1" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_managed_policys_rule_and_mode_are_the_managed_policys(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", git_repo(tmp_path / "repo")
    managed = tmp_path / "etc" / "managed.toml"
    managed.parent.mkdir()
    managed.write_text('[permissions]\nmode = "plan"\ndeny = ["exec(curl:*)"]\n')
    with OpenAIServer() as server:
        server.script(
            Reply(tool_calls=[ToolCall("exec", {"command": "curl http://127.0.0.1:9/"}),
                              ToolCall("write", {"path": "x.txt", "content": "x\n"}),
                              ToolCall("read", {"path": "notes.txt"})]),
            Reply(text="Blocked."))
        env = environment(home, server.url, CHATCLI_MANAGED_CONFIG=str(managed))
        (home / "config" / "config.toml").write_text('[permissions]\ndeny = ["exec(rm:*)"]\n')
        done = chatcli(repo, env, "--provider", "openai", "--model", "gpt-4o",
                       "-p", "/coder try")
    assert done.returncode in (0, 3), done.stderr
    calls = _calls(records(log_file(home)))
    assert [(c["tool"], c["decision"], c["decided_by"], c.get("rule"), c.get("managed_file"))
            for c in calls] == [
        ("exec", "deny", "managed", "exec(curl:*)", str(managed)),
        ("write", "deny", "managed", None, str(managed)),  # plan mode, fixed by the file
        ("read", "allow", "policy", None, None),
    ]
