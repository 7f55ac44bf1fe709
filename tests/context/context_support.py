"""Helpers of the chatcli-context tests: a real Session against a wire server with the context
plugin, a ChatApp for its slash commands, the real command line, and readers of what the
provider received (a module of its own: tests import it by its bare name)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
    Message,
    PluginHost,
    ProviderSettings,
    Session,
    SessionOptions,
    Settings,
    ToolFinished,
    TurnFinished,
)
from chatcli_context.plugin import ContextPlugin
from rich.console import Console

CHATCLI = str(Path(sys.executable).with_name("chatcli"))


class Chat:
    """A session with the context plugin answering through ``server`` (an OpenAIServer or an
    AnthropicServer), and a ChatApp for ``/context`` commands."""

    def __init__(self, server: Any, workspace: Path, *, provider: str = "openai",
                 context: dict[str, Any] | None = None, extra_plugins: tuple[Any, ...] = (),
                 provider_options: dict[str, Any] | None = None, conversation_id: str | None
                 = None, **settings: Any) -> None:
        import chatcli_provider_anthropic.plugin as anthropic_plugin
        import chatcli_provider_openai.plugin as openai_plugin

        self.server = server
        self.workspace = workspace
        self.warned: list[str] = []
        self.host = PluginHost(warn=self.warned.append)
        module = openai_plugin if provider == "openai" else anthropic_plugin
        assert self.host.register(module, provider)
        self.plugin = ContextPlugin()
        assert self.host.register(self.plugin, "context")
        for index, extra in enumerate(extra_plugins):
            assert self.host.register(extra, f"extra{index}")
        options = {"base_url": server.url, **(provider_options or {})}
        values: dict[str, Any] = {"provider": provider, "model": "m",
                                  "providers": {provider: ProviderSettings(**options)},
                                  **settings}
        if context is not None:
            values["context"] = context
        self.settings = Settings(**values)
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, width=300, color_system=None, no_color=True)
        self.session = Session(self.host, self.settings, SessionOptions(),
                               workspace=workspace).open()
        if conversation_id is not None:
            self.session.set_conversation(Conversation(id=conversation_id))
        self.events: list[Any] = []

    # ChatApp -----------------------------------------------------------------------------

    @property
    def conversation(self) -> Conversation:
        return self.session.conversation

    def command(self, text: str) -> str:
        """Run ``/context TEXT``; what it printed."""
        self.buffer.seek(0)
        self.buffer.truncate()
        self.host.slash_commands()["context"].run(_App(self), text)
        return self.buffer.getvalue()

    # turns -------------------------------------------------------------------------------

    def turn(self, text: str) -> TurnFinished:
        """One user turn; its end."""
        self.events = list(self.session.run(Message.user(text)))
        finished = self.events[-1]
        assert isinstance(finished, TurnFinished), finished
        assert finished.error is None, finished.error
        return finished

    def results(self) -> list[Any]:
        """The tool results of the last turn."""
        return [e.result for e in self.events if isinstance(e, ToolFinished)]

    def request(self) -> Any:
        """The request the next model call would send (built now, not sent)."""
        return self.session.engine.build_request(self.conversation)

    def close(self) -> None:
        self.session.close()


class _App:
    """The ChatApp a slash command receives."""

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.console = chat.console
        self.host = chat.host
        self.session = chat.session

    @property
    def settings(self) -> Settings:
        return self.chat.session.settings

    @property
    def conversation(self) -> Conversation:
        return self.chat.session.conversation

    def set_conversation(self, conversation: Conversation) -> None:
        self.chat.session.set_conversation(conversation)


# ------------------------------------------------------------------------ what was received


def openai_system(request: Any) -> str:
    """The system message of an OpenAI chat request."""
    return next(m["content"] for m in request.json["messages"] if m["role"] == "system")


def openai_stable_prefix(request: Any) -> str:
    """The system text up to the end of the last stable section (the first volatile section is
    the kernel's date, "Today is …")."""
    system = openai_system(request)
    return system[:system.index("\n\nToday is ")]


def anthropic_stable_prefix(request: Any) -> list[dict[str, Any]]:
    """The system blocks before the first volatile one (the kernel's date, "Today is …"),
    without their cache marks."""
    blocks = request.json["system"]
    end = next(i for i, b in enumerate(blocks) if b["text"].startswith("Today is "))
    return [{"type": b["type"], "text": b["text"]} for b in blocks[:end]]


def tool_names(request: Any) -> list[str]:
    """The tools an OpenAI or Anthropic request offers."""
    tools = request.json.get("tools") or []
    return [t["function"]["name"] if "function" in t else t["name"] for t in tools]


def tool_results(request: Any) -> list[str]:
    """The tool results an OpenAI request carries (the text protocol's come as user messages)."""
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


# ------------------------------------------------------------------------ the command line


def cli(home: Path, workspace: Path, server: Any, *args: str, plugins: str =
        "openai,sessions,context", **env: str) -> subprocess.CompletedProcess[str]:
    """``chatcli ARGS --provider openai --model m`` as a real process in ``workspace``."""
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_"))}
    environ.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                   CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
                   OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=server.url,
                   CHATCLI_PLUGINS=plugins, **env)
    return subprocess.run([CHATCLI, *args, "--provider", "openai", "--model", "m"],
                          capture_output=True, text=True, env=environ, cwd=workspace,
                          timeout=60, stdin=subprocess.DEVNULL)


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
