"""Helpers of the chatcli-personas tests: a real Session against the OpenAI wire server with
the personas plugin (and the core pack), a ChatApp for slash commands, the real command line,
and readers of what the provider received (a module of its own: tests import it by its bare
name)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Risk,
    SessionOptions,
    TurnFinished,
)
from chatcli_personas.plugin import PersonasPlugin
from session_harness import HarnessApp, HarnessChat, system_of  # noqa: F401 (the tests use it)

CHATCLI = str(Path(sys.executable).with_name("chatcli"))

SECURITY_BODY_START = "You are the reviewer people are glad to hear from"


class Chat(HarnessChat):
    """A session answering through ``server`` with the personas plugin, and a ChatApp for its
    slash commands."""

    def __init__(self, server: Any, workspace: Path, *, core: bool = True,
                 extra_plugins: tuple[Any, ...] = (), allow: frozenset[str] = frozenset(),
                 conversation: Conversation | None = None,
                 provider_options: dict[str, Any] | None = None) -> None:
        self.plugin = PersonasPlugin()
        plugins: list[tuple[str, Any]] = [("personas", self.plugin)]
        if core:
            import chatcli_personas_core.plugin as core_plugin

            plugins.append(("personas-core", core_plugin))
        super().__init__(server, workspace, plugins=plugins, extra_plugins=extra_plugins,
                         options=SessionOptions(allow=allow), width=200,
                         conversation=conversation, provider_options=provider_options)

    def command(self, line: str) -> str:
        """Run ``/name args`` as the chat does; what it printed."""
        return self.slash(line)

    def turn(self, text: str, *, check: bool = False, cancel: Any = None) -> TurnFinished:
        """One user turn; its end (an error is the test's to look at)."""
        return super().turn(text, check=check, cancel=cancel)


App = HarnessApp


ALL_RISKS = frozenset(risk.value for risk in Risk)


# ------------------------------------------------------------------------ what was received




def last_user(request: Any) -> str:
    """The last user message's text of an OpenAI chat request."""
    content = [m for m in request.json["messages"] if m["role"] == "user"][-1]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return content


def tool_names(request: Any) -> list[str]:
    """The tools an OpenAI request offers."""
    return [t["function"]["name"] for t in request.json.get("tools") or []]


# ------------------------------------------------------------------------ files and the CLI


def write(root: Path, relative: str, text: str) -> Path:
    """Write ``text`` (dedented) at ``root/relative``."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


def persona_file(name: str, body: str = "", **fields: Any) -> str:
    """A persona's markdown: YAML frontmatter from ``fields`` (lists as flow lists)."""
    lines = ["---", f"name: {name}"]
    for key, value in fields.items():
        key = key.replace("_", "-")
        if isinstance(value, list | tuple):
            lines.append(f"{key}: [{', '.join(value)}]")
        else:
            lines.append(f"{key}: {value}")
    lines += ["---", body or f"You are {name}, a test persona."]
    return "\n".join(lines) + "\n"


def cli(home: Path, workspace: Path, server: Any, *args: str,
        plugins: str = "openai,sessions,personas,personas-core", model: bool = True,
        **env: str) -> subprocess.CompletedProcess[str]:
    """``chatcli ARGS --provider openai --model m`` (without the flags: ``model=False``) as a
    real process in ``workspace``."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_", "NO_COLOR"))}
    environ["CHATCLI_LANG"] = "en"  # another language: CHATCLI_LANG="pt_BR"
    environ.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                   CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
                   OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.url,
                   CHATCLI_PLUGINS=f"{plugins},print", **env)
    flags = ["--provider", "openai", "--model", "m"] if model else []
    return subprocess.run([CHATCLI, *args, *flags],
                          capture_output=True, text=True, env=environ, cwd=workspace,
                          timeout=60, stdin=subprocess.DEVNULL)
