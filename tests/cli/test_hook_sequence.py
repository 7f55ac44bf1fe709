"""A whole turn with a tool call, through the real ``chatcli`` process and the real OpenAI SDK
against the local wire server, observed by a plugin that implements every hook: the complete
sequence of hook calls and their arguments. Removing any of the kernel's call sites changes it.
"""

from __future__ import annotations

import json

import pytest
from chatcli_testing import Reply, ToolCall
from cli_support import CHATCLI, openai_env, plugin_distribution, run_process

RECORDER = '''
import json, os
from chatcli import PromptSection, Tool, hookimpl

def record(hook, **details):
    with open(os.environ["RECORD_FILE"], "a") as out:
        out.write(json.dumps([hook, details]) + "\\n")

def lookup(arguments, context):
    return "blue" if arguments.get("key") == "colour" else "unknown"

def message_summary(message):
    return {"role": str(message.role), "text": message.text,
            "calls": [[c.name, c.arguments] for c in message.tool_calls],
            "results": [r.content for r in message.tool_results]}

@hookimpl
def configure(host, settings, workspace):
    record("configure", host=type(host).__name__, provider=settings.provider,
           workspace=str(workspace) == os.getcwd())

@hookimpl
def register_commands(cli):
    record("register_commands", cli=cli.name)

@hookimpl
def register_providers(register):
    record("register_providers")

@hookimpl
def register_tools(register, settings, workspace):
    record("register_tools", workspace=str(workspace) == os.getcwd())
    register(Tool(name="lookup", description="Look a fact up.", run=lookup,
                  parameters={"type": "object", "properties": {"key": {"type": "string"}}}))

@hookimpl
def session_start(session, conversation, settings):
    record("session_start", provider=session.provider_name, model=session.model,
           messages=len(conversation.messages()))

@hookimpl
def session_end(session, conversation):
    record("session_end", messages=len(conversation.messages()))

@hookimpl
def checkpoint_created(conversation, checkpoint):
    record("checkpoint_created", label=checkpoint.label)

@hookimpl
def message_appended(conversation, message):
    record("message_appended", **message_summary(message))

@hookimpl
def head_moved(conversation, head, reason):
    record("head_moved", reason=reason)

@hookimpl
def user_prompt_submitted(conversation, message):
    record("user_prompt_submitted", text=message.text)

@hookimpl
def prompt_sections(settings, workspace, messages, provider, model):
    record("prompt_sections", messages=len(messages), provider=provider, model=model)
    return [PromptSection(name="recorder", text="Facts come from the lookup tool.")]

@hookimpl
def before_request(request, conversation):
    record("before_request", model=request.model, tools=[t.name for t in request.tools],
           messages=len(request.messages),
           sections=[s.name for s in request.ordered_system()])

@hookimpl
def after_response(message, error, conversation):
    record("after_response", text=message.text if message else None, error=error)

@hookimpl
def authorize_tool_call(call, tool, context):
    record("authorize_tool_call", call=call.name, arguments=call.arguments, risk=str(tool.risk),
           interactive=context.interactive)

@hookimpl
def tool_call_decided(call, tool, allowed, approval, conversation):
    record("tool_call_decided", call=call.name, allowed=allowed, asked=approval is not None,
           conversation=conversation is not None)

@hookimpl
def after_tool_call(call, result, conversation):
    record("after_tool_call", call=call.name, result=result.content, is_error=result.is_error)

@hookimpl
def open_conversation(settings, resume, continue_last):
    record("open_conversation", resume=resume)

@hookimpl
def register_slash_commands(register):
    record("register_slash_commands")

@hookimpl
def register_skill_sources(register):
    record("register_skill_sources")

@hookimpl
def cmdline_main(host, settings, options, prompt):
    if prompt is None:  # the chat; -p answers through chatcli-print
        record("cmdline_main")
'''

QUESTION = "What colour is the sky in the fact store?"


def user(text: str) -> dict:
    return {"role": "user", "text": text, "calls": [], "results": []}


@pytest.fixture
def recorded(home, openai_server):
    """Run one turn; returns the recorded hook calls, the JSON answer and the requests."""
    log = home / "hooks.jsonl"
    env = {**openai_env(openai_server), **plugin_distribution(home, "recorder", RECORDER),
           "CHATCLI_PLUGINS": "openai,recorder,print", "RECORD_FILE": str(log)}
    openai_server.script(Reply(tool_calls=[ToolCall(name="lookup", arguments={"key": "colour"})]),
                         Reply(text="The sky is blue."))
    done = run_process([CHATCLI, "-p", QUESTION, "--provider", "openai", "--model", "m",
                        "--json"], home, **env)
    assert done.returncode == 0, done.stderr
    calls = [tuple(json.loads(line)) for line in log.read_text().splitlines()]
    return calls, json.loads(done.stdout), openai_server.requests


def test_a_turn_with_a_tool_call_fires_every_hook_in_order(recorded) -> None:
    calls, answer, _ = recorded
    sections = ["chatcli", "recorder", "date"]
    tool_call = {"role": "assistant", "text": "", "calls": [["lookup", {"key": "colour"}]],
                 "results": []}
    assert calls == [
        ("register_commands", {"cli": "cli"}),
        ("configure", {"host": "PluginHost", "provider": "openai", "workspace": True}),
        ("register_providers", {}),
        ("session_start", {"provider": "openai", "model": "m", "messages": 0}),
        ("checkpoint_created", {"label": QUESTION}),
        ("message_appended", user(QUESTION)),
        ("user_prompt_submitted", {"text": QUESTION}),
        ("register_tools", {"workspace": True}),
        ("prompt_sections", {"messages": 1, "provider": "openai", "model": "m"}),
        ("before_request", {"model": "m", "tools": ["lookup"], "messages": 1,
                            "sections": sections}),
        ("message_appended", tool_call),
        ("after_response", {"text": "", "error": None}),
        ("authorize_tool_call", {"call": "lookup", "arguments": {"key": "colour"},
                                 "risk": "read", "interactive": False}),
        ("tool_call_decided", {"call": "lookup", "allowed": True, "asked": False,
                               "conversation": True}),
        ("after_tool_call", {"call": "lookup", "result": "blue", "is_error": False}),
        ("message_appended", {"role": "tool", "text": "", "calls": [], "results": ["blue"]}),
        ("checkpoint_created", {"label": f"{QUESTION} (step 2)"}),
        ("prompt_sections", {"messages": 3, "provider": "openai", "model": "m"}),
        ("before_request", {"model": "m", "tools": ["lookup"], "messages": 3,
                            "sections": sections}),
        ("message_appended", {"role": "assistant", "text": "The sky is blue.", "calls": [],
                              "results": []}),
        ("after_response", {"text": "The sky is blue.", "error": None}),
        ("session_end", {"messages": 4}),
    ]
    assert answer["text"] == "The sky is blue." and answer["stop_reason"] == "end_turn"


def test_what_the_hooks_returned_reached_the_wire(recorded) -> None:
    _, _, requests = recorded
    first, second = (request.json for request in requests)
    assert "Facts come from the lookup tool." in first["messages"][0]["content"]
    assert [tool["function"]["name"] for tool in first["tools"]] == ["lookup"]
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": second["messages"][-2][
        "tool_calls"][0]["id"], "content": "blue"}
