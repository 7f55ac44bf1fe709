"""Each feature is its own distribution: install the kernel and its command line (chatcli-cli)
alone, add and remove providers.

These tests build throwaway virtual environments with uv (from the workspace sources, offline
from uv's cache once the workspace is synced) and drive the installed ``chatcli`` script.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UV = shutil.which("uv") or str(Path(sys.executable).with_name("uv"))

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not Path(UV).exists(), reason="uv is not installed")]


def uv(*args: str) -> None:
    result = subprocess.run([UV, *args], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def kernel_venv(tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("kernel-only") / "venv"
    uv("venv", "-q", "--python", sys.executable, str(venv))
    python = str(venv / "bin" / "python")
    uv("pip", "install", "-q", "--python", python, "-e", str(ROOT / "kernel"))
    assert not (venv / "bin" / "chatcli").exists()  # the kernel is a library: no command
    # its command line (the `chatcli` script), still without any plugin
    uv("pip", "install", "-q", "--python", python, "-e", str(ROOT / "libs" / "cli"))
    return venv


def commands(help_text: str) -> set[str]:
    """The sub-command names ``chatcli --help`` lists."""
    _, found, rest = help_text.partition("\nCommands:\n")
    lines = rest.split("\n\n")[0].splitlines() if found else []
    return {line.split()[0] for line in lines if line.startswith("  ") and line.strip()}


def chatcli(venv: Path, *args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")}
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"))
    return subprocess.run([str(venv / "bin" / "chatcli"), *args], capture_output=True,
                          text=True, env=env, timeout=120)


def test_kernel_alone_works_and_says_which_providers_to_add(kernel_venv, tmp_path) -> None:
    version = chatcli(kernel_venv, "--version", home=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("chatcli ")
    helped = chatcli(kernel_venv, "--help", home=tmp_path)
    assert helped.returncode == 0 and "--prompt" in helped.stdout
    assert commands(helped.stdout) == set()  # every sub-command comes from a plugin
    asked = chatcli(kernel_venv, "-p", "hello", home=tmp_path)
    assert (asked.returncode, asked.stdout) == (2, "")
    assert asked.stderr == ("chatcli: error: answering a prompt needs chatcli-print: "
                            "pip install chatcli-print\n")
    uv("pip", "install", "-q", "--python", str(kernel_venv / "bin" / "python"),
       "-e", str(ROOT / "plugins" / "print"), "-e", str(ROOT / "libs" / "render"))
    asked = chatcli(kernel_venv, "-p", "hello", home=tmp_path)
    assert asked.returncode == 2
    assert "no provider is installed" in asked.stderr
    assert "pip install chatcli-provider-" in asked.stderr
    assert "Traceback" not in asked.stderr


def test_removing_one_provider_removes_exactly_that_provider(kernel_venv, tmp_path) -> None:
    python = str(kernel_venv / "bin" / "python")
    uv("pip", "install", "-q", "--python", python, "-e", str(ROOT / "plugins" / "admin"),
       "-e", str(ROOT / "providers" / "openai"), "-e", str(ROOT / "providers" / "ollama"))
    before = chatcli(kernel_venv, "models", home=tmp_path)
    assert before.returncode == 0, before.stderr
    assert "openai" in before.stdout and "ollama" in before.stdout
    assert "groq" in before.stdout  # a preset of the openai package

    uv("pip", "uninstall", "-q", "--python", python, "chatcli-provider-openai")
    after = chatcli(kernel_venv, "models", home=tmp_path)
    assert after.returncode == 0, after.stderr
    assert "ollama" in after.stdout
    assert "openai" not in after.stdout.replace("chatcli-provider-openai", "")
    assert "groq" not in after.stdout
    assert "Traceback" not in after.stderr and "failed" not in after.stderr


def test_chatcli_alone_loads_no_pytest_plugin_into_other_projects(kernel_venv, tmp_path) -> None:
    # A project whose environment has chatcli (not chatcli-testing) runs its tests untouched.
    python = str(kernel_venv / "bin" / "python")
    uv("pip", "install", "-q", "--python", python, "pytest")
    (tmp_path / "test_other.py").write_text("def test_other():\n    assert True\n")
    done = subprocess.run([python, "-m", "pytest", "-q", "--fixtures", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "openai_server" not in done.stdout and "chatcli_home" not in done.stdout
    listed = subprocess.run([python, "-c", "from importlib.metadata import entry_points; "
                             "print([e.value for e in entry_points(group='pytest11')])"],
                            capture_output=True, text=True, check=True)
    assert "chatcli" not in listed.stdout


ADMIN_COMMANDS = {"config", "keys", "models", "plugins", "trust"}


def test_removing_chatcli_admin_removes_exactly_its_commands(kernel_venv, tmp_path) -> None:
    python = str(kernel_venv / "bin" / "python")
    uv("pip", "install", "-q", "--python", python, "-e", str(ROOT / "plugins" / "admin"),
       "-e", str(ROOT / "plugins" / "sessions"))
    with_admin = chatcli(kernel_venv, "--help", home=tmp_path)
    assert with_admin.returncode == 0, with_admin.stderr
    assert ADMIN_COMMANDS | {"sessions"} <= commands(with_admin.stdout)
    listed = chatcli(kernel_venv, "trust", "--list", home=tmp_path)
    assert listed.returncode == 0 and "no trusted projects" in listed.stdout

    uv("pip", "uninstall", "-q", "--python", python, "chatcli-admin")
    without = chatcli(kernel_venv, "--help", home=tmp_path)
    assert without.returncode == 0, without.stderr
    assert commands(with_admin.stdout) - commands(without.stdout) == ADMIN_COMMANDS
    gone = chatcli(kernel_venv, "models", home=tmp_path)
    assert gone.returncode == 2 and "No such command 'models'" in gone.stderr
    kept = chatcli(kernel_venv, "sessions", "list", home=tmp_path)
    assert kept.returncode == 0, kept.stderr
    assert "Traceback" not in without.stderr + gone.stderr + kept.stderr
