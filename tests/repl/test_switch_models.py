"""/switch completes PROVIDER/MODEL in a real terminal (tmux): the models chatcli knows at once,
and those the provider's service lists (fetched in the background the first time, then kept for
the session), without blocking what is typed meanwhile."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chatcli_testing import Reply

from .terminal import Terminal, wait_until

pytestmark = pytest.mark.terminal


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def test_switch_completes_the_models_the_service_lists(start_chat: Callable[..., Terminal],
                                                       openai_server) -> None:
    openai_server.models = ["gpt-remote-one", "gpt-remote-two"]
    openai_server.script(Reply(text="from the listed model"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.send("-l", "/switch openai/gpt-remote")
    screen = term.wait_for("openai/gpt-remote-two")
    assert "openai/gpt-remote-one" in screen
    lists = [r for r in openai_server.requests if r.path == "/v1/models"]
    assert len(lists) == 1
    term.send("C-u")  # a second completion uses what was fetched: no new request
    term.send("-l", "/switch openai/gpt-remote-o")
    term.wait_for("openai/gpt-remote-one")
    term.send("Tab")
    term.send("Enter")
    term.wait_for("now using openai/gpt-remote-one")
    term.type("hello")
    term.wait_for("from the listed model")
    assert openai_server.requests[-1].json["model"] == "gpt-remote-one"
    assert len([r for r in openai_server.requests if r.path == "/v1/models"]) == 1


def test_known_models_complete_at_once_and_a_provider_without_key_breaks_nothing(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.send("-l", "/switch mistral/mistral-l")  # no MISTRAL_API_KEY: its list cannot come
    term.wait_for("mistral/mistral-large-latest")
    term.send("C-u")
    term.send("-l", "/switch xai/")
    term.wait_for("xai/grok-4.3")
    term.send("C-u")
    term.type("/model")
    term.wait_for("using openai/")


def test_typing_goes_on_while_the_list_is_still_coming(start_chat: Callable[..., Terminal],
                                                       openai_server) -> None:
    import threading

    gate = threading.Event()
    openai_server.models_gate = gate  # the server holds its answer to GET /v1/models
    openai_server.models = ["gpt-slow-one"]
    try:
        term = start_chat("--provider", "openai", **openai_env(openai_server))
        term.send("-l", "/switch openai/")
        wait_until(lambda: any(r.path == "/v1/models" for r in openai_server.requests))
        term.send("-l", "gpt-sl")  # typed while the listing is held open
        screen = term.wait_for("› /switch openai/gpt-sl")
        assert "gpt-slow-one" not in screen and not gate.is_set()
        gate.set()
        term.wait_for("openai/gpt-slow-one")  # the menu shows it once it has come
    finally:
        gate.set()
        openai_server.models_gate = None


def test_switch_to_a_model_the_service_does_not_list_warns_with_the_closest_names(
        start_chat: Callable[..., Terminal], openai_server) -> None:
    openai_server.models = ["gpt-remote-one", "gpt-remote-two", "o9-mini"]
    openai_server.script(Reply(text="answered anyway"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    # typing "openai/" starts fetching the list (completion); /switch waits for it
    term.type("/switch openai/gpt-remote-tow")
    screen = term.wait_for("does not list")
    assert ("⚠ openai does not list a model 'gpt-remote-tow' — closest: gpt-remote-two, "
            "gpt-remote-one (using it anyway)") in screen
    assert "now using openai/gpt-remote-tow" in screen  # the switch stands
    term.type("/model gpt-remote-one")  # a listed model: no warning
    screen = term.wait_for("now using openai/gpt-remote-one")
    assert screen.count("does not list") == 1
    term.type("/model zzzzzz")  # nothing close: how to see the list
    term.wait_for("⚠ openai does not list a model 'zzzzzz' — /switch openai/ and Tab lists "
                  "its ")
    assert len([r for r in openai_server.requests if r.path == "/v1/models"]) == 1
