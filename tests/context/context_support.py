"""Helpers of the chatcli-context tests: a real Session against a wire server with the context
plugin, a ChatApp for its slash commands, the real command line, and readers of what the
provider received (a module of its own: tests import it by its bare name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from chatcli import (
    Conversation,
)
from chatcli_context.plugin import ContextPlugin
from session_harness import HarnessChat, system_of

CHATCLI = str(Path(sys.executable).with_name("chatcli"))


class Chat(HarnessChat):
    """A session with the context plugin answering through ``server`` (an OpenAIServer or an
    AnthropicServer), and a ChatApp for ``/context`` commands."""

    def __init__(self, server: Any, workspace: Path, *, provider: str = "openai",
                 context: dict[str, Any] | None = None, extra_plugins: tuple[Any, ...] = (),
                 provider_options: dict[str, Any] | None = None, conversation_id: str | None
                 = None, **settings: Any) -> None:
        self.plugin = ContextPlugin()
        if context is not None:
            settings["context"] = context
        super().__init__(server, workspace, plugins=[("context", self.plugin)],
                         extra_plugins=extra_plugins, provider=provider,
                         provider_options=provider_options,
                         conversation=None if conversation_id is None
                         else Conversation(id=conversation_id), **settings)

    def command(self, text: str) -> str:
        """Run ``/context TEXT``; what it printed."""
        return self.slash(f"/context {text}")


# ------------------------------------------------------------------------ what was received


openai_system = system_of


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
                   CHATCLI_PLUGINS=f"{plugins},print", **env)
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
