"""Telemetry is off unless the user configured it, and off it is free: with the plugin installed
and loaded, a ``chatcli -p`` run with a tool call imports no OpenTelemetry module
(``sys.modules`` as the process ends) and sends nothing. A project's config
cannot switch it on or point it elsewhere; it can switch it off.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply, ToolCall
from otel_support import chatcli_env, receiver
from process_support import PYTHON

pytestmark = pytest.mark.slow


#: chatcli's console script, telling at exit which modules were loaded (``sys.modules``: every
#: way of importing counts, ``importlib.import_module`` included).
_WATCHED = """\
import atexit, sys
atexit.register(lambda: print("modules:", " ".join(sorted(sys.modules)), file=sys.stderr))
sys.argv[0] = "chatcli"
from chatcli_cli.main import main
sys.exit(main())
"""


def _imports(workspace: Path, env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str],
                                                            set[str]]:
    """Run one scripted turn; the process and the modules loaded when it ended."""
    done = subprocess.run(
        [str(PYTHON), "-c", _WATCHED, "-p", "read the notes", "--model", "gpt-test"],
        cwd=workspace, env=env, capture_output=True, text=True, timeout=120,
        stdin=subprocess.DEVNULL)
    lines = [line for line in done.stderr.splitlines() if line.startswith("modules: ")]
    assert len(lines) == 1, done.stderr[-2000:]
    return done, set(lines[0].split()[1:])


def _script(server: OpenAIServer) -> None:
    server.script(Reply(tool_calls=[ToolCall("read", {"path": "notes.txt"})]),
                  Reply(text="hello"))


@pytest.fixture
def project(home: Path, workspace: Path) -> Path:
    (workspace / "notes.txt").write_text("hello\n")
    return workspace


def _opentelemetry(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] == "opentelemetry")


def test_without_configuration_nothing_is_imported_or_sent(home, project, openai_server):
    _script(openai_server)
    done, modules = _imports(project, chatcli_env(home, openai_server))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "chatcli_otel.plugin" in modules  # the plugin ran its hooks…
    assert _opentelemetry(modules) == []  # …and loaded nothing of OpenTelemetry
    assert "chatcli_otel.config" not in modules  # (nor its settings: nothing to read)
    assert len(openai_server.requests) == 2  # the tool call and the answer: a real turn


def test_the_plugin_knows_the_variables_that_turn_telemetry_on() -> None:
    from chatcli_otel import config, plugin

    assert plugin._ENDPOINT_VARIABLES == config.ENDPOINT_VARIABLES


@pytest.mark.parametrize("off", ["user-config", "sdk-disabled", "project-config"])
def test_switched_off_with_an_endpoint_set_nothing_is_imported_or_sent(home, project,
                                                                      openai_server, off):
    _script(openai_server)
    extra: dict[str, str] = {}
    if off == "user-config":
        (home / "config" / "config.toml").write_text("[otel]\nenabled = false\n")
    elif off == "sdk-disabled":
        extra["OTEL_SDK_DISABLED"] = "true"
    else:  # a project may turn telemetry off (never on): taken even untrusted
        (project / ".chatcli").mkdir()
        (project / ".chatcli" / "config.toml").write_text("[otel]\nenabled = false\n")
    with receiver() as collector:
        env = chatcli_env(home, openai_server, OTEL_EXPORTER_OTLP_ENDPOINT=collector.url,
                          **extra)
        done, modules = _imports(project, env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _opentelemetry(modules) == []
    assert collector.paths == []


def test_a_project_cannot_switch_telemetry_on_or_choose_the_collector(home, project,
                                                                      openai_server):
    _script(openai_server)
    with receiver() as collector:
        (project / ".chatcli").mkdir()
        (project / ".chatcli" / "config.toml").write_text(
            f'[otel]\nenabled = true\nendpoint = "{collector.url}"\ncapture_content = true\n')
        done, modules = _imports(project, chatcli_env(home, openai_server))
    assert done.returncode == 0, done.stderr[-2000:]
    assert _opentelemetry(modules) == []
    assert collector.paths == []


def test_configured_in_the_users_file_it_is_imported_and_exports(home, project, openai_server):
    _script(openai_server)
    with receiver() as collector:
        (home / "config" / "config.toml").write_text(f'[otel]\nendpoint = "{collector.url}"\n')
        done, modules = _imports(project, chatcli_env(home, openai_server))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "opentelemetry.sdk.trace" in modules  # what the checks above look for, when on
    assert "/v1/traces" in collector.paths and "/v1/metrics" in collector.paths
    assert sorted(s.name for s in collector.spans()) == [
        "chat gpt-test", "chat gpt-test", "execute_tool read", "invoke_agent chatcli"]
