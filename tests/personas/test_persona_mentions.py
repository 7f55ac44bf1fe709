"""``@name …`` at the start of a message sends that message to that persona — for that message
only — without confusing the chat's ``@path`` attachments: a word is a persona only when it
starts the message and names one."""

from __future__ import annotations

from chatcli import Message, Role
from chatcli_personas.state import mention
from chatcli_repl.attach import user_message
from personas_support import SECURITY_BODY_START, last_user, persona_file, system_of, write


def test_an_at_name_message_is_answered_by_that_persona_once(chat, openai_server) -> None:
    one = chat()
    one.turn("@security-specialist review this")
    one.turn("and what about the tests?")
    first, second = openai_server.requests
    assert SECURITY_BODY_START in system_of(first)
    assert last_user(first) == "@security-specialist review this"  # sent as typed
    assert SECURITY_BODY_START not in system_of(second)
    answers = [m for m in one.conversation.messages() if m.role == Role.ASSISTANT]
    assert [m.author for m in answers] == ["security-specialist", None]
    assert one.conversation.metadata.get("persona") is None  # nothing was switched


def test_an_at_name_speaks_over_the_conversation_s_persona_for_one_message(chat,
                                                                        openai_server) -> None:
    one = chat()
    one.command("/persona writer")
    one.turn("@kamaji the build is slow")
    one.turn("write it up")
    first, second = (system_of(r) for r in openai_server.requests)
    assert "You are Kamaji" in first and "You help people say what they mean" not in first
    assert "You help people say what they mean" in second and "You are Kamaji" not in second
    authors = [m.author for m in one.conversation.messages() if m.role == Role.ASSISTANT]
    assert authors == ["kamaji", "writer"]


def test_words_that_name_no_persona_are_plain_text(chat, openai_server) -> None:
    one = chat()
    for text in ("@everyone listen", "please ask @kamaji", "email@kamaji.org",
                 "@kamaji's boiler"):
        one.turn(text)
    assert all("You are Kamaji" not in system_of(r) for r in openai_server.requests)
    assert mention("  @kamaji\nhello") == "kamaji" and mention("@kamaji") == "kamaji"
    assert mention("@kamaji, hi") is None  # punctuation: not a mention
    assert mention("hi @kamaji") is None


def test_a_persona_mention_and_file_mentions_go_together(chat, workspace,
                                                         openai_server) -> None:
    write(workspace, "src/app.py", "password = 'hunter2'\n")
    write(workspace, "notes.md", "# notes\n")
    one = chat()
    finished = list(one.session.run(
        user_message("@security-specialist review @src/app.py", workspace)))[-1]
    assert finished.error is None
    request = openai_server.requests[-1]
    assert SECURITY_BODY_START in system_of(request)
    assert '<file path="src/app.py">' in last_user(request)
    # a file's @path at the start is a file, not a persona
    list(one.session.run(user_message("@notes.md tidy this up", workspace)))
    assert SECURITY_BODY_START not in system_of(openai_server.requests[-1])
    assert '<file path="notes.md">' in last_user(openai_server.requests[-1])


def test_a_project_persona_shadows_a_file_of_the_same_name_only_as_a_persona(
        chat, workspace, openai_server) -> None:
    write(workspace, ".chatcli/agents/notes.md", persona_file("notes", "You keep notes.",
                                                              description="d"))
    one = chat()
    one.turn("@notes what did we decide?")
    assert "You keep notes." in system_of(openai_server.requests[-1])


def test_an_at_name_persona_s_model_answers_that_message(chat, workspace, openai_server,
                                                         ) -> None:
    write(workspace, ".chatcli/agents/quick.md",
          persona_file("quick", description="d", model="m-quick"))
    write(workspace, ".chatcli/agents/elsewhere.md",
          persona_file("elsewhere", description="d", provider="anthropic", model="c"))
    one = chat()
    one.turn("@quick one line please")
    one.turn("and you?")
    one.turn("@elsewhere hello")
    models = [r.json["model"] for r in openai_server.requests]
    assert models == ["m-quick", "m", "m"]
    assert any("an @elsewhere message keeps the provider in use" in w for w in one.warned)


def test_a_retry_is_answered_by_the_same_persona(chat, openai_server) -> None:
    one = chat()
    one.turn("@kamaji why does it hiss?")
    user = one.conversation.last(Role.USER)
    one.conversation.move_head(user.id, "retry")
    list(one.session.run(None))
    assert "You are Kamaji" in system_of(openai_server.requests[-1])
    assert one.conversation.messages()[-1].author == "kamaji"


def test_typed_text_is_what_decides_not_an_attached_file(chat, openai_server) -> None:
    from chatcli import TextPart

    one = chat()
    message = Message(role=Role.USER, parts=[TextPart(text="look at this"),
                                             TextPart(text="@kamaji inside a file")])
    list(one.session.run(message))
    assert "You are Kamaji" not in system_of(openai_server.requests[-1])
