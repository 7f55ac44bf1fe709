"""Helpers of the chatcli-skills tests: writing skill folders, a real Session against a wire
server with the skills plugin (and a ChatApp for its slash commands), the real command line, and
readers of what the provider received. A module of its own: tests import it by its bare name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml
from chatcli import (
    PluginHost,
    Risk,
    Tool,
    ToolContext,
    TurnFinished,
    hookimpl,
)
from chatcli_skills.plugin import SkillsPlugin
from session_harness import HarnessChat

CHATCLI = str(Path(sys.executable).parent / "chatcli")
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "public-skills"


def write_skill(parent: Path, name: str, body: str = "", *, folder: str | None = None,
                raw: str | None = None, **fields: Any) -> Path:
    """Write ``parent/<folder or name>/SKILL.md``; ``fields`` go into the frontmatter (``_`` in
    a key is ``-``), ``raw`` replaces the whole file. Returns the skill's folder."""
    where = parent / (folder or name)
    where.mkdir(parents=True, exist_ok=True)
    if raw is None:
        front = {"name": name, "description": f"The {name} skill. Use it for {name} work."}
        front.update({key.replace("_", "-"): value for key, value in fields.items()})
        raw = ("---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=1000)
               + "---\n\n" + (body or f"# {name}\n\nFollow the {name} steps.\n"))
    (where / "SKILL.md").write_text(raw, encoding="utf-8")
    return where


def pull_kinds(host: PluginHost) -> dict[str, Any]:
    """What context_pull serves: the kinds registered with chatcli-context's hook."""
    from chatcli_plugin_records import PullKind

    return host.collect("register_pull_kinds", PullKind, "pull kind")


class PullTool:
    """A stand-in for chatcli-context's ``context_pull``: serves the host's pull kinds (the
    real tool comes with that plugin)."""

    def __init__(self) -> None:
        self.host: PluginHost | None = None

    @hookimpl
    def add_hookspecs(self, add: Any) -> None:
        from chatcli_context import hookspecs  # the hook the real tool's plugin declares

        add(hookspecs)

    @hookimpl
    def configure(self, host: PluginHost) -> None:
        self.host = host

    @hookimpl
    def register_tools(self, register: Any) -> None:
        def run(arguments: dict[str, Any], context: ToolContext) -> str:
            assert self.host is not None
            kind = pull_kinds(self.host)[arguments["kind"]]
            return kind.fetch(arguments, context)

        register(Tool(name="context_pull", description="read back what the prompt left out",
                      parameters={"type": "object", "properties": {
                          "kind": {"type": "string"}, "name": {"type": "string"},
                          "file": {"type": "string"}}, "required": ["kind"]}, run=run))


class ReadTool:
    """A ``read`` tool over the workspace (what chatcli-coder offers)."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    @hookimpl
    def register_tools(self, register: Any) -> None:
        def run(arguments: dict[str, Any], context: ToolContext) -> str:
            path = Path(arguments["path"])
            path = path if path.is_absolute() else self.workspace / path
            return path.read_text(encoding="utf-8") if path.is_file() else f"{path}: missing"

        register(Tool(name="read", description="read a file", risk=Risk.READ, parameters={
            "type": "object", "properties": {"path": {"type": "string"}},
            "required": ["path"]}, run=run))


class Chat(HarnessChat):
    """A real Session with the skills plugin answering through ``server`` (an OpenAIServer or
    an AnthropicServer), and the ChatApp its slash commands receive."""

    def __init__(self, server: Any, workspace: Path, *, provider: str = "openai",
                 plugins: tuple[Any, ...] | None = None, skills_plugin: SkillsPlugin | None = None,
                 provider_options: dict[str, Any] | None = None, **settings: Any) -> None:
        self.skills = skills_plugin or SkillsPlugin()
        # chatcli-context's context_pull, by default (plugins=() for a chat without it)
        super().__init__(server, workspace, plugins=[("skills", self.skills)],
                         extra_plugins=(PullTool(),) if plugins is None else plugins,
                         provider=provider, provider_options=provider_options, **settings)

    def turn(self, text: str, *replies: Any, check: bool = True,  # type: ignore[override]
             cancel: Any = None) -> TurnFinished:
        """One user turn (the server answers ``replies``, else "ok"); its end."""
        self.server.script(*(replies or ("ok",)))
        return super().turn(text, check=check, cancel=cancel)

    def command(self, line: str, *replies: Any) -> str:
        """Run ``/name args``; what it printed."""
        if replies:
            self.server.script(*replies)
        return self.slash(line)


# ------------------------------------------------------------------------ what was received


def sent(request: Any) -> str:
    """Everything a recorded request carried, as text (JSON strings decoded)."""
    return "\n".join(_strings(request.json))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def system_of(request: Any) -> str:
    """The system prompt of a recorded OpenAI or Anthropic request, with the volatile
    sections that follow the history (session_harness.system_of)."""
    from session_harness import system_of as read

    return read(request)


def messages_of(request: Any) -> list[tuple[str, str]]:
    """(role, text) of a recorded request's conversation messages (no system prompt)."""
    out = []
    for message in request.json["messages"]:
        if message["role"] == "system":
            continue
        content = message.get("content") or ""
        text = content if isinstance(content, str) else "\n".join(_strings(content))
        out.append((message["role"], text))
    return out


def conversation_text(request: Any) -> str:
    return "\n".join(text for _, text in messages_of(request))


def run_cli(*args: str, cwd: Path, env: dict[str, str] | None = None,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real ``chatcli`` with ``args``, in ``cwd`` (the test's environment is isolated)."""
    return subprocess.run([CHATCLI, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, input=stdin, env={**os.environ, **(env or {})})


def pull_arguments(text: str) -> dict[str, Any]:
    """The JSON object after "call context_pull with" in ``text``."""
    start = text.index("call context_pull with ") + len("call context_pull with ")
    return json.JSONDecoder().raw_decode(text[start:])[0]
