"""``/persona`` and ``/agents``: switching the conversation's persona (its prompt in every
request, its name on every answer), switching back, the persona's model, and ``chatcli -c``
resuming the persona from one run to the next."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from chatcli import UsageError
from personas_support import (
    SECURITY_BODY_START,
    cli,
    last_user,
    persona_file,
    system_of,
    write,
)


def test_persona_name_speaks_in_every_request_until_off(chat, openai_server: Any) -> None:
    one = chat()
    said = one.command("/persona security-specialist")
    assert "now speaking as 🛡 Security Specialist (@security-specialist)" in said
    one.turn("look at the login code")
    one.turn("and the session handling")
    for request in openai_server.requests:
        system = system_of(request)
        assert SECURITY_BODY_START in system
        assert system.startswith("You are chatcli")  # the kernel's base prompt stays first
        assert system.index("Security Specialist") < system.index("Today is ")
    answers = [m for m in one.conversation.messages() if m.role == "assistant"]
    assert [m.author for m in answers] == ["security-specialist"] * 2
    assert one.conversation.metadata["persona"] == "security-specialist"

    assert "persona: 🛡 Security Specialist" in one.command("/persona")
    assert "persona off" in one.command("/persona off")
    one.turn("thanks")
    assert SECURITY_BODY_START not in system_of(openai_server.requests[-1])
    assert one.conversation.messages()[-1].author is None
    assert "no persona" in one.command("/persona")


def test_a_model_without_tools_still_hears_the_persona(chat, openai_server: Any) -> None:
    # a lean request (a small model: [providers.NAME] tools = false) keeps what the user chose
    one = chat(provider_options={"tools": False})
    one.command("/persona security-specialist")
    one.turn("look at the login code")
    request = openai_server.requests[-1]
    assert "tools" not in request.json
    assert SECURITY_BODY_START in system_of(request)


def test_the_persona_section_is_byte_identical_while_it_speaks(chat, openai_server) -> None:
    one = chat()
    one.command("/persona kamaji")
    for text in ("one", "two", "three"):
        one.turn(text)
    prefixes = {system_of(r)[: system_of(r).index("Today is ")] for r in openai_server.requests}
    assert len(prefixes) == 1


def test_an_unknown_persona_is_refused_with_the_closest_name(chat) -> None:
    one = chat()
    with pytest.raises(UsageError) as caught:
        one.command("/persona security-specialst")
    assert "no persona is called 'security-specialst'" in str(caught.value)
    assert "/persona security-specialist" in caught.value.hint
    assert one.conversation.metadata.get("persona") is None


def test_agents_lists_names_icons_and_descriptions_and_marks_the_active_one(chat,
                                                                            workspace) -> None:
    write(workspace, ".chatcli/agents/local.md",
          persona_file("local", description="A project persona.", icon="⭐"))
    one = chat()
    one.command("/persona writer")
    listing = one.command("/personas")
    lines = listing.splitlines()
    names = [line.removeprefix("●").split()[0] for line in lines if line.strip()]
    assert len([n for n in names if n.startswith("@") and n != "@NAME"]) == 17  # 16 + local
    writer = next(line for line in lines if "@writer" in line)
    assert writer.startswith("●") and "📝" in writer and "Writes and edits clear prose" in writer
    local = next(line for line in lines if "@local" in line)
    assert "⭐" in local and "A project persona. (project)" in local
    assert "@NAME … sends one message to a persona" in listing


def test_completion_offers_the_personas_and_off(chat) -> None:
    one = chat()
    command = one.host.slash_commands()["persona"]
    offered = command.complete(one.app, "")
    assert offered[0] == "off" and "security-specialist" in offered and len(offered) == 17
    mentions = dict(command.mentions(one.app))
    assert mentions["kamaji"].startswith("🔥 The gruff old keeper")


def test_a_persona_with_a_model_switches_and_off_switches_back(chat, workspace: Path,
                                                              openai_server) -> None:
    write(workspace, ".chatcli/agents/fast.md",
          persona_file("fast", description="Answers with another model.", model="m-fast"))
    write(workspace, ".chatcli/agents/plain.md", persona_file("plain", description="No model."))
    one = chat()
    assert "· openai/m-fast" in one.command("/persona fast")
    one.turn("quick")
    assert openai_server.requests[-1].json["model"] == "m-fast"
    one.command("/persona plain")  # another persona without a model: back to the first model
    one.turn("slow")
    assert openai_server.requests[-1].json["model"] == "m"
    one.command("/persona fast")
    one.command("/persona off")
    one.turn("done")
    assert openai_server.requests[-1].json["model"] == "m"
    assert one.session.model == "m"


def test_a_persona_whose_provider_is_missing_keeps_the_current_one(chat, workspace) -> None:
    write(workspace, ".chatcli/agents/far.md",
          persona_file("far", description="d", provider="nowhere", model="x"))
    one = chat()
    said = one.command("/persona far")
    assert "far asks for nowhere/x, which cannot be used" in said
    assert one.session.provider_name == "openai" and one.session.model == "m"
    assert one.conversation.metadata["persona"] == "far"


# ------------------------------------------------------------------------ across runs


def test_chatcli_c_resumes_the_persona_and_off_ends_it(home: Path, workspace: Path,
                                                       openai_server) -> None:
    assert cli(home, workspace, openai_server, "-p", "hello").returncode == 0
    switched = cli(home, workspace, openai_server, "-c", "-p", "/persona security-specialist")
    assert switched.returncode == 0, switched.stderr
    assert "now speaking as" in switched.stdout
    resumed = cli(home, workspace, openai_server, "-c", "-p", "review the patch")
    assert resumed.returncode == 0, resumed.stderr
    assert last_user(openai_server.requests[-1]) == "review the patch"
    assert SECURITY_BODY_START in system_of(openai_server.requests[-1])

    listed = cli(home, workspace, openai_server, "sessions", "list", "--json", model=False)
    latest = json.loads(listed.stdout)[0]["id"]
    exported = cli(home, workspace, openai_server, "sessions", "export", "--format", "json",
                   latest, model=False)
    messages = json.loads(exported.stdout)["messages"]
    authors = [m.get("author") for m in messages if m["role"] == "assistant"]
    assert authors == [None, "security-specialist"]
    markdown = cli(home, workspace, openai_server, "sessions", "export", latest, model=False)
    assert "## Assistant — security-specialist (m)" in markdown.stdout
    assert "## Assistant (m)" in markdown.stdout  # the first answer: chatcli itself

    assert cli(home, workspace, openai_server, "-c", "-p", "/persona off").returncode == 0
    cli(home, workspace, openai_server, "-c", "-p", "and now?")
    assert SECURITY_BODY_START not in system_of(openai_server.requests[-1])


def test_a_forked_or_loaded_conversation_keeps_its_persona(chat, openai_server) -> None:
    from chatcli import Conversation
    from chatcli_personas.state import ActiveStore

    one = chat()
    one.command("/persona writer")
    fork = Conversation(id="s_fork", metadata=dict(one.conversation.metadata))
    one.session.set_conversation(fork)  # what /fork does: the metadata travels
    assert ActiveStore().get("s_fork")["persona"] == "writer"
    one.turn("draft the release notes")
    assert "You help people say what they mean" in system_of(openai_server.requests[-1])
    one.session.set_conversation(Conversation(id="s_fork"))  # loaded again: no metadata
    one.turn("again")
    assert "You help people say what they mean" in system_of(openai_server.requests[-1])
    one.session.set_conversation(Conversation(id="s_other"))
    one.turn("someone else")
    assert "You help people say what they mean" not in system_of(openai_server.requests[-1])
