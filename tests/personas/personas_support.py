"""Helpers of the chatcli-personas tests: a real Session against the OpenAI wire server with
the personas plugin (and the core pack), a ChatApp for slash commands, the real command line,
and readers of what the provider received (a module of its own: tests import it by its bare
name)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Message,
    PluginHost,
    ProviderSettings,
    Risk,
    Session,
    SessionOptions,
    Settings,
    TurnFinished,
)
from chatcli_personas.plugin import PersonasPlugin
from rich.console import Console

CHATCLI = str(Path(sys.executable).with_name("chatcli"))

SECURITY_BODY_START = "You are the reviewer people are glad to hear from"


class Chat:
    """A session answering through ``server`` with the personas plugin, and a ChatApp for its
    slash commands."""

    def __init__(self, server: Any, workspace: Path, *, core: bool = True,
                 extra_plugins: tuple[Any, ...] = (), allow: frozenset[str] = frozenset(),
                 conversation: Conversation | None = None) -> None:
        import chatcli_provider_openai.plugin as openai_plugin

        self.server = server
        self.workspace = workspace
        self.warned: list[str] = []
        self.host = PluginHost(warn=self.warned.append)
        assert self.host.register(openai_plugin, "openai")
        self.plugin = PersonasPlugin()
        assert self.host.register(self.plugin, "personas")
        if core:
            import chatcli_personas_core.plugin as core_plugin

            assert self.host.register(core_plugin, "personas-core")
        for index, extra in enumerate(extra_plugins):
            assert self.host.register(extra, f"extra{index}")
        self.settings = Settings(provider="openai", model="m",
                                 providers={"openai": ProviderSettings(base_url=server.url)})
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=200, color_system=None, no_color=True)
        self.session = Session(self.host, self.settings, SessionOptions(allow=allow),
                               workspace=workspace).open()
        if conversation is not None:
            self.session.set_conversation(conversation)
        self.app = App(self)

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation

    def command(self, line: str) -> str:
        """Run ``/name args`` as the chat does; what it printed."""
        self.buffer.seek(0)
        self.buffer.truncate()
        name, _, argument = line.removeprefix("/").partition(" ")
        self.host.slash_commands()[name].run(self.app, argument.strip())
        return self.buffer.getvalue()

    def turn(self, text: str) -> TurnFinished:
        """One user turn; its end."""
        finished = list(self.session.run(Message.user(text)))[-1]
        assert isinstance(finished, TurnFinished), finished
        return finished

    def close(self) -> None:
        self.session.close()


class App:
    """The ChatApp a slash command receives (``ask`` runs a turn now)."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.console = chat.console
        self.host = chat.host
        self.session = chat.session
        self.asked: list[str] = []

    @property
    def settings(self) -> Settings:
        return self.chat.session.settings

    @property
    def conversation(self) -> Conversation:
        return self.chat.session.conversation

    def set_conversation(self, conversation: Conversation) -> None:
        self.chat.session.set_conversation(conversation)

    def ask(self, text: str) -> TurnFinished:
        self.asked.append(text)
        return self.chat.turn(text)

    def submit(self, text: str) -> None:
        self.ask(text)

    def retry(self) -> None:
        list(self.chat.session.run(None))

    def pick(self, title: str, options: list[str]) -> int | None:
        return None

    def prefill(self, text: str) -> None:
        """Nothing to fill."""

    def exit(self) -> None:
        """Nothing to leave."""


ALL_RISKS = frozenset(risk.value for risk in Risk)


# ------------------------------------------------------------------------ what was received


def system_of(request: Any) -> str:
    """The system message of an OpenAI chat request."""
    return next(m["content"] for m in request.json["messages"] if m["role"] == "system")


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
    environ.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                   CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
                   OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.url,
                   CHATCLI_PLUGINS=plugins, **env)
    flags = ["--provider", "openai", "--model", "m"] if model else []
    return subprocess.run([CHATCLI, *args, *flags],
                          capture_output=True, text=True, env=environ, cwd=workspace,
                          timeout=60, stdin=subprocess.DEVNULL)
