"""Tests of the tool, run the way chatcli runs it: through the conversation engine.

``ScriptedProvider`` (from chatcli's pytest plugin package ``chatcli_testing``) plays the model:
each ``Reply`` is one answer, so a test scripts "call the tool", then "answer in words", and
checks what the engine did with the call. The last test reads the tool's errors in Brazilian
Portuguese (``CHATCLI_LANG=pt_BR``), from the package's catalog.
"""

from __future__ import annotations

import os

import pytest
from chatcli import (
    Conversation,
    Engine,
    Message,
    PluginHost,
    Role,
    Settings,
    ToolFinished,
    TurnFinished,
)
from chatcli_testing import Reply, ScriptedProvider, ToolCall

from {{package}} import plugin
from {{package}}.tool import TOOL_NAME


def run_turn(workspace, arguments: dict) -> tuple[ToolFinished, TurnFinished, Conversation]:
    """One turn in which the scripted model calls the tool with ``arguments``, then answers."""
    host = PluginHost()
    assert host.register(plugin, "{{name}}")
    model = ScriptedProvider([
        Reply(tool_calls=[ToolCall(name=TOOL_NAME, arguments=arguments)]),
        Reply(text="Done."),
    ])
    engine = Engine(host, Settings(), model, "scripted", "test-model", workspace=workspace)
    conversation = Conversation()
    events = list(engine.run(conversation, Message.user("How long is that file?")))
    (finished_tool,) = [e for e in events if isinstance(e, ToolFinished)]
    assert isinstance(events[-1], TurnFinished)
    return finished_tool, events[-1], conversation


def test_the_plugin_registers_the_tool_with_a_schema():
    host = PluginHost()
    assert host.register(plugin, "{{name}}")
    spec = host.tools()[TOOL_NAME].spec()
    assert spec.risk == "read"
    assert spec.parameters["properties"]["path"]["type"] == "string"
    assert spec.parameters["required"] == ["path"]


def test_the_model_counts_a_file_through_the_engine(chatcli_home, tmp_path):
    text = "buy milk\nwrite the {{name}} plugin\n"
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text(text)

    tool, turn, conversation = run_turn(tmp_path, {"path": "notes/todo.txt"})

    assert not tool.result.is_error
    assert tool.result.content == f"notes/todo.txt: 2 lines, 6 words, {len(text)} characters"
    assert turn.text == "Done."
    # the result went back to the model as a tool message in the conversation log
    tool_messages = [m for m in conversation.messages() if m.role == Role.TOOL]
    assert tool_messages[0].tool_results[0].content == tool.result.content


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/hostname", "notes/../../outside.txt"])
def test_paths_outside_the_workspace_are_refused(chatcli_home, tmp_path, path):
    workspace = tmp_path / "workspace"
    (workspace / "notes").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("secret words here")

    tool, turn, _ = run_turn(workspace, {"path": path})

    assert tool.result.is_error
    assert "outside the workspace" in tool.result.content
    assert "secret" not in tool.result.content
    assert turn.text == "Done."  # the conversation goes on


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_link_pointing_out_of_the_workspace_is_refused(chatcli_home, tmp_path):
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (tmp_path / "outside.txt").write_text("secret words here")
    (workspace / "link.txt").symlink_to(tmp_path / "outside.txt")

    tool, _, _ = run_turn(workspace, {"path": "link.txt"})

    assert tool.result.is_error
    assert "outside the workspace" in tool.result.content


def test_missing_files_and_bad_arguments_become_error_results(chatcli_home, tmp_path):
    missing, _, _ = run_turn(tmp_path, {"path": "nope.txt"})
    assert missing.result.is_error
    assert "no file 'nope.txt'" in missing.result.content

    invalid, _, _ = run_turn(tmp_path, {"file": "nope.txt"})
    assert invalid.result.is_error
    assert "path" in invalid.result.content


# ------------------------------------------------------------------------------ translations
# The package's catalog, locale/pt_BR/LC_MESSAGES/messages.po, is compiled into messages.mo
# by hatch-babel when the package is built or installed (`pip install -e` too).


def test_the_errors_speak_brazilian_portuguese(chatcli_home, chatcli_language, tmp_path):
    chatcli_language("pt_BR")  # CHATCLI_LANG=pt_BR for the rest of the test
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("one two three\n")

    refused, _, _ = run_turn(workspace, {"path": "../outside.txt"})
    assert refused.result.is_error
    assert "'../outside.txt' está fora do espaço de trabalho" in refused.result.content
    missing, _, _ = run_turn(workspace, {"path": "nope.txt"})
    assert "nenhum arquivo 'nope.txt' no espaço de trabalho" in missing.result.content
    # what the model parses stays as written, in any language
    counted, _, _ = run_turn(workspace, {"path": "notes.txt"})
    assert counted.result.content == "notes.txt: 1 lines, 3 words, 14 characters"

    chatcli_language("en")
    missing, _, _ = run_turn(workspace, {"path": "nope.txt"})
    assert "no file 'nope.txt' in the workspace" in missing.result.content
