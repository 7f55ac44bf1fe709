"""MCP tools through the real command line: ``chatcli -p`` with real servers from the package
index (mcp-server-time, mcp-server-git on a temporary repository) and the demo server over
streamable HTTP and SSE; the model is played by the OpenAI and Anthropic wire servers, calling
the tools natively and through the text protocol; results reach the model."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from chatcli_testing import AnthropicServer, OpenAIServer, Reply, ToolCall
from mcp_support import (
    GIT_SERVER,
    TIME_SERVER,
    chatcli,
    environment,
    servers_toml,
    system_text,
    tool_names,
    tool_results,
    write_config,
)


def _provider_config(server: object, provider: str, text_protocol: bool = False) -> str:
    lines = [f'provider = "{provider}"', 'model = "m"', f"[providers.{provider}]",
             f'base_url = "{server.url}"']  # type: ignore[attr-defined]
    if text_protocol:
        lines.append('tool_calls = "text"')
    return "\n".join(lines) + "\n"


@pytest.fixture(params=["openai", "anthropic"])
def model(request: pytest.FixtureRequest) -> object:
    server = OpenAIServer() if request.param == "openai" else AnthropicServer()
    with server:
        server.provider = request.param  # type: ignore[attr-defined]
        yield server


def test_a_real_server_from_the_package_index_is_called_natively(
        model: object, home: Path, workspace: Path) -> None:
    write_config(home, _provider_config(model, model.provider)  # type: ignore[attr-defined]
                 + servers_toml({"time": {"command": TIME_SERVER}}))
    model.script(  # type: ignore[attr-defined]
        Reply(tool_calls=[ToolCall("context_pull", {"kind": "mcp_tools",
                                                     "name": "mcp__time__get_current_time"})]),
        Reply(tool_calls=[ToolCall("mcp__time__get_current_time", {"timezone": "Etc/UTC"})]),
        Reply(text="It is late."))
    done = chatcli(workspace, environment(home), "-p", "what time is it?",
                   "--allow", "mcp__time")
    assert done.returncode == 0, done.stderr
    assert "It is late." in done.stdout
    first, second, third = model.requests  # type: ignore[attr-defined]
    # chat: the tools are listed by name, their definitions are not sent
    assert not [n for n in tool_names(first) if n.startswith("mcp__")]
    assert "context_pull" in tool_names(first)
    assert "- time (2): mcp__time__convert_time, mcp__time__get_current_time" in system_text(
        first)
    # the pull brought the schema back and made the tool a real one
    assert '"timezone"' in tool_results(second)[-1]
    assert "mcp__time__get_current_time" in tool_names(second)
    result = json.loads(tool_results(third)[-1])
    assert result["timezone"] == "Etc/UTC" and result["datetime"]


def test_mcp_server_git_on_a_temporary_repository(home: Path, workspace: Path,
                                                  tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@e", "commit",
                                  "--allow-empty", "-qm", "the very first commit"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)
    with OpenAIServer() as model:
        write_config(home, _provider_config(model, "openai") + servers_toml(
            {"git": {"command": GIT_SERVER, "args": ["--repository", str(repo)]}}))
        model.script(
            Reply(tool_calls=[ToolCall("mcp__git__git_log", {"repo_path": str(repo)})]),
            Reply(text="One commit."))
        done = chatcli(workspace, environment(home), "-p", "what happened?", "--allow",
                       "mcp__git__git_log")
        assert done.returncode == 0, done.stderr
        listed = system_text(model.requests[0])
        assert "- git (" in listed and "mcp__git__git_status" in listed
        assert "the very first commit" in tool_results(model.requests[1])[-1]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_text_protocol_calls_an_http_server(provider: str, home: Path, workspace: Path,
                                                http_server: str) -> None:
    server = OpenAIServer() if provider == "openai" else AnthropicServer()
    with server as model:
        write_config(home, _provider_config(model, provider, text_protocol=True)
                     + servers_toml({"demo": {"url": http_server, "allow": ["add"]}}))
        model.script(
            Reply(text='Adding.\n<tool_call name="mcp__demo__add" args=\'{"a": 2, "b": 40}\'/>'),
            Reply(text="The sum is 42."))
        done = chatcli(workspace, environment(home), "-p", "add 2 and 40")
        assert done.returncode == 0, done.stderr
        assert "The sum is 42." in done.stdout
        first, second = model.requests
        assert not tool_names(first)  # the text protocol: tools are described in the prompt
        catalog = system_text(first)
        assert "- context_pull:" in catalog
        assert "- mcp__demo__add:" not in catalog  # deferred: listed by name only
        assert "mcp__demo__add" in catalog
        assert "42" in json.dumps(second.json["messages"][-1])


def test_legacy_sse_transport(home: Path, workspace: Path, sse_server: str) -> None:
    with OpenAIServer() as model:
        write_config(home, _provider_config(model, "openai") + servers_toml(
            {"demo": {"url": sse_server, "transport": "sse"}}))
        model.script(Reply(tool_calls=[ToolCall("mcp__demo__echo", {"text": "over sse"})]),
                     Reply(text="ok"))
        done = chatcli(workspace, environment(home), "-p", "echo", "--allow", "mcp__demo")
        assert done.returncode == 0, done.stderr
        assert "echo: over sse" in tool_results(model.requests[1])[-1]


def test_without_approval_an_mcp_tool_is_refused_with_the_fix(home: Path,
                                                               workspace: Path) -> None:
    with OpenAIServer() as model:
        write_config(home, _provider_config(model, "openai") + servers_toml(
            {"time": {"command": TIME_SERVER}}))
        model.script(
            Reply(tool_calls=[ToolCall("mcp__time__get_current_time", {"timezone": "UTC"})]),
            Reply(text="I could not."))
        done = chatcli(workspace, environment(home), "-p", "time?")
        assert done.returncode == 0, done.stderr
        refusal = tool_results(model.requests[1])[-1]
        assert "denied" in refusal and "--allow 'mcp__time__get_current_time'" in refusal
