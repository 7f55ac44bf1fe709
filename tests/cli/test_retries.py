"""Retries of a real ``chatcli -p`` process against the wire servers: the configured
``max_retries`` is honoured, and a wait the service asks for that is too long is not waited
for — the one error line names it."""

from __future__ import annotations

from chatcli_testing import Fault, Reply
from cli_support import CHATCLI, run_process

SECRET = "sk-audit-test-0123456789abcdef"


def openai_env(server) -> dict[str, str]:
    """The variables that point chatcli's OpenAI provider at ``server``."""
    return {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.url,
            "CHATCLI_PLUGINS": "openai,print"}


def test_prompt_honours_the_configured_max_retries(home, openai_server):
    openai_server.script(Fault(status=500, message="the server broke"), Reply(text="late"))
    done = run_process([CHATCLI, "-p", "hi"], home, **openai_env(openai_server),
                       CHATCLI_PROVIDERS__OPENAI__MAX_RETRIES="0")
    assert done.returncode == 1
    assert "retrying" not in done.stderr
    assert len(openai_server.requests) == 1


def test_retry_after_too_long_to_wait_names_the_wait(home, anthropic_server):
    anthropic_server.script(Fault(status=429, retry_after=120, message="Rate limit reached"))
    done = run_process([CHATCLI, "-p", "hi"], home, ANTHROPIC_API_KEY=SECRET,
                       ANTHROPIC_BASE_URL=anthropic_server.url, CHATCLI_PLUGINS="anthropic,print")
    assert done.returncode == 1
    assert "retrying in" not in done.stderr and len(anthropic_server.requests) == 1
    assert done.stderr.count("\n") == 1
    assert "the service asks to wait 120s before retrying" in done.stderr
