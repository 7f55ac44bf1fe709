"""What the chat's trust question shows of a project's files (chatcli_repl.trust): every program
and address a JSON or TOML control file names, bounded and printable whatever the file holds
(Hypothesis over any JSON, any bytes, any file name)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from chatcli_repl.trust import _skill_folder
from chatcli_workspace import control_file_programs as programs
from chatcli_workspace._programs import MAX_LINE, MAX_PROGRAMS
from hypothesis import given, settings
from hypothesis import strategies as st

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["command", "args", "url", "hooks", "mcpServers", "x"]) | st.text(),
        inner, max_size=5),
    max_leaves=40)

#: (file name, text, the lines shown)
CASES = [
    (".mcp.json", json.dumps({"mcpServers": {"a": {"command": "npx", "args": ["-y", "x y"]},
                                             "b": {"type": "http", "url": "https://h/mcp"}}}),
     ["runs: npx -y 'x y' (mcpServers.a)", "connects to: https://h/mcp (mcpServers.b)"]),
    (".claude/settings.json", json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "./check.sh"}]}]}}),
     ["runs: ./check.sh (hooks.PreToolUse)"]),
    (".chatcli/config.toml", '[[hooks.Stop]]\ncommand = "say done"\n[mcp.servers.t]\n'
                             'command = "mcp-server-time"\n',
     ["runs: say done (hooks.Stop)", "runs: mcp-server-time (mcp.servers.t)"]),
    (".chatcli/config.toml", 'system = "x"\n', []),
    (".mcp.json", "{not json", []),
    (".mcp.json", "[" * 100_000 + "]" * 100_000, []),
    (".chatcli/config.toml", "x = " + "[" * 100_000 + "]" * 100_000, []),
    (".claude/skills/x/SKILL.md", "---\ncommand: rm -rf ~\n---\n", []),
    (".mcp.json", json.dumps({"mcpServers": {"a": {"command": "echo \x1b[2Jgone"}}}),
     ["runs: echo ?[2Jgone (mcpServers.a)"]),
]


@pytest.mark.parametrize(("name", "text", "shown"), CASES)
def test_programs_named_by_a_file(tmp_path: Path, name: str, text: str,
                                  shown: list[str]) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    assert programs(path) == shown


def test_a_long_command_is_cut_before_the_label_it_keeps(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    long = "/some/very/long/folder/" * 20
    path.write_text(json.dumps({"mcpServers": {
        "evil": {"command": "sh", "args": ["-c", f"echo x >> {long}; exec {long}python"]},
        "far": {"type": "http", "url": "https://" + "h" * 300 + "/mcp"}}}))
    runs, connects = programs(path)
    assert runs.startswith("runs: sh -c 'echo x >> /some/very/long/folder/")
    assert runs.endswith("… (mcpServers.evil)") and len(runs) == MAX_LINE
    assert connects.startswith("connects to: https://hhh")
    assert connects.endswith("… (mcpServers.far)") and len(connects) == MAX_LINE


def test_many_programs_are_counted_not_listed(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {f"s{i}": {"command": "x"} for i in range(20)}}))
    found = programs(path)
    assert len(found) == MAX_PROGRAMS + 1 and found[-1] == f"… and {20 - MAX_PROGRAMS} more"


def _bounded(lines: list[str]) -> None:
    assert len(lines) <= MAX_PROGRAMS + 1
    for line in lines:
        assert len(line) <= MAX_LINE and line.isprintable(), line


@settings(max_examples=150, deadline=None)
@given(data=JSON)
def test_any_json_gives_bounded_printable_lines(data: object) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ".mcp.json"
        path.write_text(json.dumps(data))
        _bounded(programs(path))


@settings(max_examples=150, deadline=None)
@given(raw=st.binary(max_size=300), suffix=st.sampled_from([".json", ".toml"]))
def test_any_bytes_never_break_the_question(raw: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"control{suffix}"
        path.write_bytes(raw)
        _bounded(programs(path))


@given(parts=st.lists(st.text(min_size=1).filter(lambda p: "/" not in p), max_size=6))
def test_a_skill_folder_is_found_only_under_a_skills_folder(parts: list[str]) -> None:
    name = "/".join(parts)
    folder = _skill_folder(name)
    if folder is not None:
        assert name.startswith(folder) and "/skills/" in f"/{folder}"
    assert _skill_folder(f".claude/skills/{parts[0] if parts else 'x'}/SKILL.md") is not None
