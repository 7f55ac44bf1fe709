"""A collector that is down or hangs never fails or holds chatcli: the answer is printed, the
exit code is 0, stdout holds nothing else, and stderr has one line about telemetry at most. A
wrong ``[otel]`` value is a one-line configuration error that repeats no endpoint.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from chatcli_testing import Reply, ToolCall
from otel_support import CHATCLI, chatcli_env, dead_endpoint, silent_collector

pytestmark = pytest.mark.slow


def _run(workspace: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = subprocess.run([str(CHATCLI), "-p", "read the notes", "--model", "gpt-test"],
                          cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    return done, time.monotonic() - started


def _script(server) -> None:
    server.script(Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                  Reply(text="The notes say hello."))


def _telemetry_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if not line.startswith("chatcli: tool read")]


@pytest.fixture
def project(home: Path, workspace: Path) -> Path:
    (workspace / "notes.txt").write_text("hello\n")
    return workspace


def test_a_collector_that_is_down_costs_one_line_at_most(home, project, openai_server):
    _script(openai_server)
    endpoint = dead_endpoint()
    done, seconds = _run(project, chatcli_env(home, openai_server,
                                              OTEL_EXPORTER_OTLP_ENDPOINT=endpoint))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The notes say hello.\n"
    lines = _telemetry_lines(done.stderr)
    assert len(lines) <= 1, lines
    assert all(line.startswith("chatcli: warning: otel:") for line in lines)
    assert endpoint not in done.stderr  # it may hold credentials: never repeated
    print(f"a dead collector: {seconds:.2f} s")  # measured for the report, not asserted


def test_a_collector_that_never_answers_is_given_up_after_the_timeout(home, project,
                                                                      openai_server):
    _script(openai_server)
    (home / "config" / "config.toml").write_text("[otel]\ntimeout = 0.5\n")
    with silent_collector() as endpoint:
        done, seconds = _run(project, chatcli_env(home, openai_server,
                                                  OTEL_EXPORTER_OTLP_ENDPOINT=endpoint))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "The notes say hello.\n"
    lines = _telemetry_lines(done.stderr)
    assert len(lines) == 1 and lines[0].startswith("chatcli: warning: otel: "), lines
    print(f"a silent collector: {seconds:.2f} s")


@pytest.mark.parametrize(("table", "named"), [
    ('endpoint = "ftp://user:hunter2secret@collector:4318"', "[otel] endpoint"),
    ('enabled = "maybe"', "[otel] enabled"),
    ("timeout = -1", "[otel] timeout"),
    ('headers = "authorization=Bearer hunter2secret"', "[otel] headers"),
    ('endpont = "http://collector:4318"', "[otel] has no setting 'endpont'"),
])
def test_a_wrong_setting_is_a_one_line_error_that_hides_the_value(home, project, openai_server,
                                                                  table, named):
    (home / "config" / "config.toml").write_text(f"[otel]\n{table}\n")
    done, _seconds = _run(project, chatcli_env(home, openai_server))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and named in lines[0], lines
    assert "hunter2secret" not in done.stderr
    assert openai_server.requests == []
