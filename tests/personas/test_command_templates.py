"""Slash-command templates: markdown files in the project's ``.chatcli/commands/`` and
``.claude/commands/`` and the user's ``<config>/commands/`` and ``~/.claude/commands/`` become
``/commands`` — namespaced by sub-folder, listed by ``/help`` and completion, and sent, their
arguments substituted, as the user's message (in the chat and with ``chatcli -p``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chatcli import Risk, Tool, hookimpl
from chatcli_testing import Reply, ToolCall
from personas_support import ALL_RISKS, cli, last_user, tool_names, write

REVIEW = """
    ---
    description: Review a file for bugs
    argument-hint: FILE [FOCUS]
    ---
    Review $1 with care. Focus on: $2.
    Everything you were given: $ARGUMENTS
    """


@pytest.fixture
def templates(workspace: Path, config: Path, home: Path) -> dict[str, Path]:
    return {
        "review": write(workspace, ".chatcli/commands/review.md", REVIEW),
        "frontend:review": write(workspace, ".chatcli/commands/frontend/review.md",
                                 "---\ndescription: Review a component\n---\n"
                                 "Review the component $ARGUMENTS.\n"),
        "deep:er:one": write(workspace, ".claude/commands/deep/er/one.md", "Deep $1\n"),
        "claude-only": write(workspace, ".claude/commands/claude-only.md",
                             "---\ndescription: From .claude\n---\nclaude $ARGUMENTS\n"),
        "mine": write(config, "commands/mine.md", "# My own command\n\nDo $ARGUMENTS my way.\n"),
        "home-claude": write(home, ".claude/commands/home-claude.md", "From ~/.claude: $1\n"),
    }


def names(one: Any) -> set[str]:
    return set(one.host.slash_commands())


def test_every_folder_gives_commands_and_sub_folders_namespace_them(chat, templates) -> None:
    one = chat()
    assert set(templates) <= names(one)
    commands = one.host.slash_commands()
    assert commands["review"].help == "Review a file for bugs FILE [FOCUS] (project)"
    assert commands["frontend:review"].help == "Review a component (project)"
    assert commands["mine"].help == "My own command (user)"  # the body's first line
    assert commands["home-claude"].help == "From ~/.claude: $1 (user)"


def test_the_first_folder_wins_a_name(chat, workspace: Path, config: Path, home: Path,
                                      openai_server) -> None:
    write(workspace, ".chatcli/commands/same.md", "from .chatcli\n")
    write(workspace, ".claude/commands/same.md", "from the project's .claude\n")
    write(config, "commands/same.md", "from the user's config\n")
    write(home, ".claude/commands/same.md", "from ~/.claude\n")
    write(workspace, ".claude/commands/second.md", "the project's .claude\n")
    write(config, "commands/second.md", "the user's\n")
    write(config, "commands/third.md", "the user's config\n")
    write(home, ".claude/commands/third.md", "~/.claude\n")
    one = chat()
    for command, expected in (("same", "from .chatcli"), ("second", "the project's .claude"),
                              ("third", "the user's config")):
        one.command(f"/{command}")
        assert last_user(openai_server.requests[-1]) == expected


def test_running_a_template_sends_its_expanded_prompt(chat, templates, openai_server) -> None:
    one = chat()
    one.command('/review "src/my app.py" security')
    assert last_user(openai_server.requests[-1]) == (
        "Review src/my app.py with care. Focus on: security.\n"
        "Everything you were given: \"src/my app.py\" security")
    one.command("/frontend:review Button.tsx")
    assert last_user(openai_server.requests[-1]) == "Review the component Button.tsx."
    one.command("/deep:er:one x y")
    assert last_user(openai_server.requests[-1]) == "Deep x"
    one.command("/review")  # no arguments: the placeholders are empty
    assert last_user(openai_server.requests[-1]).startswith("Review  with care. Focus on: .")
    user_messages = [m.text for m in one.conversation.messages() if m.role == "user"]
    assert len(user_messages) == 4  # each is the user's message of its turn


def test_a_body_without_placeholders_gets_the_arguments_after_it(chat, workspace,
                                                                 openai_server) -> None:
    write(workspace, ".chatcli/commands/plain.md", "Explain the code.\n")
    one = chat()
    one.command("/plain src/app.py")
    assert last_user(openai_server.requests[-1]) == "Explain the code.\n\nARGUMENTS: src/app.py"
    one.command("/plain")
    assert last_user(openai_server.requests[-1]) == "Explain the code."


def test_allowed_tools_limit_the_command_s_answer_only(chat, workspace, openai_server) -> None:
    class Tools:
        @hookimpl
        def register_tools(self, register):
            for name, risk in (("read", Risk.READ), ("exec", Risk.EXECUTE)):
                register(Tool(name=name, description=name, risk=risk,
                              parameters={"type": "object", "properties": {}},
                              run=lambda args, context, name=name: f"{name} ran"))

    write(workspace, ".chatcli/commands/audit.md",
          "---\nallowed-tools: Read, Grep\n---\nAudit $ARGUMENTS\n")
    one = chat(extra_plugins=(Tools(),), allow=ALL_RISKS)
    openai_server.script(Reply(tool_calls=[ToolCall("exec")]), "audited")
    one.command("/audit the repo")
    assert tool_names(openai_server.requests[0]) == ["read"]
    denied = next(m["content"] for m in openai_server.requests[1].json["messages"]
                  if m["role"] == "tool")
    assert denied.startswith("Error: denied: /audit allows only these tools: Read, Grep "
                             "(not exec)")
    one.turn("and now anything")
    assert sorted(tool_names(openai_server.requests[-1])) == ["exec", "read"]


def test_a_template_s_model_answers_its_message_only(chat, workspace, openai_server) -> None:
    write(workspace, ".chatcli/commands/quick.md", "---\nmodel: m-small\n---\nQuick: $1\n")
    write(workspace, ".chatcli/commands/slash.md", "---\nmodel: openai/m-slash\n---\nS\n")
    write(workspace, ".chatcli/commands/bad.md", "---\nmodel: nowhere/x/y\n---\nB\n")
    one = chat()
    one.command("/quick hi")
    one.turn("normal")
    one.command("/slash")
    one.command("/bad")
    assert [r.json["model"] for r in openai_server.requests] == ["m-small", "m", "m-slash",
                                                                  "nowhere/x/y"]
    assert one.session.model == "m"


def test_sloppy_templates_load_with_warnings_and_bad_ones_are_skipped(chat, workspace) -> None:
    write(workspace, ".chatcli/commands/colon.md",
          "---\ndescription: Fix: the bug\n---\nFix $ARGUMENTS\n")
    write(workspace, ".chatcli/commands/empty.md", "---\ndescription: nothing\n---\n")
    write(workspace, ".chatcli/commands/has space.md", "body\n")
    one = chat()
    commands = one.host.slash_commands()
    assert commands["colon"].help == "Fix: the bug (project)"
    assert "empty" not in commands and "has space" not in commands
    warned = " | ".join(one.warned)
    assert "colon.md: the frontmatter is not valid YAML" in warned
    assert "empty.md: it has no body" in warned
    assert "'/has space' is not a command name" in warned


def test_templates_are_listed_by_help_and_completed(chat, templates) -> None:
    import chatcli_repl.plugin as repl_plugin
    from chatcli_repl.input import ChatCompleter
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    one = chat(extra_plugins=(repl_plugin,))
    listing = one.command("/help")
    for name in ("/review", "/frontend:review", "/deep:er:one", "/mine", "/home-claude",
                 "/persona", "/personas"):
        assert name in listing
    assert "Review a file for bugs FILE [FOCUS] (project)" in listing
    completer = ChatCompleter(one.app)
    offered = [c.text for c in completer.get_completions(Document("/fron"), CompleteEvent())]
    assert offered == ["/frontend:review"]


def test_at_completion_offers_personas_then_paths(chat, workspace) -> None:
    from chatcli_repl.input import ChatCompleter
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    write(workspace, "security.txt", "a file\n")
    one = chat()
    completer = ChatCompleter(one.app)

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("@sec") == ["security-specialist", "security.txt"]
    assert len(complete("@")) >= 15
    assert complete("look at @sec") == ["security.txt"]  # not the first word: files only
    shown = next(c for c in completer.get_completions(Document("@kam"), CompleteEvent()))
    assert shown.display_text == "@kamaji"
    assert shown.display_meta_text.startswith("🔥 The gruff old keeper")


# ------------------------------------------------------------------------ the command line


def test_chatcli_p_expands_a_template_and_asks(home: Path, workspace: Path, templates,
                                               openai_server) -> None:
    done = cli(home, workspace, openai_server, "-p", "/review src/app.py correctness")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ok\n"
    assert last_user(openai_server.requests[-1]) == (
        "Review src/app.py with care. Focus on: correctness.\n"
        "Everything you were given: src/app.py correctness")
    quoted = cli(home, workspace, openai_server, "-p", "/frontend:review 'a b' \"c d\"")
    assert quoted.returncode == 0, quoted.stderr
    assert last_user(openai_server.requests[-1]) == "Review the component 'a b' \"c d\"."
    piped = cli(home, workspace, openai_server, "-p", "/mine fast", "--json")
    assert '"text": "ok"' in piped.stdout
    assert last_user(openai_server.requests[-1]).endswith("Do fast my way.")
