"""Claude Code and Codex through the real ``chatcli`` command (a subprocess): ``-p``,
``--json``, ``-c``, the errors and their exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from claude_codex_fakes import (
    CLAUDE_MODEL,
    claude_answer,
    claude_assistant,
    claude_init,
    claude_result,
    codex_answer,
)

CHATCLI = str(Path(sys.executable).with_name("chatcli"))
SESSION = "2c4e6a8b-1d3f-4a5b-9c7d-0e1f2a3b4c5d"


def chatcli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    # the environment is the test's: isolated chatcli dirs, the fakes first on PATH
    return subprocess.run([CHATCLI, *args], input=stdin, capture_output=True, text=True,
                          timeout=60)


def test_claude_code_answers_chatcli_p(fakes) -> None:
    fakes.script("claude", {"lines": claude_answer("Hello **there**, from Claude Code.")})
    result = chatcli("-p", "say hello", "--provider", "claude-code")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello **there**, from Claude Code.\n"
    assert fakes.calls("claude")[0]["stdin"] == "say hello"


def test_codex_answers_chatcli_p_with_piped_stdin(fakes) -> None:
    fakes.script("codex", {"lines": codex_answer("Looks fine to me.")})
    result = chatcli("-p", "review this", "--provider", "codex", stdin="+print('hi')\n")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Looks fine to me.\n"
    sent = fakes.calls("codex")[0]["stdin"]
    assert sent.startswith("review this") and "+print('hi')" in sent


@pytest.mark.parametrize("name, program, lines, model", [
    ("claude-code", "claude", claude_answer("Forty-two.", SESSION), CLAUDE_MODEL),
    ("codex", "codex", codex_answer("Forty-two."), "gpt-5.5"),
])
def test_json_output_names_the_provider_the_model_and_the_usage(fakes, name, program, lines,
                                                                model) -> None:
    fakes.script(program, {"lines": lines})
    args = ["--model", "gpt-5.5"] if program == "codex" else []
    result = chatcli("-p", "the answer?", "--provider", name, "--json", *args)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["text"] == "Forty-two." and out["provider"] == name
    assert out["model"] == model and out["stop_reason"] == "end_turn"
    assert out["usage"]["output_tokens"] > 0 and out["usage"]["cache_read_tokens"] > 0


def test_chatcli_c_continues_in_claude_codes_own_session(fakes) -> None:
    fakes.script("claude", {"lines": claude_answer("First.", SESSION)},
                 {"lines": claude_answer("Second.", SESSION)})
    assert chatcli("-p", "one", "--provider", "claude-code").returncode == 0
    result = chatcli("-c", "-p", "two", "--provider", "claude-code")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Second.\n"
    second = fakes.calls("claude")[1]
    assert second["argv"][second["argv"].index("--resume") + 1] == SESSION
    assert second["stdin"] == "two"


def test_switching_provider_mid_conversation_sends_a_transcript(fakes) -> None:
    fakes.script("codex", {"lines": codex_answer("Codex first.")})
    fakes.script("claude", {"lines": claude_answer("Claude next.", SESSION)})
    assert chatcli("-p", "one", "--provider", "codex").returncode == 0
    result = chatcli("-c", "-p", "two", "--provider", "claude-code")
    assert result.returncode == 0, result.stderr
    call = fakes.calls("claude")[0]
    assert "--resume" not in call["argv"]
    assert "### Assistant (you)\nCodex first." in call["stdin"]


def test_a_logged_out_claude_is_one_line_with_the_fix_and_exit_1(fakes) -> None:
    fakes.script("claude", {"lines": [
        claude_init(SESSION),
        claude_assistant(SESSION, [{"type": "text", "text": "Not logged in · Please run /login"}],
                         model="<synthetic>", error="authentication_failed"),
        claude_result(SESSION, "Not logged in · Please run /login", is_error=True)],
        "exit": 1})
    result = chatcli("-p", "hi", "--provider", "claude-code")
    assert result.returncode == 1
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Claude Code failed: Not logged in" in lines[0] and "/login" in lines[0]
    assert "Traceback" not in result.stderr


def test_json_reports_the_error_too(fakes) -> None:
    fakes.script("codex", {"lines": [
        {"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
        {"type": "turn.failed", "error": {"message": "You've hit your usage limit."}}],
        "exit": 1})
    result = chatcli("-p", "hi", "--provider", "codex", "--json")
    assert result.returncode == 1
    out = json.loads(result.stdout)
    assert out["type"] == "RateLimitError" and "usage limit" in out["error"]


def test_not_installed_is_exit_2(fakes, monkeypatch) -> None:
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + ":/usr/bin:/bin")
    result = chatcli("-p", "hi", "--provider", "codex")
    assert result.returncode == 2
    assert "`codex` is not installed" in result.stderr and "npm install -g @openai/codex" in (
        result.stderr)
    assert "Traceback" not in result.stderr


def test_a_bad_setting_is_a_configuration_error(fakes) -> None:
    assert chatcli("config", "set", "providers.claude-code.system_prompt", "most").returncode == 0
    result = chatcli("-p", "hi", "--provider", "claude-code")
    assert result.returncode == 2
    assert "'providers.claude-code.system_prompt' must be one of user, all, none" in (
        result.stderr)


def test_tools_in_the_text_protocol_are_refused(fakes) -> None:
    # chatcli's tools would be described in the prompt and calls parsed from the answer: the
    # assistant's own words about its tools must never become chatcli tool calls
    fakes.script("claude", {"lines": claude_answer('<tool_call name="exec" args=\'{}\'/>')})
    assert chatcli("config", "set", "providers.claude-code.tool_calls", "text").returncode == 0
    result = chatcli("-p", "hi", "--provider", "claude-code")
    assert result.returncode == 2
    assert "Claude Code runs its own tools" in result.stderr
    assert "chatcli config unset providers.claude-code.tool_calls" in result.stderr
    assert fakes.calls("claude") == []


def test_the_timeout_setting_applies(fakes) -> None:
    fakes.script("claude", {"lines": [claude_init(SESSION)], "hang": True, "child": True})
    assert chatcli("config", "set", "providers.claude-code.timeout", "1").returncode == 0
    result = chatcli("-p", "hi", "--provider", "claude-code")
    assert result.returncode == 1
    assert "Claude Code printed nothing for 1s" in result.stderr


def test_models_lists_both(fakes) -> None:
    result = chatcli("models")
    assert result.returncode == 0, result.stderr
    assert "claude-code" in result.stdout and "codex" in result.stdout


def test_the_entry_module_is_light() -> None:
    # registering the providers starts nothing and imports no process machinery
    code = ("import sys; from chatcli_provider_cli import plugin; from chatcli import "
            "PluginHost; h = PluginHost(); h.register(plugin, 'p'); h.providers(); "
            "print(sorted(m for m in sys.modules if m.startswith('chatcli_provider_cli') or "
            "m in ('subprocess', 'pydantic')))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['chatcli_provider_cli', 'chatcli_provider_cli.plugin']"


def test_ctrl_c_on_chatcli_p_kills_the_assistant_and_its_tools(fakes) -> None:
    import signal
    import time

    from claude_codex_fakes import all_gone

    fakes.script("claude", {"lines": [claude_init(SESSION)], "hang": True, "child": True})
    process = subprocess.Popen([CHATCLI, "-p", "run the slow tests", "--provider",
                                "claude-code"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    while not fakes.calls("claude") and process.poll() is None:
        time.sleep(0.05)  # until claude runs (an event, not a time limit)
    process.send_signal(signal.SIGINT)  # what Ctrl+C sends to chatcli
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert all_gone(fakes.pids("claude"))
