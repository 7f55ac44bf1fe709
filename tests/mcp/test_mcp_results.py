"""MCP results as the text a tool result carries, and tool names providers accept."""

from __future__ import annotations

import base64
from pathlib import Path

import mcp.types as types
import pytest
from chatcli import Tool
from chatcli_mcp.results import ToolFailed, render_result, tool_name

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()


def test_text_and_structured_content(tmp_path: Path) -> None:
    same = types.CallToolResult(content=[types.TextContent(text='{"a": 1}')],
                                structured_content={"a": 1})
    assert render_result(same, tmp_path) == '{"a": 1}'
    wrapped = types.CallToolResult(content=[types.TextContent(text="3")],
                                   structured_content={"result": 3})
    assert render_result(wrapped, tmp_path) == "3"
    only = types.CallToolResult(content=[], structured_content={"rows": [1, 2]})
    assert '"rows"' in render_result(only, tmp_path)
    both = types.CallToolResult(content=[types.TextContent(text="done")],
                                structured_content={"count": 2})
    assert render_result(both, tmp_path).startswith("done\n\nstructured content:")


def test_images_are_saved_and_named(tmp_path: Path) -> None:
    result = types.CallToolResult(content=[types.ImageContent(data=PNG, mime_type="image/png")])
    text = render_result(result, tmp_path)
    saved = next(tmp_path.iterdir())
    assert saved.suffix == ".png" and saved.read_bytes().startswith(b"\x89PNG")
    assert f"image image/png, 12 bytes saved as {saved}" in text


def test_resources_in_results(tmp_path: Path) -> None:
    result = types.CallToolResult(content=[
        types.EmbeddedResource(resource=types.TextResourceContents(uri="file:///a.txt",
                                                                    text="inside")),
        types.ResourceLink(uri="file:///b.txt", name="b.txt", mime_type="text/plain")])
    text = render_result(result, tmp_path)
    assert '<resource uri="file:///a.txt">\ninside\n</resource>' in text
    assert "[resource link: file:///b.txt; name: b.txt; mime type: text/plain]" in text


def test_an_error_result_raises_one_line(tmp_path: Path) -> None:
    result = types.CallToolResult(content=[types.TextContent(text="bad\ninput")], is_error=True)
    with pytest.raises(ToolFailed) as caught:
        render_result(result, tmp_path)
    assert str(caught.value) == "bad ⏎ input"
    assert render_result(types.CallToolResult(content=[]), tmp_path) == \
        "(the tool returned nothing)"


def test_tool_names_fit_what_providers_accept() -> None:
    assert tool_name("git", "git_status") == "mcp__git__git_status"
    assert tool_name("fs", "read.file/v2") == "mcp__fs__read_file_v2"
    long = tool_name("server", "x" * 80)
    assert len(long) == 64 and long.startswith("mcp__server__xxx")
    assert tool_name("server", "x" * 80) != tool_name("server", "x" * 81)
    Tool(name=long, description="d", run=lambda a, c: "", parameters={"type": "object"})
