"""A chain with an entry that takes no tool definitions speaks the text tool-call protocol with
every entry (``chatcli_provider_kit.textcalls`` around the whole chain), so a conversation never
changes protocol because another entry answered; a chain of native entries sends tools natively.
"""

from __future__ import annotations

import json

import pytest
from chatcli_testing import Reply
from fallback_support import run_chatcli, server_env, write_config

CHAIN = """
provider = "fallback"

[fallback]
chain = ["anthropic/claude-test", "openai/gpt-test"]
cooldown = 60
{openai}
"""

CALL = '<tool_call name="read" args=\'{{"path": "{path}"}}\'/>'


@pytest.mark.parametrize("text_entry", [True, False])
def test_one_entry_without_native_tools_puts_the_whole_chain_on_the_text_protocol(
        fb_home, anthropic_server, openai_server, text_entry: bool) -> None:
    (fb_home / "notes.txt").write_text("the canary says 42\n")
    table = '[providers.openai]\ntool_calls = "text"' if text_entry else ""
    write_config(fb_home, CHAIN.format(openai=table))
    env = server_env(anthropic_server, openai_server)
    env["CHATCLI_PLUGINS"] = "fallback,openai,anthropic,coder,print"
    call = CALL.format(path="notes.txt")
    anthropic_server.script(Reply(text=f"Reading. {call}"), Reply(text="It says 42."))
    done = run_chatcli(fb_home, "-p", "what do the notes say?", env=env)
    assert done.returncode == 0, done.stderr
    first = anthropic_server.requests[0].json
    system = "\n".join(block["text"] for block in first["system"])
    if not text_entry:  # native entries: tools through the API, the tag in text is only text
        assert [t["name"] for t in first["tools"]] and "You can use tools" not in system
        assert done.stdout.strip() == f"Reading. {call}"
        assert len(anthropic_server.requests) == 1
        return
    assert "tools" not in first and "- read: " in system  # the native entry reads text too
    assert done.stdout.strip().endswith("It says 42.")
    second = anthropic_server.requests[1].json
    assert "tools" not in second
    sent = json.dumps(second["messages"])
    assert "Result of tool read:" in sent and "the canary says 42" in sent
    assert not openai_server.requests
