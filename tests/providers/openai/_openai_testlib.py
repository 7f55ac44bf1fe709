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


def run_chatcli(home, *args: str, **env: str):
    """The real ``chatcli`` as a process, in ``home`` (chatcli_home), with only ``env``'s keys.

    Returns the ``subprocess.CompletedProcess`` (text).
    """
    import os
    import subprocess
    import sys
    from pathlib import Path

    clean = {k: v for k, v in os.environ.items()
             if not k.startswith("CHATCLI_") and not k.endswith(("_API_KEY", "_TOKEN"))
             and k not in ("OPENAI_BASE_URL", "OLLAMA_HOST", "AZURE_OPENAI_ENDPOINT",
                           "OPENAI_API_VERSION")}
    clean.update(CHATCLI_CONFIG_DIR=str(home / "config"), CHATCLI_DATA_DIR=str(home / "data"),
                 CHATCLI_CACHE_DIR=str(home / "cache"))
    clean.update(env)
    chatcli = Path(sys.executable).parent / "chatcli"
    return subprocess.run([str(chatcli), *args], capture_output=True, text=True, timeout=60,
                          env=clean, cwd=home, stdin=subprocess.DEVNULL)
