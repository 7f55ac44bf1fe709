"""chatcli-plugin-records' words in Brazilian Portuguese: why a compaction is refused and a
compaction report's summary, in the user's language (English unchanged)."""

from __future__ import annotations

from chatcli import Compaction, Conversation, Message
from chatcli_plugin_records import CompactionReport, check_compaction


def _view() -> list[Message]:
    conversation = Conversation()
    for i in range(3):
        conversation.append(Message.user(f"q{i}"))
        conversation.append(Message.assistant(f"a{i}"))
    return conversation.view()


def test_refusals_and_summaries_in_portuguese(chatcli_language) -> None:
    view = _view()
    outside = Compaction(first="nope", last=view[1].id)
    backwards = Compaction(first=view[3].id, last=view[1].id)
    assert check_compaction(view, outside) == "its range is not on the view"
    assert CompactionReport(tokens_before=0, tokens_after=0).line() == "nothing to compact"
    chatcli_language("pt_BR")
    assert check_compaction(view, outside) == "o intervalo dela não está na conversa visível"
    assert check_compaction(view, backwards) == "o intervalo dela termina antes de começar"
    report = CompactionReport(tokens_before=0, tokens_after=0, notes=["too short"])
    assert report.line() == "nada a compactar (too short)"
