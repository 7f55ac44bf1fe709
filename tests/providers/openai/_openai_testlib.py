"""Shared helpers of the OpenAI provider tests (a unique module name: test dirs have no package)."""

from __future__ import annotations

from chatcli import ChatRequest, Message
from chatcli_provider_openai.presets import PRESETS, Preset

#: A key-shaped secret: tests assert it never shows up in any message.
TEST_KEY = "sk-test-0123456789abcdefSECRET"


def preset(name: str) -> Preset:
    """The preset called ``name``."""
    return next(p for p in PRESETS if p.name == name)


def ask(text: str = "hi", **kw: object) -> ChatRequest:
    """A one-message request for the test model."""
    model = str(kw.pop("model", "gpt-test"))
    return ChatRequest(model=model, messages=[Message.user(text)], **kw)  # type: ignore[arg-type]
