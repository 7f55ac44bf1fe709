"""``answer_author``: a plugin that speaks through someone (a persona) names the author of an
answer; the engine records it on the message (stored with it), and a wrong result is reported
and ignored like any hook's."""

from __future__ import annotations

from chatcli import (
    Author,
    Message,
    PluginHost,
    Role,
    Session,
    Settings,
    SlashCommand,
    TurnFinished,
    hookimpl,
)
from chatcli_testing import AddTool, Reply, ScriptedProvider, ToolCall, scripted_plugin


def host_with(*plugins: object) -> tuple[PluginHost, ScriptedProvider, list[str]]:
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    provider = ScriptedProvider()
    host.register(scripted_plugin(provider), "scripted")
    for index, plugin in enumerate(plugins):
        assert host.register(plugin, f"plugin{index}")
    return host, provider, lines


class Speaker:
    """Names an author when the last user message starts with ``as:``."""

    def __init__(self) -> None:
        self.asked = 0

    @hookimpl
    def answer_author(self, conversation):
        self.asked += 1
        user = conversation.last(Role.USER)
        if user is not None and user.text.startswith("as:"):
            return Author(name="guest", label="★ Guest", style="bold red")
        return None


def test_the_author_is_recorded_on_every_answer_of_the_turn() -> None:
    speaker = Speaker()
    host, provider, lines = host_with(AddTool(), speaker)
    provider.script(Reply(tool_calls=[ToolCall(name="add", arguments={"a": 1, "b": 2})]), "3")
    with Session(host, Settings()) as session:
        finished = list(session.run(Message.user("as: add")))[-1]
        plain = list(session.run(Message.user("and you?")))[-1]
    assert isinstance(finished, TurnFinished) and finished.error is None
    answers = [m for m in finished.messages if m.role == Role.ASSISTANT]
    assert [m.author for m in answers] == ["guest", "guest"]
    assert plain.messages[-1].author is None
    assert speaker.asked == 3  # once per answer appended
    assert lines == []


def test_the_author_survives_json_and_old_messages_read_as_none() -> None:
    message = Message(role=Role.ASSISTANT, author="guest")
    assert Message.model_validate_json(message.model_dump_json()).author == "guest"
    assert Message.model_validate({"role": "assistant"}).author is None


def test_a_wrong_result_is_reported_once_and_no_author_is_recorded() -> None:
    class Wrong:
        @hookimpl
        def answer_author(self):
            return "just a string"

    host, _, lines = host_with(Wrong())
    with Session(host, Settings()) as session:
        finished = list(session.run(Message.user("hi")))[-1]
    assert finished.error is None and finished.messages[-1].author is None
    assert len(lines) == 1 and "expected Author or None" in lines[0]


def test_the_first_author_wins_and_the_label_falls_back_to_the_name() -> None:
    class First:
        @hookimpl(tryfirst=True)
        def answer_author(self):
            return Author(name="first")

    host, _, _ = host_with(Speaker(), First())
    with Session(host, Settings()) as session:
        finished = list(session.run(Message.user("as: hello")))[-1]
    assert finished.messages[-1].author == "first"
    assert Author(name="first").shown == "first"
    assert Author(name="n", label="★ N").shown == "★ N"


def test_slash_commands_may_offer_mentions() -> None:
    plain = SlashCommand(name="x", help="h", run=lambda app, text: None)
    assert plain.mentions is None
    offering = plain._replace(mentions=lambda app: [("someone", "who")])
    assert list(offering.mentions(None)) == [("someone", "who")]
