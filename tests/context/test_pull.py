"""``context_pull``: every kind, arguments read however the model writes them, at most three
pulls per user turn, other plugins' kinds, and the same through the text tool-call protocol.
The tool is offered only while something is deferred (pull on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from chatcli import Compaction, Message, Role, TextPart, hookimpl
from chatcli_plugin_records import PullKind
from chatcli_testing import Reply, ToolCall
from context_support import openai_system, tool_names, write

CALL = 'context_pull {"kind":"context","name":"docs"}'


def _big_docs(session: Any, workspace: Path, files: int = 3, size: int = 3000) -> None:
    for index in range(files):
        write(workspace, f"docs/part{index}.md", f"# Part {index}\n" + f"{index}" * size + "\n")
    session.command("create docs docs")
    session.command("attach docs")


def _pulls(server: Any, *calls: dict[str, Any], answer: str = "Done.") -> None:
    server.script(Reply(tool_calls=[ToolCall("context_pull", c) for c in calls]),
                  Reply(text=answer))


def test_an_attached_context_over_the_budget_becomes_a_digest_citing_exact_calls(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 1000})
    _big_docs(session, workspace)
    _pulls(openai_server, {"kind": "context", "name": "docs", "file": "docs/part1.md"})
    session.turn("what is in part 1?")
    first = openai_server.requests[0]
    system = openai_system(first)
    assert "context_pull" in tool_names(first)
    assert ('Attached context "docs" (3 files, 9,030 characters) is not shown whole here'
            in system)
    assert ('- docs/part1.md (3,010 characters) — # Part 1: context_pull {"kind":"context",'
            '"name":"docs","file":"docs/part1.md"}') in system
    assert f"All of it, page by page: {CALL}" in system
    assert "1" * 3000 not in system
    (result,) = session.results()
    assert not result.is_error and result.content == "# Part 1\n" + "1" * 3000 + "\n"


def test_the_whole_context_comes_in_pages_that_name_the_next_call(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 1000}, tool_output_max=2400)
    _big_docs(session, workspace, files=2, size=1500)
    _pulls(openai_server, {"kind": "context", "name": "docs"},
           {"kind": "context", "name": "docs", "offset": 2000})
    session.turn("read it all")
    first, second = session.results()
    assert first.content.startswith('Attached context "docs" (2 files, 3,020 characters):')
    assert first.content.endswith(
        '[characters 0–2,000 of 3,146; the next page: context_pull {"kind":"context",'
        '"name":"docs","offset":2000}]')
    assert second.content.endswith("</file>") and "next page" not in second.content


def test_contexts_lists_the_attached_and_the_others(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 10})
    write(workspace, "other.md", "other\n")
    session.command("create spare other.md")
    _big_docs(session, workspace, files=2, size=10)
    _pulls(openai_server, {"kind": "contexts"}, {"kind": "contexts", "name": "docs"})
    session.turn("what contexts are there?")
    listing, files = (r.content for r in session.results())
    assert listing == ("Attached to this conversation:\n- docs: 2 files, 40 characters\n"
                       "Not attached (the user can attach them with /context attach NAME): "
                       "spare")
    assert files.startswith('Context "docs": 2 files, 40 characters.\n- docs/part0.md')
    assert '{"kind":"context","name":"docs","file":"docs/part1.md"}' in files


def test_only_attached_contexts_can_be_pulled(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 10})
    write(workspace, "private.md", "not for this conversation\n")
    session.command("create private private.md")
    _big_docs(session, workspace, files=1, size=50)
    _pulls(openai_server, {"kind": "context", "name": "private"},
           {"kind": "context", "name": "docs", "file": "nope.md"})
    session.turn("read private")
    refused, no_file = session.results()
    assert refused.is_error and "no context named 'private' is attached" in refused.content
    assert no_file.is_error and "context 'docs' has no file 'nope.md'" in no_file.content


def test_history_brings_back_what_a_compaction_archived(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat()
    session.turn("the secret word is pelican")
    assert "context_pull" not in tool_names(openai_server.requests[0])  # nothing deferred
    path = session.conversation.messages()
    summary = Message(role=Role.USER, parts=[TextPart(text="[summary] a word was said")])
    compaction = Compaction(first=path[0].id, last=path[1].id, replacement=[summary],
                            strategy="summarise", note="summarised 2 messages")
    session.conversation.compact(compaction)
    _pulls(openai_server, {"kind": "history"}, {"kind": "history", "id": compaction.id[:10]})
    session.turn("what was the word?")
    request = openai_server.requests[1]
    assert "context_pull" in tool_names(request)
    system = openai_system(request)
    assert (f"- {compaction.id} (summarised 2 messages): context_pull "
            f'{{"kind":"history","id":"{compaction.id}"}}') in system
    assert system.index("Today is") < system.index("Parts of this conversation were compacted")
    listing, archived = session.results()
    assert listing.content.startswith("Compactions of this conversation (oldest first):")
    assert archived.content == "[user] the secret word is pelican\n[assistant] ok"


def test_arguments_are_read_however_the_model_writes_them(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    asked: list[dict[str, Any]] = []

    class Skills:
        @hookimpl
        def register_pull_kinds(self, register: Any) -> None:
            def fetch(arguments: Any, context: Any) -> str:
                asked.append(dict(arguments))
                return f"the {arguments['name']} skill"

            register(PullKind("skill", "a skill's instructions", fetch, "name: the skill"))
            register(PullKind("skills", "the installed skills", lambda a, c: "x, y"))

    session = chat(extra_plugins=(Skills(),))
    forms = [
        {"kind": "skill", "name": "x"},
        {"cmd": "skill", "skill": "x"},
        {"kind": "skill", "args": {"name": "x"}},
    ]
    for form in forms:
        _pulls(openai_server, form)
        session.turn("use the x skill")
        (result,) = session.results()
        assert not result.is_error and result.content == "the x skill", form
    _pulls(openai_server, {"arguments": '{"Kind": "SKILL", "Name": "x"}'}, {"skill": "x"},
           {"kind": "skill:x"})
    session.turn("and again")
    assert [r.content for r in session.results()] == ["the x skill"] * 3
    assert all(a["kind"] == "skill" and a["name"] == "x" for a in asked)
    # another plugin's kinds: the tool is offered although this plugin defers nothing
    request = openai_server.requests[0]
    assert "context_pull" in tool_names(request)
    tool = next(t for t in request.json["tools"] if t["function"]["name"] == "context_pull")
    assert "- skill: a skill's instructions. Arguments: name: the skill." in tool["function"][
        "description"]


def test_an_unknown_kind_is_an_error_listing_the_kinds(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 10})
    _big_docs(session, workspace, files=1, size=10)
    _pulls(openai_server, {"kind": "wisdom"}, {"name": "docs"})
    session.turn("pull something")
    unknown, missing = session.results()
    assert unknown.is_error and "unknown kind 'wisdom'; the kinds are: bootstrap (" in (
        unknown.content)
    assert "context (name: the context;" in unknown.content and "history (" in unknown.content
    assert missing.is_error and "no kind given; the kinds are:" in missing.content


def test_at_most_three_pulls_per_user_turn(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 10})
    _big_docs(session, workspace, files=1, size=10)
    good = {"kind": "context", "name": "docs"}
    openai_server.script(
        Reply(tool_calls=[ToolCall("context_pull", {"kind": "nope"}),  # fails: not counted
                          ToolCall("context_pull", good), ToolCall("context_pull", good)]),
        Reply(tool_calls=[ToolCall("context_pull", good)]),
        Reply(tool_calls=[ToolCall("context_pull", {**good, "offset": 0})]),
        Reply(text="Answering with what I have."))
    session.turn("read everything, many times")
    results = session.results()
    assert [r.is_error for r in results] == [True, False, False, False, True]
    assert results[-1].content.endswith(
        "this turn already made 3 pulls, the most one turn may make: answer now with what you "
        "have, and say what you could not read")
    _pulls(openai_server, good)
    session.turn("a new turn may pull again")
    assert not session.results()[0].is_error


def test_the_text_protocol_offers_and_answers_the_same_tool(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat(context={"prompt_budget": 100}, provider_options={"tool_calls": "text"})
    _big_docs(session, workspace, files=2, size=200)
    openai_server.script(
        Reply(text="Let me read it.\n<tool_call name=\"context_pull\" "
                   "args='{\"cmd\": \"context\", \"context\": \"docs\", \"file\": "
                   "\"docs/part0.md\"}'/>"),
        Reply(text="TOOL_CALL: context_pull(kind=contexts)"),
        Reply(text="Part 0 is all zeros."))
    finished = session.turn("what is in part 0?")
    assert finished.text == "Part 0 is all zeros."
    first, second, third = openai_server.requests
    assert "tools" not in first.json
    system = openai_system(first)
    assert "- context_pull: Read back material chatcli left out of the prompt" in system
    assert system.index("context_pull: Read back") < system.index('Attached context "docs"')
    pulled = second.json["messages"][-1]
    assert pulled["role"] == "user"
    assert pulled["content"] == ("Result of tool context_pull:\n# Part 0\n" + "0" * 200 + "\n")
    assert third.json["messages"][-1]["content"].startswith(
        "Result of tool context_pull:\nAttached to this conversation:\n- docs: 2 files")


def test_a_summary_that_cites_its_own_call_is_not_listed_again_but_stays_reachable(
        chat: Any, openai_server: Any, workspace: Path) -> None:
    session = chat()
    session.turn("the colour is teal")
    path = session.conversation.messages()
    compaction = Compaction(first=path[0].id, last=path[1].id, replacement=[])
    call = f'context_pull {{"kind": "history", "id": "{compaction.id}"}}'
    compaction.replacement = [Message(role=Role.USER, parts=[TextPart(
        text=f"[summary of 2 messages; the originals: {call}]")])]
    session.conversation.compact(compaction)
    _pulls(openai_server, {"kind": "history", "id": compaction.id})
    session.turn("what colour?")
    request = openai_server.requests[1]
    assert "Parts of this conversation were compacted" not in openai_system(request)
    assert "context_pull" in tool_names(request)  # the summary's call must work
    (result,) = session.results()
    assert result.content == "[user] the colour is teal\n[assistant] ok"
