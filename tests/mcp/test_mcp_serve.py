"""``chatcli mcp serve`` exercised by the SDK's own client over stdio: chatcli's coder tools,
read-only unless writes are allowed, every call under chatcli's permission policy."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp_support import CHATCLI, environment

PLUGINS = "openai,coder,permissions,mcp,context"


def _serve(workspace: Path, env: dict[str, str], *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=str(CHATCLI), args=["mcp", "serve", *args], env=env,
                                 cwd=str(workspace))


async def _session(params: StdioServerParameters, calls: list[tuple[str, dict]]
                   ) -> tuple[list[str], list[tuple[str, bool]]]:
    async with Client(params, cache=None) as client:
        listed = await client.list_tools()
        results = []
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            text = "".join(getattr(block, "text", "") for block in result.content)
            results.append((text, result.is_error))
        return [tool.name for tool in listed.tools], results


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_sdk_client_reads_through_chatcli(home: Path, workspace: Path, mode: str) -> None:
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    outside = workspace.parent / "outside.txt"
    outside.write_text("secret outside\n")
    env = environment(home, PLUGINS)
    params = _serve(workspace, env)

    async def main() -> tuple[list[str], list[tuple[str, bool]], str]:
        async with Client(params, cache=None, mode=mode) as client:
            listed = await client.list_tools()
            schema = next(t for t in listed.tools if t.name == "read").input_schema
            calls = [("read", {"path": "notes.txt"}), ("read", {"path": str(outside)}),
                     ("search", {"pattern": "beta"}), ("write", {"path": "x", "content": "y"})]
            results = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                text = "".join(getattr(block, "text", "") for block in result.content)
                results.append((text, result.is_error))
            return [t.name for t in listed.tools], results, str(schema)

    names, results, schema = anyio.run(main)
    assert {"read", "search", "glob", "tree", "git"} <= set(names)
    assert not {"write", "edit", "exec", "apply_patch"} & set(names)  # read-only
    assert not [n for n in names if n.startswith("mcp") or n == "context_pull"]
    assert "'path'" in schema
    (read, read_error), (outside_text, outside_error), (found, _), (write, write_error) = results
    assert not read_error and "alpha" in read and "beta" in read
    assert outside_error and "denied" in outside_text and "secret outside" not in outside_text
    assert "notes.txt" in found
    assert write_error and "unknown tool 'write'" in write


def test_writes_are_offered_when_allowed_and_still_judged(home: Path, workspace: Path) -> None:
    env = environment(home, PLUGINS)
    names, results = anyio.run(_session, _serve(workspace, env, "--allow-writes"),
                               [("write", {"path": "new.txt", "content": "hello\n"}),
                                ("exec", {"command": "touch made-by-exec"})])
    assert {"write", "edit", "exec"} <= set(names)
    (write, write_error), (ran, ran_error) = results
    # nobody can be asked over MCP: what the policy would ask about is refused, with the fix
    assert write_error and "denied" in write and "--allow" in write
    assert ran_error and "denied" in ran
    assert not (workspace / "new.txt").exists() and not (workspace / "made-by-exec").exists()
    # a permission rule in the user's config lets a write through
    (home / "config" / "config.toml").write_text('[permissions]\nallow = ["edit(new.txt)"]\n')
    _, results = anyio.run(_session, _serve(workspace, env, "--allow-writes"),
                           [("write", {"path": "new.txt", "content": "hello\n"})])
    assert results[0][1] is False, results
    assert (workspace / "new.txt").read_text() == "hello\n"
