"""Helpers of the chatcli-mcp tests (a module of its own: tests import it by its bare name):
the real command line, the config files, the test servers, readers of what a provider got."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from session_harness import HarnessChat

CHATCLI = Path(sys.executable).parent / "chatcli"
PYTHON = sys.executable
HERE = Path(__file__).resolve().parent
DEMO = HERE / "demo_server.py"
HANG = HERE / "hang_server.py"
TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")
GIT_SERVER = str(Path(sys.executable).parent / "mcp-server-git")
PLUGINS = "openai,anthropic,context,mcp,permissions,admin"  # admin: `chatcli trust`


def toml_value(value: Any) -> str:
    if isinstance(value, dict):
        pairs = ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + pairs + " }"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


def servers_toml(servers: dict[str, dict[str, Any]], **options: Any) -> str:
    """``[mcp]`` and ``[mcp.servers.NAME]`` tables as TOML text."""
    lines = ["[mcp]", *(f"{k} = {toml_value(v)}" for k, v in options.items())]
    for name, table in servers.items():
        lines.append(f"[mcp.servers.{name}]")
        lines.extend(f"{k} = {toml_value(v)}" for k, v in table.items())
    return "\n".join(lines) + "\n"


def demo(*args: str, **extra: Any) -> dict[str, Any]:
    """The demo server's table (stdio)."""
    return {"command": PYTHON, "args": [str(DEMO), *args], **extra}


def write_config(home: Path, text: str) -> Path:
    path = home / "config" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text)
    return path


def environment(home: Path, plugins: str = PLUGINS, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_")) and not k.endswith("_KEY")}
    for folder in ("config", "data", "cache"):
        (home / folder).mkdir(parents=True, exist_ok=True)
    env["CHATCLI_LANG"] = "en"  # another language: environment(home, CHATCLI_LANG="pt_BR")
    env.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
               CHATCLI_CACHE_DIR=str(home / "cache"), HOME=str(home),
               CHATCLI_PLUGINS=f"{plugins},print",  # print: -p
               OPENAI_API_KEY="sk-test", ANTHROPIC_API_KEY="sk-ant-test", **extra)
    return env


def chatcli(cwd: Path, env: dict[str, str], *args: str, timeout: float = 120,
            stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen[Any], limit: float = 30.0) -> None:
    """Wait until a server accepts connections (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the test server exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError("the test server did not start listening")


def tool_names(request: Any) -> list[str]:
    """The tool names an OpenAI or Anthropic request carried."""
    body = request.json
    names = []
    for tool in body.get("tools") or []:
        names.append(tool["function"]["name"] if "function" in tool else tool["name"])
    return names


def system_text(request: Any) -> str:
    """The system prompt an OpenAI or Anthropic request carried."""
    body = request.json
    if "system" in body:
        system = body["system"]
        return system if isinstance(system, str) else "\n\n".join(b["text"] for b in system)
    return "\n\n".join(m["content"] if isinstance(m["content"], str) else
                       "".join(p.get("text", "") for p in m["content"])
                       for m in body["messages"] if m["role"] in ("system", "developer"))


def tool_results(request: Any) -> list[str]:
    """The tool results a request sent back (OpenAI ``tool`` messages, Anthropic blocks)."""
    body = request.json
    out: list[str] = []
    for message in body["messages"]:
        if message["role"] == "tool":
            out.append(message["content"] if isinstance(message["content"], str)
                       else json.dumps(message["content"]))
        content = message.get("content")
        if isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    out.append(inner if isinstance(inner, str) else
                               "".join(b.get("text", "") for b in inner or []))
    return out


def last_user_text(request: Any) -> str:
    body = request.json
    for message in reversed(body["messages"]):
        if message["role"] == "user":
            content = message["content"]
            return content if isinstance(content, str) else "".join(
                b.get("text", "") for b in content if isinstance(b, dict))
    return ""


class Chat(HarnessChat):
    """A real Session answering through an OpenAI or Anthropic wire server, with the context
    plugin (``context_pull``), a fresh MCP plugin and, optionally, the permission policy."""

    def __init__(self, server: Any, workspace: Path, mcp: dict[str, Any], *,
                 provider: str = "openai", permissions: bool = False,
                 allow: frozenset[str] = frozenset(), interactive: bool = False,
                 **settings: Any) -> None:
        from chatcli import SessionOptions
        from chatcli_context.plugin import ContextPlugin
        from chatcli_mcp.plugin import McpPlugin

        self.plugin = McpPlugin()
        plugins: list[tuple[str, Any]] = [("context", ContextPlugin()), ("mcp", self.plugin)]
        if permissions:
            from chatcli_agent.permissions.plugin import PermissionsPlugin

            plugins.append(("permissions", PermissionsPlugin()))
        super().__init__(server, workspace, plugins=plugins, provider=provider,
                         options=SessionOptions(allow=allow), interactive=interactive, mcp=mcp,
                         **settings)

    @property
    def manager(self) -> Any:
        return self.plugin.manager

    def turn(self, text: str, cancel: Any = None, *, check: bool = False) -> Any:
        """One user turn; its end (an error is the test's to look at)."""
        return super().turn(text, check=check, cancel=cancel)

    def close(self) -> None:
        super().close()
        self.manager.shutdown()


def until(condition: Any, limit: float = 30.0) -> bool:
    """Wait for ``condition()`` to hold (a readiness wait, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def processes(tag: str) -> list[str]:
    """The command lines of running processes that mention ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if tag in line and "pytest" not in line:
            found.append(line)
    return found
