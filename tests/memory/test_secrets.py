"""Secrets never enter memory: ``memory add`` (and the ``memory_save`` tool, and MEMORY.md
imports) refuse them in one line; the conversation is redacted before the extraction model
reads it; a secret the model extracts anyway is masked. Hypothesis holds the redaction to
its rules over generated text."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from chatcli_memory.secrets import MASK, find_secret, redact_secrets
from chatcli_testing import Reply
from hypothesis import given, settings
from hypothesis import strategies as st
from memory_support import cli, extraction, extraction_requests

SECRETS = [
    "sk-proj-Abcdefghijklmnop1234567890",
    "sk-ant-api03-abcdefghijklmnopqrstuvwx",
    "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat_11ABCDEFG0123456789abcdefghij",
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-1234567890-abcdefghij",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]
PAIRS = ["password: hunter2", "my password is Tr0ub4dor&3", "api_key=abcd1234efgh",
         'PGPASSWORD="s3cr3t!"', "token: 9f8e7d6c5b4a", "Authorization: Bearer abcdef123456789"]


def test_memory_add_refuses_secrets_in_one_line(chat: Any) -> None:
    session = chat()
    for secret in [*SECRETS, *PAIRS]:
        out = session.command(f"add the deploy key is {secret}")
        assert out.startswith("not remembered: the text holds "), secret
        assert out.count("\n") == 1 and secret not in out
    assert session.runtime.memory.backend.list(include_archived=True) == []
    assert session.command("add the password policy requires 12 characters").startswith(
        "remembered")  # talk about passwords is fine


def test_the_command_line_refuses_too(home: Path, workspace: Path) -> None:
    done = cli(home, workspace, None, "memory", "add", "password:", "hunter2",
               model_flags=False)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("Error: not remembered: the text holds a password")
    assert "hunter2" not in done.stderr


def test_the_extraction_model_never_sees_a_secret(chat: Any, openai_server: Any) -> None:
    openai_server.script("ok", "ok", Reply(text=extraction(long_term=[
        {"text": f"The staging key is {SECRETS[0]}."}, {"text": SECRETS[2]},
        {"text": "Staging lives at staging.example.com."}])))
    session = chat()
    session.turn(f"use {SECRETS[0]} for staging, and {PAIRS[0]}")
    session.turn(f"also {SECRETS[2]}, staging lives at staging.example.com")
    session.wait()
    (sent,) = extraction_requests(openai_server)
    body = str(sent.json)
    for secret in (SECRETS[0], SECRETS[2], "hunter2"):
        assert secret not in body
    assert f"use {MASK} for staging" in body
    texts = sorted(i.text for i in session.runtime.memory.backend.list())
    assert texts == ["Staging lives at staging.example.com.", f"The staging key is {MASK}."]
    assert session.runtime.worker.last_outcome == "ok: 2 stored, 1 skipped"


# ------------------------------------------------------------------------------ properties

_TEXT = st.text(alphabet=string.ascii_letters + string.digits + " .,:;=-_'\"\n/", max_size=80)


@settings(max_examples=300, deadline=None)
@given(before=_TEXT, secret=st.sampled_from(SECRETS), after=_TEXT)
def test_a_key_anywhere_in_text_is_masked(before: str, secret: str, after: str) -> None:
    text = f"{before} {secret} {after}"
    redacted = redact_secrets(text)
    assert secret not in redacted
    assert find_secret(text) is not None


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200))
def test_redaction_is_idempotent_and_leaves_no_secret(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once) == once
    assert find_secret(once) is None


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.sampled_from(
    ["the", "project", "uses", "uv", "tests", "run", "with", "pytest", "deploys", "on",
     "fridays", "is", "strict", "count", "sauce", "sk", "key", "AKIA", "ghp", "bearer"]),
    max_size=12))
def test_ordinary_sentences_are_left_alone(words: list[str]) -> None:
    text = " ".join(words)
    assert redact_secrets(text) == text


def test_talk_about_secrets_is_no_secret() -> None:
    for text in ("the password is wrong", "the token count is 500", "secret sauce",
                 "the password policy is strict", "rotate the api key monthly",
                 "a bearer token goes in the header", "password: ***"):
        assert redact_secrets(text) == text, text
