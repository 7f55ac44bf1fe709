"""chatcli-sessions-api's words a user reads: another writer moving a session on, in English and
in Brazilian Portuguese."""

from __future__ import annotations

from chatcli_sessions_api import HeadMoved


def test_another_writer_in_both_languages(chatcli_language) -> None:
    assert str(HeadMoved("s1", None, "m2")) == (
        "session s1 was moved on by another chatcli (its head is now empty) — resume it again "
        "to see the other turns: chatcli --resume s1")
    chatcli_language("pt_BR")
    assert str(HeadMoved("s1", "m3", "m2")) == (
        "a sessão s1 foi levada adiante por outro chatcli (a posição atual dela agora é m3) — "
        "retome-a de novo para ver os outros turnos: chatcli --resume s1")
