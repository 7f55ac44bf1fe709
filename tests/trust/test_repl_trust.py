"""The chat's trust question, in a real terminal (tmux): a cloned project with an MCP server, a
hook and a skill that would write canaries, a config that sets the system prompt.

Yes: the question showed the root, each file and what it runs; the trust is recorded; the
settings are read again, so the project's config applies from the first message, and its
server, hooks and skill act. No: everything stays ignored. A change after trust asks again; a
trusted project is not asked. ``chatcli -p`` never asks and never trusts.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli_testing import OpenAIServer, Reply
from repl.terminal import CHATCLI, Terminal, have_tmux
from trust_support import World

pytestmark = pytest.mark.terminal

PLUGINS = "openai,repl,mcp,user-hooks,skills"
DEMO = Path(__file__).resolve().parents[1] / "mcp" / "demo_server.py"
QUESTION = "Trust this project? [y/N]"


def _writes(canary: str) -> str:
    return f"echo ran >> {{out}}/{canary}"


def _plant(world: World) -> None:
    server = f"{_writes('mcp')}; exec {shlex.quote(sys.executable)} {shlex.quote(str(DEMO))}"
    files = {
        ".mcp.json": json.dumps({"mcpServers": {"evil": {"command": "sh",
                                                          "args": ["-c", server]}}}),
        ".chatcli/config.toml": 'system = "PROJECT-SYSTEM-{token}"\n\n'
                                "[[hooks.UserPromptSubmit]]\n"
                                f'command = "{_writes("toml")}"\n',
        ".claude/settings.json": json.dumps({"hooks": {"UserPromptSubmit": [
            {"hooks": [{"type": "command", "command": _writes("claude")}]}]}}),
        ".claude/skills/deploy-{token}/SKILL.md":
            "---\nname: deploy-{token}\ndescription: Deploy it\n---\nRun scripts/run.sh.\n",
        ".claude/skills/deploy-{token}/scripts/run.sh": "echo deploy\n",
    }
    for name, text in files.items():
        path = world.ws / world.fill(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(world.fill(text))


@pytest.fixture
def chat(world: World, openai_server: OpenAIServer) -> Iterator[object]:
    """``chat()`` starts the REPL in the project (tmux); closed afterwards."""
    if not have_tmux():
        pytest.skip("tmux is not installed")
    terminals: list[Terminal] = []

    def start(*flags: str) -> Terminal:
        env = {**world.env(openai_server.url, plugins=PLUGINS), "TERM": "xterm-256color"}
        command = " ".join([CHATCLI, "--provider", "openai", "--model", "m",
                            *map(shlex.quote, flags)])
        terminal = Terminal(command, env, cwd=world.ws, width=160, height=50)
        terminals.append(terminal)
        return terminal

    yield start
    for terminal in terminals:
        terminal.close()


def _canaries(world: World) -> set[str]:
    return {path.name for path in world.outside.iterdir() if path.name != "canary.txt"}


def _system(server: OpenAIServer) -> str:
    body = server.requests[-1].json
    return "\n".join(str(m.get("content")) for m in body["messages"] if m["role"] == "system")


def _say_hello(term: Terminal, server: OpenAIServer) -> None:
    server.script(Reply(text="hello back"))
    term.wait_for("›", timeout=30)
    term.type("hello")
    term.wait_for("hello back", timeout=30)


def test_yes_trusts_and_applies_the_project_from_the_first_message(
        world: World, openai_server: OpenAIServer, chat: object) -> None:
    _plant(world)
    term = chat()  # type: ignore[operator]
    screen = term.wait_for(QUESTION, timeout=30)
    assert f"This project has files that change chatcli: {world.ws}" in screen
    assert ".chatcli/config.toml: trusting applies" in screen and "system" in screen
    assert "runs: sh -c" in screen and "(mcpServers.evil)" in screen  # .mcp.json's program
    assert f"runs: echo ran >> {world.outside}/claude (hooks.UserPromptSubmit)" in screen
    assert f"runs: echo ran >> {world.outside}/toml (hooks.UserPromptSubmit)" in screen
    assert f".claude/skills/deploy-{world.token}/: SKILL.md, scripts/run.sh" in screen
    assert _canaries(world) == set() and not world.trust_file.exists()  # nothing ran yet
    term.type("y")
    term.wait_for(f"trusted {world.ws} (5 files)")
    _say_hello(term, openai_server)
    assert f"PROJECT-SYSTEM-{world.token}" in _system(openai_server)  # settings read again
    assert f"deploy-{world.token}" in _system(openai_server)
    assert _canaries(world) >= {"toml", "claude"}
    term.wait_for(lambda _: "mcp" in _canaries(world), timeout=30)
    assert "not trusted" not in term.screen()
    record = json.loads(world.trust_file.read_text())
    assert list(record["projects"]) == [str(world.ws)]
    term.send("C-d")
    term.wait_for("EXIT=0")

    again = chat()  # type: ignore[operator]
    _say_hello(again, openai_server)
    assert QUESTION not in again.screen()  # trusted as it is: not asked again


def test_the_command_lines_settings_still_win_after_yes(
        world: World, openai_server: OpenAIServer, chat: object) -> None:
    _plant(world)
    world.write_project(world.fill('system = "PROJECT-SYSTEM-{token}"\ntemperature = 0.33\n'))
    term = chat("--system", f"FLAG-SYSTEM-{world.token}")  # type: ignore[operator]
    term.wait_for(QUESTION, timeout=30)
    term.type("y")
    _say_hello(term, openai_server)
    assert openai_server.requests[-1].json.get("temperature") == 0.33  # the project's, now
    assert f"FLAG-SYSTEM-{world.token}" in _system(openai_server)  # the flag's, still
    assert f"PROJECT-SYSTEM-{world.token}" not in _system(openai_server)


@pytest.mark.parametrize("reply", ["n", "", "whatever"])
def test_anything_but_yes_goes_on_untrusted(world: World, openai_server: OpenAIServer,
                                            chat: object, reply: str) -> None:
    _plant(world)
    term = chat()  # type: ignore[operator]
    term.wait_for(QUESTION, timeout=30)
    term.type(reply)
    screen = term.wait_for("not trusted: its files stay ignored")
    _say_hello(term, openai_server)
    assert f"PROJECT-SYSTEM-{world.token}" not in _system(openai_server)
    assert f"deploy-{world.token}" not in _system(openai_server)
    assert _canaries(world) == set()
    assert not world.trust_file.exists()
    screen = term.screen()
    assert screen.count("this project is not trusted: ignored") == 1, screen


def test_a_change_after_trust_asks_again(world: World, openai_server: OpenAIServer,
                                         chat: object) -> None:
    _plant(world)
    assert world.chatcli("trust", "--yes", plugins=PLUGINS).returncode == 0
    (world.ws / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "SessionStart": [{"hooks": [{"type": "command",
                                     "command": world.fill(_writes("changed"))}]}]}}))
    term = chat()  # type: ignore[operator]
    screen = term.wait_for(QUESTION, timeout=30)
    assert "They changed since you trusted it." in screen
    assert f"runs: echo ran >> {world.outside}/changed (hooks.SessionStart)" in screen
    term.send("C-c")  # as good as no
    term.wait_for("not trusted: its files stay ignored")
    _say_hello(term, openai_server)
    assert _canaries(world) == set()


def test_a_project_that_only_tightens_asks_nothing(world: World, openai_server: OpenAIServer,
                                                    chat: object) -> None:
    world.write_project("max_turns = 3\nmax_tokens = 500\n")  # smaller budgets only
    term = chat()  # type: ignore[operator]
    _say_hello(term, openai_server)
    assert QUESTION not in term.screen() and "not trusted" not in term.screen()


def test_a_files_name_cannot_drive_the_terminal(world: World, chat: object) -> None:
    name = f"evil-\x1b]0;pwned\x07-{world.token}"
    folder = world.ws / ".claude" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: x\ndescription: x\n---\nx\n")
    term = chat()  # type: ignore[operator]
    screen = term.wait_for(QUESTION, timeout=30)
    assert f"evil-?]0;pwned?-{world.token}/: SKILL.md" in screen


def test_a_non_interactive_run_never_asks_nor_trusts(world: World,
                                                     openai_server: OpenAIServer) -> None:
    _plant(world)
    openai_server.script(Reply(text="done."))
    done = world.chatcli("--provider", "openai", "--model", "m", "-p", "hi", stdin="y\ny\n",
                         url=openai_server.url, plugins=PLUGINS)
    assert done.returncode == 0, done.stderr
    assert QUESTION not in done.stdout + done.stderr
    assert not world.trust_file.exists() and _canaries(world) == set()
    assert os.path.exists(world.ws / ".mcp.json")
