"""Honest cost: every model call that reaches the wire is counted — the turns', a compaction's
summary and a memory extraction — in ``/cost`` (one line per purpose), in ``--json``'s usage
and in the budget, across ``chatcli -c`` runs; the real command line against the OpenAI wire
server, which counts what it received."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply
from cost_support import row, run_chatcli

pytest.importorskip("chatcli_memory")
pytest.importorskip("chatcli_compaction")
pytest.importorskip("chatcli_sessions")

CONFIG = """\
[cost]
budget = 0.05

[cost.prices."openai/gpt-test"]
input = 3.0
output = 15.0

[memory]
extract_oneshot = true
"""

#: what each kind of call uses (input, output tokens)
CHAT = {"input_tokens": 1000, "output_tokens": 100}
MEMORY = {"input_tokens": 2000, "output_tokens": 50}
SUMMARY = {"input_tokens": 3000, "output_tokens": 300}
#: how every extraction request's system prompt begins (chatcli_memory.extraction)
EXTRACTION_MARK = "You maintain the long-term memory of a coding assistant."


def _env(server: Any) -> dict[str, str]:
    return {"OPENAI_API_KEY": "sk-cost-test", "OPENAI_BASE_URL": server.url,
            "CHATCLI_PLUGINS": "openai,sessions,compaction,memory,cost,print",
            "CHATCLI_COMPACT_KEEP_RECENT": "2"}


def _purpose(request: Any) -> str:
    """What the server saw a request as: an extraction, a summary, or a turn."""
    system = next((m["content"] for m in request.json["messages"] if m["role"] == "system"), "")
    if system.startswith(EXTRACTION_MARK):
        return "memory"
    return "chat" if system.startswith("You are chatcli") else "compaction"


def _run(home: Path, server: Any, *args: str) -> Any:
    done = run_chatcli(home, *args, **_env(server))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done


def test_requests_seen_by_the_server_are_the_calls_cost_counts(home: Path,
                                                              openai_server: Any) -> None:
    (home / "config" / "config.toml").write_text(CONFIG)
    extraction = json.dumps({"long_term": [{"text": "pytest is the test framework"}]})
    openai_server.script(
        Reply(text="first answer: " + "a long explanation of the build. " * 60, usage=CHAT),
        Reply(text=extraction, usage=MEMORY),
        Reply(text="second answer", usage=CHAT), Reply(text="{}", usage=MEMORY),
        Reply(text="the summary", usage=SUMMARY))

    first = _run(home, openai_server, "--provider", "openai", "--model", "gpt-test",
                 "--json", "-p", "q1: " + "how does the build work? " * 40)
    _run(home, openai_server, "-c", "-p", "q2")
    compacted = _run(home, openai_server, "-c", "-p", "/compact")
    assert "compacted" in compacted.stdout + compacted.stderr
    shown = _run(home, openai_server, "-c", "-p", "/cost")

    seen = [_purpose(r) for r in openai_server.requests if r.json]
    assert seen == ["chat", "memory", "chat", "memory", "compaction"]
    lines = shown.stdout.splitlines()
    # every request the server saw is a call /cost counts: 5, not the 2 turns alone
    assert row(lines, "openai/gpt-test")[:5] == ["5", "9,000", "0", "0", "600"]
    purposes = lines[lines.index(next(li for li in lines if li.startswith("purpose"))):]
    table = {cells[0]: cells[1:] for cells in (li.split() for li in purposes[1:4])}
    # (2,000 × 3 + 200 × 15) / 1e6; (4,000 × 3 + 100 × 15) / 1e6; (3,000 × 3 + 300 × 15) / 1e6
    assert table == {"chat": ["2", "2,000", "0", "0", "200", "$0.0090"],
                     "memory": ["2", "4,000", "0", "0", "100", "$0.0135"],
                     "compaction": ["1", "3,000", "0", "0", "300", "$0.0135"]}
    assert "budget: $0.0360 of $0.0500 (72%)" in lines

    # --json's usage is every call of its run: the turn and the extraction at its end
    payload = json.loads(first.stdout)
    assert payload["usage"]["input_tokens"] == 3000 and payload["usage"]["output_tokens"] == 150
    assert payload["usage_by_purpose"] == {
        "chat": {"calls": 1, "input_tokens": 1000, "output_tokens": 100,
                 "cache_read_tokens": 0, "cache_write_tokens": 0},
        "memory": {"calls": 1, "input_tokens": 2000, "output_tokens": 50,
                   "cache_read_tokens": 0, "cache_write_tokens": 0}}


def test_the_budget_warning_counts_side_calls(home: Path, openai_server: Any) -> None:
    """The turn alone spends 30 % of the budget; with its extraction, 90 %: the warning comes."""
    (home / "config" / "config.toml").write_text(CONFIG.replace("0.05", "0.015"))
    openai_server.script(Reply(text="an answer", usage={"input_tokens": 1000,
                                                        "output_tokens": 100}),
                         Reply(text="{}", usage={"input_tokens": 1000, "output_tokens": 400}))
    done = _run(home, openai_server, "--provider", "openai", "--model", "gpt-test",
                "-p", "q1")
    assert len(openai_server.requests) == 2
    assert "of this session's budget" in done.stderr or "over this session's budget" in \
        done.stderr, done.stderr


def test_an_agent_runs_calls_count_under_its_mode(home: Path, openai_server: Any) -> None:
    pytest.importorskip("chatcli_agent")
    openai_server.script(Reply(text="hello", usage=CHAT), Reply(text="done", usage=CHAT))
    env = {**_env(openai_server), "CHATCLI_PLUGINS": "openai,sessions,agent,cost,print"}
    for args in (["--provider", "openai", "--model", "gpt-test", "-p", "hi"],
                 ["-c", "-p", "/agent say done"]):
        done = run_chatcli(home, *args, **env)  # (a run without a tool call may exit non-zero)
        assert "Traceback" not in done.stderr, done.stderr
    assert len(openai_server.requests) == 2
    shown = run_chatcli(home, "-c", "-p", "/cost", **env)
    purposes = [li.split()[:2] for li in shown.stdout.splitlines()]
    assert ["chat", "1"] in purposes and ["agent", "1"] in purposes, shown.stdout
