"""``response_timeout`` bounds the whole wait for an answer to start, across retries, and the
silence inside a streaming answer — whatever the provider's own HTTP timeout is."""

from __future__ import annotations

import time

import pytest
from chatcli_testing import Fault, Reply
from cli_support import CHATCLI, openai_env, run_process


def ask(home, server, *flags: str, timeout: str = "2", **env: str):
    start = time.monotonic()
    done = run_process([CHATCLI, "-p", "hi", "--provider", "openai", "--model", "m", *flags],
                       home, CHATCLI_PLUGINS="openai,print", CHATCLI_RESPONSE_TIMEOUT=timeout,
                       **openai_env(server), **env)
    return done, time.monotonic() - start


@pytest.mark.parametrize("fault", [Fault(stall=60), Fault(stall=60, keepalive=0.2)],
                         ids=["silent", "keep-alive drip"])
def test_a_server_that_never_answers_is_given_up_on_after_response_timeout(home, openai_server,
                                                                           fault):
    # Each attempt would wait 120 s (the provider's timeout) and be retried 3 times.
    openai_server.script(fault, fault, fault, fault)
    done, seconds = ask(home, openai_server)
    assert done.returncode == 1
    assert done.stderr == "chatcli: error: openai sent no answer in 2s — try again, or raise " \
                          "response_timeout (`chatcli config set response_timeout 300`)\n"
    assert seconds < 10
    assert len(openai_server.requests) == 1  # the wait is spent: no retry


def test_retries_stop_when_their_wait_would_pass_the_deadline(home, openai_server):
    openai_server.script(*[Fault(status=503, retry_after=1.5)] * 4)
    done, seconds = ask(home, openai_server, timeout="2.5")
    assert done.returncode == 1 and "HTTP 503" in done.stderr
    assert len(openai_server.requests) == 2  # 0 s and 1.5 s; a third would start at 3 s
    assert seconds < 8


def test_silence_in_the_middle_of_an_answer_ends_it_and_keeps_what_arrived(home, openai_server):
    openai_server.script(Reply(text="first part, then a long silence", chunk_size=11, delay=30))
    done, seconds = ask(home, openai_server, "--json", timeout="1.5")
    assert done.returncode == 1
    assert '"text": "first part,' in done.stdout
    assert "went silent for 1.5s in the middle of the answer" in done.stderr
    assert seconds < 10


def test_a_slow_but_steady_answer_is_not_cut(home, openai_server):
    openai_server.script(Reply(text="a" * 12, chunk_size=1, delay=0.25))  # 3 s in all
    done, _ = ask(home, openai_server, timeout="1")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "a" * 12 + "\n"
