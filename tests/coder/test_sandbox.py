"""The bubblewrap sandbox, for real: the workspace writable and nothing else, a private /tmp,
no network unless asked, nothing outliving chatcli; and what happens where bwrap is missing."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import uuid

import pytest
from chatcli import Settings
from chatcli_coder import _probe, _run
from coder_support import Agent, wait_gone

needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap is not installed (.ci/run installs it)")


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@needs_bwrap
def test_the_workspace_is_writable_and_nothing_else(workspace, outside):
    agent = Agent(workspace)
    text = agent.ok("exec", command=f"echo made > made.txt && echo escaped > {outside}/x.txt")
    assert text.splitlines()[0].startswith("exit code 1")
    assert (workspace / "made.txt").read_text() == "made\n"
    assert not (outside / "x.txt").exists()  # under /tmp: the private /tmp hides it
    probe = f"/var/tmp/chatcli-probe-{uuid.uuid4().hex}"
    system = agent.ok("exec", command=f"echo escaped > {probe}")
    assert "Read-only file system" in system
    assert system.splitlines()[-1].startswith(
        "[the sandbox makes everything outside the workspace and /tmp read-only")
    assert not os.path.exists(probe)
    home = agent.ok("exec", command="touch ~/.bashrc-chatcli-probe; echo $?")
    assert home.splitlines()[-1] != "0"
    assert not os.path.exists(os.path.expanduser("~/.bashrc-chatcli-probe"))
    # the same command unconfined does write there: the sandbox is what stopped it
    off = Agent(workspace, Settings(coder={"sandbox": "off"}))
    off.ok("exec", command=f"echo escaped > {outside}/x.txt")
    assert (outside / "x.txt").exists()


@needs_bwrap
def test_programs_of_a_virtualenv_under_tmp_stay_reachable_read_only(workspace, tmp_path,
                                                                     monkeypatch):
    """A project cloned under /tmp with its .venv beside it: the private /tmp must not hide the
    interpreter or the tools on PATH (they are shown read-only)."""
    venv = tmp_path / "project-venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    tool = venv / "bin" / "hello-tool"
    tool.write_text("#!/bin/sh\necho hello from the venv\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    agent = Agent(workspace)
    text = agent.ok("exec", command="hello-tool && touch $(dirname $(command -v hello-tool))/x")
    assert "hello from the venv" in text
    assert not (venv / "bin" / "x").exists()  # read-only
    ran = agent.ok("exec", command=f"{sys.executable} -c 'print(6 * 7)'")
    assert ran.splitlines()[0].startswith("exit code 0") and "42" in ran


@needs_bwrap
def test_tmp_is_private_to_the_command(workspace):
    name = f"chatcli-sandbox-{uuid.uuid4().hex}"
    text = Agent(workspace).ok("exec", command=f"echo hi > /tmp/{name} && cat /tmp/{name}")
    assert text.splitlines()[0].startswith("exit code 0") and "hi" in text
    assert not os.path.exists(f"/tmp/{name}")


@needs_bwrap
def test_allowed_dirs_and_sandbox_writable_are_writable_too(workspace, outside, tmp_path):
    extra = tmp_path / "cache"
    extra.mkdir()
    agent = Agent(workspace, Settings(allowed_dirs=[str(outside)],
                                      coder={"sandbox_writable": [str(extra)]}))
    agent.ok("exec", command=f"echo a > {outside}/a.txt && echo b > {extra}/b.txt")
    assert (outside / "a.txt").read_text() == "a\n"
    assert (extra / "b.txt").read_text() == "b\n"


@needs_bwrap
def test_the_network_is_unreachable_unless_the_call_asks_for_it(workspace):
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    accepted: list[bytes] = []

    def serve():
        server.settimeout(20)
        try:
            connection, _ = server.accept()
            with connection:
                accepted.append(connection.recv(100))
        except OSError:
            pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    probe = f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo reached >&3 && echo connected"
    agent = Agent(workspace)
    try:
        cut_off = agent.ok("exec", command=probe, timeout=20)
        assert cut_off.splitlines()[0].startswith("exit code 1")
        assert "connected" not in cut_off
        assert "sandbox: bwrap, no network" in cut_off
        assert "Network is unreachable" in cut_off or "Connection refused" in cut_off
        assert accepted == []
        allowed = agent.ok("exec", command=probe, network=True, timeout=20)
        assert allowed.splitlines()[0].startswith("exit code 0 (")
        assert "network allowed" in allowed.splitlines()[0]
        thread.join(10)
        assert accepted == [b"reached\n"]
    finally:
        server.close()


@needs_bwrap
def test_the_test_tool_runs_in_the_sandbox_too(workspace, outside):
    agent = Agent(workspace)
    text = agent.ok("test", command=f"touch {outside}/t && echo ok")
    assert "tests failed, exit code 1" in text and "sandbox: bwrap" in text
    assert not (outside / "t").exists()


@needs_bwrap
def test_the_command_dies_with_chatcli(tmp_path, workspace):
    """Kill -9 the process that runs the tool: the sandboxed command dies with it."""
    tag = f"{os.getpid() % 1000 + 3000}.{uuid.uuid4().int % 10**6}"
    script = textwrap.dedent(f"""
        from pathlib import Path
        import shutil
        from chatcli_coder._run import run_command, sandboxed
        argv = sandboxed(["bash", "-c", "trap '' TERM; echo up; sleep {tag}"],
                         shutil.which("bwrap"), Path({str(workspace)!r}),
                         [Path({str(workspace)!r})], network=False)
        run_command(argv, cwd=Path({str(workspace)!r}), env={{"PATH": "/usr/bin:/bin"}},
                    timeout=600, budget=1000, output=lambda line: print(line, flush=True),
                    cancelled=lambda: False)
    """)
    host = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout.readline().strip() == "up"
        assert wait_gone(tag, 0) != []
        host.send_signal(signal.SIGKILL)
        host.wait(10)
        assert wait_gone(tag) == []
    finally:
        if host.poll() is None:
            host.kill()


def test_without_bwrap_the_command_runs_unconfined_and_says_so_once(workspace, monkeypatch):
    real_which = shutil.which
    monkeypatch.setattr(_run.shutil, "which",
                        lambda name, *a, **k: None if name == "bwrap" else real_which(name))
    monkeypatch.setattr(_run, "_told_missing", False)
    agent = Agent(workspace)
    first = agent.ok("exec", command="echo hi")
    assert first.splitlines()[0] == (
        "[no sandbox: bwrap (bubblewrap) is not installed; the command runs unconfined, with "
        "the network, and only the permission policy guards it]")
    assert "unconfined" in first.splitlines()[1]
    second = agent.ok("exec", command="echo hi")
    assert second.splitlines()[0].startswith("exit code 0 (")
    assert "[no sandbox" not in second

    strict = Agent(workspace, Settings(coder={"sandbox": "bwrap"}))
    error = strict.fails("exec", command="echo hi")
    assert "SandboxUnavailable: [coder] sandbox = \"bwrap\" but bwrap (bubblewrap) is not " \
           "installed" in error


def test_a_bwrap_that_cannot_run_counts_as_missing(workspace, monkeypatch, tmp_path):
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(_run, "_told_missing", False)
    monkeypatch.setattr(_probe, "_probed", {})
    text = Agent(workspace).ok("exec", command="echo hi")
    assert text.splitlines()[0].startswith(
        "[no sandbox: bwrap: No permissions to create new namespace;")
    assert text.splitlines()[-1] == "hi"


@needs_bwrap
def test_a_command_failing_for_want_of_network_is_told_to_ask_for_it(workspace):
    text = Agent(workspace).ok("exec", command="getent hosts pypi.org || "
                               "echo 'Temporary failure in name resolution' >&2; exit 2")
    assert text.splitlines()[-1] == ("[the sandbox has no network: call again with "
                                     "network=true if the command needs it]")
