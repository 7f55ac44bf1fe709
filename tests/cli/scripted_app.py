"""Test helpers: a ``write_note`` tool plugin, and ``chatcli`` with a scripted provider.

Run as a script (``python scripted_app.py ARGS...``) this is the real command line with only the
``chatcli_testing`` scripted provider and the tool registered; the provider's script comes from
the ``CLI_TEST_SCRIPT`` variable: a JSON list of ``{"reply": {Reply fields}}``,
``{"fault": {Fault fields}}`` or ``{"tool": NAME, "args": {...}}``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from chatcli import Risk, Tool, ToolContext, hookimpl
from pydantic import BaseModel

__all__ = ["NoteArgs", "ToolPlugin", "script_from_env"]


class NoteArgs(BaseModel):
    """Arguments of the ``write_note`` tool."""

    path: str
    text: str


def _write_note(args: NoteArgs, context: ToolContext) -> str:
    target = Path(context.workspace) / args.path
    target.write_text(args.text)
    return f"wrote {len(args.text)} chars to {args.path}"


class ToolPlugin:
    """Registers ``write_note`` (risk class write): it writes a file in the workspace."""

    @hookimpl
    def register_tools(self, register) -> None:
        register(Tool(name="write_note", description="Write a note file.", args_model=NoteArgs,
                      run=_write_note, risk=Risk.WRITE))


def script_from_env() -> list:
    """The scripted replies described by ``CLI_TEST_SCRIPT``."""
    from chatcli_testing import Fault, Reply, ToolCall

    items: list = []
    for item in json.loads(os.environ.get("CLI_TEST_SCRIPT", "[]")):
        if "reply" in item:
            items.append(Reply(**item["reply"]))
        elif "fault" in item:
            items.append(Fault(**item["fault"]))
        elif "tool" in item:
            items.append(Reply(tool_calls=[ToolCall(name=item["tool"], arguments=item["args"])]))
    return items


def main() -> int:
    """The real command line with the scripted provider and the tool (and chatcli-agent's
    ``--allow``, not its policy; chatcli-print answers ``-p``)."""
    from chatcli import PluginHost
    from chatcli_agent.permissions import cli_options
    from chatcli_cli.root import run
    from chatcli_print import plugin as print_plugin
    from chatcli_testing import ScriptedProvider, scripted_plugin

    host = PluginHost()
    host.register(scripted_plugin(ScriptedProvider(script_from_env())), "scripted")
    host.register(ToolPlugin(), "tools")
    host.register(cli_options, "agent-options")
    host.register(print_plugin, "print")
    return run(sys.argv[1:], host=host)


if __name__ == "__main__":
    sys.exit(main())
