"""One-shot and the interactive chat open their session the same way (chatcli.Session)."""

from __future__ import annotations

import chatcli_repl.plugin as repl_plugin
import pytest
from cli_support import TtyInput


@pytest.mark.parametrize("flag", [["--resume", "s_abc"], ["-c"]])
def test_resume_without_a_session_store_is_the_same_error_in_both_front_ends(cli, flag):
    cli.host.register(repl_plugin, "repl")
    one_shot = cli(*flag, "-p", "hi")
    chat = cli(*flag, stdin=TtyInput(""))
    assert one_shot.code == chat.code == 2
    assert one_shot.err == chat.err
    assert "needs a session store" in one_shot.err and "chatcli-sessions" in one_shot.err
    assert cli.provider.requests == []  # nothing was sent


def test_a_resumed_conversation_goes_on_with_the_provider_of_its_last_answer(cli):
    from chatcli import Conversation, Message, hookimpl

    stored = Conversation(id="s_stored")
    stored.append(Message.user("earlier question"))
    answer = Message.assistant("earlier answer")
    answer.provider, answer.model = "scripted", "the-model-that-answered"
    stored.append(answer)

    class Store:
        @hookimpl
        def open_conversation(self, resume):
            return stored if resume == "s_stored" else None

    cli.host.register(Store(), "store")
    result = cli("--resume", "s_stored", "-p", "and now?", "--json")
    assert result.code == 0, result.err
    assert cli.provider.requests[-1].model == "the-model-that-answered"
    named = cli("--resume", "s_stored", "-p", "and now?", "--model", "other", "--json")
    assert named.code == 0 and cli.provider.requests[-1].model == "other"
