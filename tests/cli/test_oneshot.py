"""``chatcli -p``: streaming, stdin, --json, exit codes, tools and retries (in-process)."""

from __future__ import annotations

import json
from pathlib import Path

from chatcli import ProviderSpec, Risk, TextDelta, hookimpl
from chatcli_testing import Fault, Reply, ScriptedProvider, ToolCall, scripted_plugin
from cli_support import TtyInput

USAGE = {"input_tokens": 10, "output_tokens": 4, "cache_read_tokens": 3, "cache_write_tokens": 2}


def tool_reply(name: str, args: dict) -> Reply:
    """An answer that calls tool ``name``."""
    return Reply(tool_calls=[ToolCall(name=name, arguments=args)])


class Interrupting:
    """A provider that streams ``text`` and then gets Ctrl+C (KeyboardInterrupt)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def stream(self, request):
        yield TextDelta(text=self.text)
        raise KeyboardInterrupt

    @hookimpl
    def register_providers(self, register):
        register(ProviderSpec(name="interrupting", display_name="Interrupting",
                              factory=lambda config: self, default_model="m",
                              requires_key=False))


def test_prompt_streams_the_answer_as_plain_text_when_piped(cli):
    cli.script(Reply(text="Hello **world**, from a scripted model."))
    result = cli("-p", "say hello")
    assert result.code == 0
    assert result.out == "Hello **world**, from a scripted model.\n"
    request = cli.provider.requests[0]
    assert request.messages[-1].text == "say hello"
    assert request.model == "scripted-model"


def test_piped_stdin_is_sent_after_the_prompt_in_a_fenced_block(cli):
    cli.script(Reply(text="looks fine"))
    diff = "--- a/x.py\n+++ b/x.py\n+print('hi')\n"
    result = cli("-p", "review this", stdin=diff)
    assert result.code == 0
    sent = cli.provider.requests[0].messages[-1].text
    assert sent.startswith("review this\n\n```\n")
    assert "+print('hi')" in sent
    assert sent.endswith("\n```")


def test_fence_is_longer_than_backticks_inside_stdin(cli):
    cli.script(Reply(text="ok"))
    cli("-p", "explain", stdin="```python\nx = 1\n```\n")
    sent = cli.provider.requests[0].messages[-1].text
    assert "\n````\n```python" in sent and sent.endswith("\n````")


def test_dash_reads_the_prompt_from_stdin(cli):
    cli.script(Reply(text="four"))
    result = cli("-p", "-", stdin="what is 2+2?\n")
    assert result.code == 0
    assert cli.provider.requests[0].messages[-1].text == "what is 2+2?"
    assert result.out == "four\n"


def test_no_prompt_with_piped_stdin_uses_stdin_as_prompt(cli):
    cli.script(Reply(text="pong"))
    result = cli(stdin="ping\n")
    assert result.code == 0
    assert cli.provider.requests[0].messages[-1].text == "ping"
    assert result.out == "pong\n"


def test_empty_stdin_without_prompt_is_a_usage_error(cli):
    result = cli("-p", "-", stdin="")
    assert result.code == 2
    assert result.err.count("\n") == 1 and result.err.startswith("chatcli: error: ")
    assert not cli.provider.requests


def test_system_and_model_flags_reach_the_request(cli):
    cli.script(Reply(text="arr"))
    result = cli("-p", "hi", "--system", "Talk like a pirate.", "--model", "other-model")
    assert result.code == 0
    request = cli.provider.requests[0]
    assert request.model == "other-model"
    assert "Talk like a pirate." in request.system_text()


def test_json_prints_one_object_with_usage_and_stop_reason(cli):
    cli.script(Reply(text="The answer is 42.", usage=USAGE, model="scripted-model-v2"))
    result = cli("-p", "question", "--json")
    assert result.code == 0
    payload = json.loads(result.out)
    assert payload["text"] == "The answer is 42."
    assert payload["provider"] == "scripted"
    assert payload["model"] == "scripted-model-v2"
    assert payload["stop_reason"] == "end_turn"
    assert payload["usage"] == {"input_tokens": 10, "output_tokens": 4,
                                "cache_read_tokens": 3, "cache_write_tokens": 2}
    assert result.out.count("\n") == 1


def test_provider_auth_error_is_one_line_and_exit_1(cli):
    cli.script(Fault(status=401, message="invalid API key"))
    result = cli("-p", "hi")
    assert result.code == 1
    assert result.err == ("chatcli: error: scripted: invalid API key (HTTP 401) — check the API "
                          "key\n")
    assert "Traceback" not in result.err


def test_json_error_object_carries_type_and_exit_code(cli):
    cli.script(Fault(status=401, message="invalid API key"))
    result = cli("-p", "hi", "--json")
    assert result.code == 1
    payload = json.loads(result.out)
    assert payload["error"] == "scripted: invalid API key (HTTP 401) — check the API key"
    assert payload["type"] == "AuthError"
    assert payload["stop_reason"] == "error" and payload["text"] == ""


def test_json_after_a_cut_stream_carries_the_partial_text_with_the_error(cli):
    cli.script(Fault(cut_after=2, reply=Reply(text="the partial answer")))
    result = cli("-p", "hi", "--json")
    assert result.code == 1
    payload = json.loads(result.out)
    assert payload["type"] == "StreamCutError"
    assert payload["text"] and "the partial answer".startswith(payload["text"])
    assert payload["stop_reason"] == "error"


def test_unknown_provider_is_a_usage_error_with_a_suggestion(cli):
    result = cli("-p", "hi", "--provider", "scriptd")
    assert result.code == 2
    assert result.err == "chatcli: error: unknown provider 'scriptd' — did you mean 'scripted'?\n"


def test_unknown_provider_in_json_mode(cli):
    result = cli("-p", "hi", "--provider", "nope", "--json")
    assert result.code == 2
    assert json.loads(result.out)["type"] == "UsageError"


def test_malformed_config_names_file_and_key(cli, home):
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('max_turns = "many"\n')
    result = cli("-p", "hi")
    assert result.code == 2
    assert str(config) in result.err and "'max_turns'" in result.err
    assert result.err.count("\n") == 1


def test_invalid_toml_syntax_names_the_file(cli, home):
    config = home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("provider = [unclosed\n")
    result = cli("-p", "hi")
    assert result.code == 2
    assert str(config) in result.err and "invalid TOML" in result.err


def test_bad_option_is_one_line_exit_2(cli):
    result = cli("--no-such-flag")
    assert result.code == 2
    assert result.err.startswith("chatcli: error: No such option")
    assert result.err.count("\n") == 1


def test_bad_allow_value_is_rejected(cli):
    result = cli("-p", "hi", "--allow", "read,teleport")
    assert result.code == 2
    assert "teleport" in result.err


def test_write_tool_is_denied_without_allow(cli, home):
    cli.script(tool_reply("write_note", {"path": "note.txt", "text": "hello"}),
               Reply(text="I could not write it."))
    result = cli("-p", "write a note")
    assert result.code == 0
    assert not (home / "work" / "note.txt").exists()
    assert "tool write_note(" in result.err
    assert "--allow" in result.err
    tool_message = cli.provider.requests[1].messages[-1]
    assert tool_message.tool_results[0].is_error
    assert result.out == "I could not write it.\n"


def test_write_tool_runs_with_allow(cli, home):
    cli.script(tool_reply("write_note", {"path": "note.txt", "text": "hello"}),
               Reply(text="Done."))
    result = cli("-p", "write a note", "--allow", "write")
    assert result.code == 0
    assert (home / "work" / "note.txt").read_text() == "hello"
    assert "tool write_note done" in result.err
    assert not cli.provider.requests[1].messages[-1].tool_results[0].is_error


def test_allow_all_permits_write(cli, home):
    cli.script(tool_reply("write_note", {"path": "n.txt", "text": "x"}), Reply(text="ok"))
    assert cli("-p", "go", "--allow", "all").code == 0
    assert (home / "work" / "n.txt").exists()


def test_allow_other_class_still_denies_write(cli, home):
    cli.script(tool_reply("write_note", {"path": "n.txt", "text": "x"}), Reply(text="ok"))
    result = cli("-p", "go", "--allow", "read,network")
    assert result.code == 0
    assert not (home / "work" / "n.txt").exists()
    assert "tool write_note(path=\"n.txt\", text=\"x\") not run: denied" in result.err


def test_rate_limit_retry_shows_a_status_line_then_answers(cli):
    cli.script(Fault(status=429, retry_after=0.01), Reply(text="finally"))
    result = cli("-p", "hi")
    assert result.code == 0
    assert "chatcli: rate limited, retrying in 0.0s" in result.err
    assert result.out == "finally\n"
    assert len(cli.provider.requests) == 2


def test_interrupt_keeps_the_partial_answer_and_exits_130(cli):
    cli.host.register(Interrupting("partial ans"), "interrupting")
    result = cli("-p", "long story", "--provider", "interrupting")
    assert result.code == 130
    assert result.out == "partial ans\n"
    assert "interrupted" in result.err


def test_interrupt_in_json_mode_reports_stop_reason(cli):
    cli.host.register(Interrupting("half"), "interrupting")
    result = cli("-p", "long story", "--json", "--provider", "interrupting")
    assert result.code == 130
    payload = json.loads(result.out)
    assert payload["text"] == "half" and payload["stop_reason"] == "interrupted"


def test_unexpected_exception_is_one_line_unless_debug(cli, monkeypatch):
    cli.script(ZeroDivisionError("boom"))
    result = cli("-p", "hi")
    assert result.code == 1
    assert result.err.count("\n") == 1
    assert "ZeroDivisionError: boom" in result.err and "Traceback" not in result.err
    monkeypatch.setenv("CHATCLI_DEBUG", "1")
    cli.script(ZeroDivisionError("boom"))
    result = cli("-p", "hi")
    assert "Traceback" in result.err


def test_a_plugin_raising_in_register_providers_leaves_prompt_working(cli):
    class Broken:
        @hookimpl
        def register_providers(self, register):
            raise RuntimeError("cannot start")

    cli.host.register(Broken(), "broken")
    cli.script(Reply(text="still here"))
    result = cli("-p", "hi")
    assert result.code == 0 and result.out == "still here\n"
    assert "plugin 'broken' failed in hook register_providers" in result.err
    listing = cli("plugins", "list")
    line = next(x for x in listing.out.splitlines() if x.startswith("broken"))
    assert "failed" in line and "cannot start" in line
    scripted = next(x for x in listing.out.splitlines() if x.startswith("scripted"))
    assert "loaded" in scripted and "register_providers" in scripted


def test_no_prompt_on_a_terminal_without_repl_plugin(cli):
    # (chatcli-print is registered: it answers prompts, never runs the chat)
    result = cli(stdin=TtyInput(""))
    assert result.code == 2
    assert result.err == ("chatcli: error: interactive chat needs chatcli-repl: "
                          "pip install chatcli-repl\n")


PRINT_HINT = "chatcli: error: answering a prompt needs chatcli-print: pip install chatcli-print\n"


def test_without_chatcli_print_a_prompt_is_a_usage_error_naming_it(cli):
    cli.host.unregister("print")
    cli.script(Reply(text="never asked"))
    for argv, stdin in ((("-p", "hi"), ""), ((), "piped question"), (("-p", "/help"), "")):
        result = cli(*argv, stdin=stdin)
        assert (result.code, result.out, result.err) == (2, "", PRINT_HINT), argv
    as_json = cli("--json", "-p", "hi")
    assert as_json.code == 2 and json.loads(as_json.out) == {
        "error": PRINT_HINT.removeprefix("chatcli: error: ").strip(), "type": "UsageError"}
    assert cli.provider.requests == []  # nothing reached the model


def test_the_repl_does_not_answer_a_prompt(cli):
    from chatcli_repl import plugin as repl_plugin

    cli.host.unregister("print")
    cli.host.register(repl_plugin, "repl")
    for argv, stdin in ((("-p", "hi"), ""), ((), "piped question")):
        result = cli(*argv, stdin=stdin)
        assert (result.code, result.out, result.err) == (2, "", PRINT_HINT), argv


def test_cmdline_main_gets_the_p_text_as_given_and_stdin_unread(cli):
    # chatcli-print reads stdin; the kernel hands over the -p text alone (bad bytes replaced)
    import sys

    seen = {}

    class FrontEnd:
        @hookimpl
        def cmdline_main(self, host, settings, options, prompt):
            seen.update(prompt=prompt, stdin=sys.stdin.read())
            return 0

    cli.host.unregister("print")
    cli.host.register(FrontEnd(), "front-end")
    for argv, prompt in ((("-p", "review"), "review"), (("-p", "-"), "-"), ((), None),
                         (("-p", "caf\udce9"), "caf\ufffd"), (("-p", ""), "")):
        assert cli(*argv, stdin="a diff\n").code == 0, argv
        assert seen == {"prompt": prompt, "stdin": "a diff\n"}, argv
    assert cli.provider.requests == []


def test_no_prompt_on_a_terminal_calls_cmdline_main_without_a_prompt(cli):
    seen = {}

    class Repl:
        @hookimpl
        def cmdline_main(self, host, settings, options, prompt):
            seen.update(options=options, host=host, settings=settings, prompt=prompt)
            return 7

    cli.host.register(Repl(), "repl")
    result = cli("--model", "m2", "-c", "--allow", "write", stdin=TtyInput(""))
    assert result.code == 7
    options = seen["options"]
    assert options.model == "m2" and options.continue_last is True
    assert options.allow == {Risk.WRITE} and seen["host"] is cli.host and seen["prompt"] is None
    assert seen["settings"].model == "m2"
    assert seen["settings"].model == "m2"


def test_resume_goes_through_open_conversation(cli):
    from chatcli import Conversation, Message

    calls = []

    class Sessions:
        @hookimpl
        def open_conversation(self, settings, resume, continue_last):
            calls.append((resume, continue_last))
            conversation = Conversation(id="s_old")
            conversation.append(Message.user("earlier question"))
            conversation.append(Message.assistant("earlier answer"))
            return conversation

    cli.host.register(Sessions(), "sessions")
    cli.script(Reply(text="follow-up answer"))
    result = cli("-p", "and then?", "--resume", "s_old", "--json")
    assert result.code == 0
    assert calls == [("s_old", False)]
    sent = [m.text for m in cli.provider.requests[0].messages]
    assert sent == ["earlier question", "earlier answer", "and then?"]
    assert json.loads(result.out)["conversation_id"] == "s_old"


def test_open_conversation_usage_error_propagates(cli):
    from chatcli import UsageError

    class Sessions:
        @hookimpl
        def open_conversation(self, settings, resume, continue_last):
            raise UsageError(f"no session matches '{resume}'", "see `chatcli sessions list`")

    cli.host.register(Sessions(), "sessions")
    result = cli("-p", "hi", "--resume", "zzz")
    assert result.code == 2
    assert result.err == ("chatcli: error: no session matches 'zzz' — see `chatcli sessions "
                          "list`\n")


def test_continue_without_a_session_store_says_what_to_install(cli):
    result = cli("-p", "hi", "-c")
    assert result.code == 2
    assert "chatcli-sessions" in result.err


def test_plugin_click_commands_are_added(cli):
    import click

    class Extra:
        @hookimpl
        def register_commands(self, cli):
            @cli.command("hello")
            def hello():
                """Say hello."""
                click.echo("hello from a plugin")

    cli.host.register(Extra(), "extra")
    assert cli("hello").out == "hello from a plugin\n"
    assert "hello" in cli("--help").out


def test_markdown_on_a_terminal_uses_the_renderer_when_present(cli, monkeypatch):
    import io
    import sys

    class TtyOut(io.StringIO):
        def isatty(self):
            return True

    fake = TtyOut()
    monkeypatch.setattr(sys, "stdout", fake)
    cli.script(Reply(text="# Title\n\nSome *text*.\n"))
    result = cli("-p", "hi")
    assert result.code == 0
    shown = fake.getvalue()
    assert "Title" in shown and "text" in shown
    assert "# Title" not in shown  # rendered, not raw markdown


def test_raw_on_a_terminal_prints_the_markdown_source(cli, monkeypatch):
    import io
    import sys

    class TtyOut(io.StringIO):
        def isatty(self):
            return True

    fake = TtyOut()
    monkeypatch.setattr(sys, "stdout", fake)
    cli.script(Reply(text="# Title\n"))
    assert cli("-p", "hi", "--raw").code == 0
    assert fake.getvalue() == "# Title\n"


def test_provider_chosen_by_config(cli, home):
    other = ScriptedProvider([Reply(text="from the other one")], name="second")
    cli.host.register(scripted_plugin(other, name="second"), "second")
    assert cli("config", "set", "provider", "second").code == 0
    result = cli("-p", "hi")
    assert result.out == "from the other one\n"
    assert not cli.provider.requests
    assert Path(home / "config" / "config.toml").read_text() == 'provider = "second"\n'


def test_words_without_p_suggest_the_prompt_flag(cli):
    result = cli("what", "is", "up")
    assert result.code == 2
    assert 'chatcli -p "what is up"' in result.err and result.err.count("\n") == 1
    assert not cli.provider.requests


def test_text_before_a_tool_call_is_kept_and_the_answer_follows(cli):
    call = ToolCall(name="write_note", arguments={"path": "a", "text": "b"})
    cli.script(Reply(text="Let me write it.", tool_calls=[call]), Reply(text="Written."))
    result = cli("-p", "note", "--allow", "write")
    assert result.code == 0
    assert result.out == "Let me write it.\nWritten.\n"


def test_stream_cut_after_text_keeps_partial_and_exits_1(cli):
    cli.script(Fault(cut_after=2, reply=Reply(text="abcdefghijkl")))
    result = cli("-p", "hi")
    assert result.code == 1
    assert result.out == "abcdefgh\n"
    assert result.err.startswith("chatcli: error: ") and "ended early" in result.err


def test_an_option_taken_as_the_prompt_is_refused_not_sent(cli):
    for option in ("--help", "--raw", "-c", "--json"):
        result = cli("-p", option)
        assert result.code == 2, option
        assert result.err.startswith(f"chatcli: error: -p took '{option}' as the prompt")
        assert result.err.count("\n") == 1
    assert cli.provider.requests == []
    cli.script(Reply(text="fine"))
    assert cli("-p", "--verbose is not one of ours").out == "fine\n"


def test_an_answer_cut_at_max_tokens_is_kept_and_named(cli):
    cli.script(Reply(text="The first half", stop_reason="max_tokens"))
    result = cli("-p", "a long answer")
    assert result.code == 0 and result.out == "The first half\n"
    assert ("chatcli: the answer was cut at max_tokens (raise it with "
            "`chatcli config set max_tokens 8192`)") in result.err


def test_chatcli_help_imports_none_of_the_answers_code(home):
    """chatcli-print's entry module is all `--help` may import: not the session, the renderer
    or rich."""
    import os
    import subprocess
    import sys

    code = ("import sys; sys.argv = ['chatcli', '--help']\n"
            "from chatcli_cli.root import run\n"
            "code = run()\n"
            "import chatcli_print.plugin\n"
            "heavy = sorted(m for m in sys.modules if m.startswith(('chatcli_print.oneshot', "
            "'chatcli_render', 'rich', 'markdown_it', 'pygments')))\n"
            "print('HEAVY', heavy, code)")
    env = {**os.environ, "CHATCLI_PLUGINS": "print", "CHATCLI_CONFIG_DIR": str(home / "config"),
           "CHATCLI_DATA_DIR": str(home / "data"), "CHATCLI_CACHE_DIR": str(home / "cache")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, env=env)
    assert done.stdout.strip().endswith("HEAVY [] 0"), done.stdout + done.stderr
