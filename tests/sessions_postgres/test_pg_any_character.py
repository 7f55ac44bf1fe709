"""Any character reaches PostgreSQL and comes back searchable: NUL (which PostgreSQL's ``text``
cannot hold) and lone surrogates (which psycopg cannot send) become U+FFFD, as in the SQLite
store; every word of a stored message finds it again, letters or not."""

from __future__ import annotations

import pytest
from chatcli import Message, UsageError, safe_text
from chatcli_sessions_postgres.words import (
    MAX_VECTOR_BYTES,
    lexemes,
    parse_query,
    snippet,
    tsquery_text,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sessions_postgres_support import turn, wired

DB = settings(max_examples=60, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])


@DB
@given(text=st.text(min_size=1, max_size=200), data=st.data())
def test_any_text_is_stored_and_its_words_find_it(open_store_once, text: str, data) -> None:
    store, replica = open_store_once
    conversation = wired(store)
    turn(conversation, text, "ok")
    [question] = [m for m in replica.messages(conversation.id) if m.role.value == "user"]
    assert question.text == safe_text(text)  # NUL and lone surrogates: U+FFFD
    words = [w for w in safe_text(text).split() if w.strip('"*')]
    assume(words)
    word = data.draw(st.sampled_from(words))
    hits = replica.search(word, limit=1000)
    assert question.id in {h.message_id for h in hits}
    hit = next(h for h in hits if h.message_id == question.id)
    assert hit.session_id == conversation.id and hit.role == "user"


@DB
@given(name=st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40))
def test_any_name_is_kept_and_resolves(open_store_once, name: str) -> None:
    assume(name.strip())
    store, replica = open_store_once
    conversation = wired(store)
    turn(conversation, "named")
    try:
        store.save(conversation, name=name)
    except UsageError:  # a name an earlier example took
        return
    info = replica.resolve(name)
    assert info.id == conversation.id and info.name == safe_text(name.strip())


def test_nul_and_surrogates_everywhere(open_store) -> None:
    store = open_store()
    conversation = wired(store)
    conversation.metadata["cwd"] = "/tmp/project\udcff"
    conversation.checkpoint("label\x00 with nul")
    conversation.append(Message.user("question\x00 with \ud800 both"))
    reply = Message.assistant("answer \x00")
    reply.provider, reply.model = "prov\x00", "model\udfff"
    conversation.append(reply)
    store.save(conversation, name="nul\x00name")
    info = store.resolve("nul\x00name")
    assert info.name == "nul\ufffdname" and info.provider == "prov\ufffd"
    assert info.title == "question\ufffd with \ufffd both"
    assert [c.label for c in store.checkpoints(info.id)] == ["label\ufffd with nul"]
    assert [h.message_id for h in store.search("with\x00question")] == \
        [conversation.messages()[0].id]
    with pytest.raises(UsageError, match="not UTF-8"):
        store.search("bad \udcff")
    with pytest.raises(UsageError, match="not UTF-8"):
        store.resolve("s_\udcff")
    assert store.list(project="/nowhere\x00") == []


def test_words_without_letters_are_searched_as_they_are(open_store) -> None:
    store = open_store()
    conversation = wired(store)
    turn(conversation, "rename a → b, then 🙂 and :: done", "ok")
    hits = store.search("→")
    assert [h.snippet for h in hits] == ["rename a → b, then 🙂 and :: done"]
    assert len(store.search("🙂 ::")) == 1
    assert store.search("←") == []
    assert len(store.search("RENAME then")) == 1  # words: any case, the last a prefix
    assert len(store.search("rename th")) == 1
    assert store.search("renam then") == []  # only the last word is a prefix
    assert store.search('"*" **') == []


def test_accents_and_case_are_ignored(open_store) -> None:
    store = open_store()
    conversation = wired(store)
    turn(conversation, "Le CAFÉ de la gare", "ok")
    [hit] = store.search("cafe")
    assert hit.snippet == "Le [CAFÉ] de la gare"
    assert len(store.search("Café GARE")) == 1


@given(st.text(max_size=400))
def test_words_never_fail_and_fit_postgresql(text: str) -> None:
    found = lexemes(text)
    assert len(found) == len(set(found)) and all(found)
    assert all("\x00" not in w and "'" not in w and " " not in w for w in found)
    assert sum(len(w.encode("utf-8", "surrogatepass")) + 8 for w in found) <= MAX_VECTOR_BYTES
    query = parse_query(text)
    tsquery_text(query)
    snippet(text, query)
