"""Provider pools through the real command line and the openai SDK against three wire servers
(the ``openai``, ``groq`` and ``xai`` presets): round-robin spreads requests over the healthy
entries and stops sending to one that failed 5 times in a row; failover goes back to the
primary; ``chatcli providers status`` shows the health table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack

import pytest
from chatcli_testing import Fault, OpenAIServer
from fallback_support import run_chatcli, run_inprocess, server_env, state, write_config

POOL = """
provider = "{name}"

[fallback.pools.{name}]
entries = ["openai/model-a", "groq/model-b", "xai/model-c"]
strategy = "{strategy}"
{extra}
"""


@pytest.fixture
def servers() -> Iterator[list[OpenAIServer]]:
    """Three OpenAI-compatible servers: openai, groq and xai point at one each."""
    with ExitStack() as stack:
        yield [stack.enter_context(OpenAIServer()) for _ in range(3)]


def _env(servers: list[OpenAIServer]) -> dict[str, str]:
    return server_env(openai=servers[0], groq=servers[1], xai=servers[2])


@pytest.mark.slow
def test_round_robin_spreads_requests_and_drops_an_entry_that_fails_five_times(
        fb_home, servers, capsys, monkeypatch):
    import openai  # noqa: F401 - imported once, before the runs

    write_config(fb_home, POOL.format(name="spread", strategy="round_robin", extra=""))
    env = _env(servers)
    for server in servers:
        server.script(*["ok"] * 20)
    answers = [run_inprocess(capsys, monkeypatch, "-p", "hi", env=env) for _ in range(10)]
    assert all(code == 0 and out == "ok\n" for code, out, _err in answers)
    assert [len(s.requests) for s in servers] == [4, 3, 3]
    assert [s.requests[0].json["model"] for s in servers] == ["model-a", "model-b", "model-c"]

    # groq now fails every time: each of its turns moves on to the next entry, five times,
    # then it is unavailable and gets nothing
    servers[1].reset()
    servers[1].script(*[Fault(status=500, message="groq is down")] * 20)
    before = [len(s.requests) for s in servers]
    for _ in range(15):
        code, out, _err = run_inprocess(capsys, monkeypatch, "-p", "hi", env=env)
        assert (code, out) == (0, "ok\n")
    assert len(servers[1].requests) == 5
    assert sum(len(s.requests) for s in servers) - sum(before) == 15 + 5
    health = state(fb_home)["entries"]["groq/model-b"]
    assert health["errors"] == 5 and health["last_kind"] == "ServerError"

    done = run_chatcli(fb_home, "providers", "status", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:4] == ["GROUP", "STRATEGY", "ENTRY", "STATE"]
    groq = next(line for line in lines if "groq/model-b" in line)
    assert "unavailable" in groq and "groq is down" in groq
    assert "spread" in groq and "round-robin" in groq
    assert " ok " in next(line for line in lines if "openai/model-a" in line)

    table = json.loads(run_chatcli(fb_home, "providers", "status", "--json").stdout)
    rows = {row["entry"]: row for row in table["entries"]}
    assert rows["groq/model-b"]["available"] is False and rows["groq/model-b"]["errors"] == 5
    assert rows["openai/model-a"]["available"] is True
    assert rows["openai/model-a"]["response_ms"] > 0
    assert rows["xai/model-c"]["requests"] > 0


@pytest.mark.slow
def test_failover_goes_back_to_the_primary(fb_home, servers, capsys, monkeypatch):
    import openai  # noqa: F401

    write_config(fb_home, POOL.format(name="steady", strategy="failover",
                                      extra="unhealthy_after = 2\nrecovery = 5"))
    env = _env(servers)
    servers[0].script(Fault(status=500, message="primary broke"), "primary again",
                      Fault(status=503), Fault(status=503), "primary recovered")
    servers[1].script(*[f"secondary {n}" for n in range(1, 6)])

    def ask() -> str:
        code, out, err = run_inprocess(capsys, monkeypatch, "-p", "hi", env=env)
        assert code == 0, err
        return out.strip()

    assert ask() == "secondary 1"  # the primary failed once: the secondary answers
    assert ask() == "primary again"  # and the next call goes to the primary first
    assert ask() == "secondary 2"
    assert ask() == "secondary 3"  # two errors in a row: the primary is unavailable…
    assert ask() == "secondary 4"  # …and not asked
    assert len(servers[0].requests) == 4
    assert servers[2].requests == []

    import time

    health = state(fb_home)["entries"]["openai/model-a"]
    time.sleep(max(health["last_failure"] + 5 - time.time(), 0) + 0.05)  # the recovery time
    assert ask() == "primary recovered"
    assert state(fb_home)["entries"]["openai/model-a"]["errors"] == 0


def test_status_without_groups_says_how_to_configure_one(fb_home):
    done = run_chatcli(fb_home, "providers", "status")
    assert done.returncode == 0
    assert "no fallback chain or pool is configured" in done.stdout


def test_slash_providers_shows_the_table_and_resets(fb_home, servers):
    write_config(fb_home, POOL.format(name="spread", strategy="round_robin", extra=""))
    servers[0].script(Fault(status=429, message="too many"))
    servers[1].script("from groq")
    env = _env(servers)
    assert run_chatcli(fb_home, "-p", "hi", env=env).stdout == "from groq\n"
    shown = run_chatcli(fb_home, "-p", "/providers", env=env)
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if "openai/model-a" in line)
    assert "too many" in row and "1 (1 failed)" in row
    reset = run_chatcli(fb_home, "-p", "/providers reset", env=env)
    assert "forgot the health of 2 entries" in reset.stdout
    assert state(fb_home)["entries"] == {}


def test_a_pool_is_listed_by_chatcli_models(fb_home):
    write_config(fb_home, POOL.format(name="spread", strategy="round_robin", extra=""))
    done = run_chatcli(fb_home, "models")
    row = next(line for line in done.stdout.splitlines() if "spread" in line)
    assert "Pool spread" in row and "pool" in row and "not needed" in row
