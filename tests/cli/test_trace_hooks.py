"""--trace-hooks and CHATCLI_TRACE_HOOKS print every hook call and its result on stderr
(pluggy's tracing), and leave stdout to the answer."""

from __future__ import annotations

import pytest
from chatcli_testing import Reply
from cli_support import CHATCLI, openai_env, run_process


@pytest.mark.parametrize("how", ["flag", "variable"])
def test_hook_tracing_shows_the_calls_of_a_turn(home, openai_server, how):
    openai_server.script(Reply(text="traced answer"))
    flag = ["--trace-hooks"] if how == "flag" else []
    extra = {} if how == "flag" else {"CHATCLI_TRACE_HOOKS": "1"}
    done = run_process([CHATCLI, "-p", "hi", "--provider", "openai", "--model", "m", *flag],
                       home, CHATCLI_PLUGINS="openai,print", **openai_env(openai_server), **extra)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "traced answer\n"
    for hook in ("configure", "session_start", "prompt_sections", "before_request",
                 "message_appended", "after_response", "session_end"):
        assert f"{hook} [hook]" in done.stderr, hook
    assert "finish register_providers -->" in done.stderr


def test_no_tracing_by_default(home, openai_server):
    openai_server.script(Reply(text="quiet"))
    done = run_process([CHATCLI, "-p", "hi", "--provider", "openai", "--model", "m"], home,
                       CHATCLI_PLUGINS="openai,print", **openai_env(openai_server))
    assert done.returncode == 0 and done.stderr == ""
