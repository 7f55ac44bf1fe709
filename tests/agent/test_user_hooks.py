"""User hooks through the real command line, with real shell scripts written by the tests.

Each script records the JSON it got on stdin (one line per run) and answers with an exit code,
stderr or a JSON reply, as Claude Code's hooks do. The model is the OpenAI wire server, scripted
to call small test tools; what is checked is what the model is sent (results, denials, added
context), what the user is told on stderr, and what the scripts received.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from chatcli_testing import Reply, ToolCall

CHATCLI = str(Path(sys.executable).with_name("chatcli"))

#: ``touch`` (read risk, so it runs without approval) creates a file; ``exec`` and ``read``
#: stand in for the coder tools under the names Claude Code's hooks are mapped to; ``save`` is
#: a write tool (it needs approval); ``fail`` raises.
TOOLS = '''
from pathlib import Path
from pydantic import BaseModel
from chatcli import Risk, Tool, hookimpl

class PathArgs(BaseModel):
    path: str

class Command(BaseModel):
    command: str

def touch(args, context):
    Path(args.path).write_text("touched")
    return f"created {args.path}"

def fail(args, context):
    raise RuntimeError("disk full")

@hookimpl
def register_tools(register):
    register(Tool(name="touch", description="create a file", args_model=PathArgs,
                  risk=Risk.READ, run=touch))
    register(Tool(name="save", description="save a file", args_model=PathArgs,
                  risk=Risk.WRITE, run=touch))
    register(Tool(name="read", description="read a file", args_model=PathArgs,
                  risk=Risk.READ, run=lambda args, context: "file text"))
    register(Tool(name="exec", description="run a command", args_model=Command,
                  risk=Risk.READ, run=lambda args, context: f"ran {args.command}"))
    register(Tool(name="fail", description="always fails", args_model=PathArgs,
                  risk=Risk.READ, run=fail))
'''


class Env:
    """A home, a workspace, a test tool plugin, and ways to write hooks and run chatcli."""

    def __init__(self, root: Path, server: Any) -> None:
        self.root = root
        self.server = server
        self.home = root / "home"
        (self.home / "config").mkdir(parents=True)
        (self.home / "data").mkdir()
        self.work = root / "work"
        self.work.mkdir()
        self.scripts = root / "scripts"
        self.scripts.mkdir()
        site = root / "site"
        (site / "hooktools_plugin").mkdir(parents=True)
        (site / "hooktools_plugin" / "__init__.py").write_text(textwrap.dedent(TOOLS))
        info = site / "hooktools_plugin-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hooktools\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text("[chatcli.plugins]\nhooktools = hooktools_plugin\n")
        self.site = site
        self.config = self.home / "config" / "config.toml"

    def script(self, name: str, body: str) -> Path:
        """A shell script that appends its stdin (one JSON line) to ``NAME.jsonl``, then runs
        ``body``."""
        path = self.scripts / f"{name}.sh"
        log = self.scripts / f"{name}.jsonl"
        path.write_text(f"#!/bin/sh\n{{ cat; echo; }} >> '{log}'\n{textwrap.dedent(body)}\n")
        path.chmod(0o755)
        return path

    def payloads(self, name: str) -> list[dict[str, Any]]:
        log = self.scripts / f"{name}.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]

    def hooks(self, text: str) -> None:
        """Write the user's config.toml."""
        self.config.write_text(textwrap.dedent(text))

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return self.cli(*args, "--provider", "openai", "--model", "m", **extra)

    def cli(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        """``chatcli ARGS`` in the workspace (no provider flags: ``chatcli trust …``)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("CHATCLI_", "OPENAI_", "ANTHROPIC_", "CLAUDE_"))}
        env.update(CHATCLI_CONFIG_DIR=str(self.home / "config"),
                   CHATCLI_DATA_DIR=str(self.home / "data"), HOME=str(self.home),
                   OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=self.server.url,
                   PYTHONPATH=str(self.site),
                   CHATCLI_PLUGINS="openai,user-hooks,hooktools,admin,print",
                   **extra)
        return subprocess.run([CHATCLI, *args],
                              capture_output=True, text=True, env=env, cwd=self.work,
                              timeout=60, stdin=subprocess.DEVNULL)


@pytest.fixture
def env(tmp_path: Path, openai_server: Any) -> Env:
    return Env(tmp_path, openai_server)


def tool_results(request: Any) -> list[str]:
    return [m["content"] for m in request.json["messages"] if m["role"] == "tool"]


def system_of(request: Any) -> str:
    """The system prompt, with the volatile sections that follow the history."""
    from session_harness import system_of as read

    return read(request)


def calls(*tool_calls: ToolCall) -> Reply:
    return Reply(tool_calls=list(tool_calls))


# ------------------------------------------------------------------ PreToolUse


def test_pre_tool_use_exit_2_denies_the_call_with_the_hooks_stderr_for_the_model(
        env: Env, openai_server: Any) -> None:
    guard = env.script("guard", "echo 'touching is not allowed here' >&2\nexit 2")
    env.hooks(f"""
        [[hooks.PreToolUse]]
        matcher = "touch|save"
        command = "{guard}"
        timeout = 10
    """)
    target = env.work / "made.txt"
    openai_server.script(calls(ToolCall("touch", {"path": str(target)})), Reply(text="ok"))
    done = env.run("-p", "make a file", "--json")
    assert done.returncode == 0, done.stderr
    assert not target.exists()  # the tool never ran
    assert tool_results(openai_server.requests[1]) == [
        "Error: denied: touching is not allowed here"]
    assert "not run: denied: touching is not allowed here" in done.stderr

    # the payload, as Claude Code sends it
    (payload,) = env.payloads("guard")
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["session_id"] == json.loads(done.stdout)["conversation_id"]
    assert payload["cwd"] == str(env.work.resolve())
    assert payload["tool_name"] == "touch"
    assert payload["tool_input"] == {"path": str(target)}
    assert payload["tool_use_id"]


def test_a_json_reply_denies_or_asks_but_never_allows_past_the_policy(
        env: Env, openai_server: Any) -> None:
    log = env.scripts / "reply.jsonl"
    reply = env.script("reply", f"""
        case "$(tail -1 '{log}')" in
          *'"tool_name": "touch"'*) echo '{{"hookSpecificOutput": {{"hookEventName":
            "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason":
            "not today"}}}}';;
          *'"tool_name": "read"'*) echo '{{"hookSpecificOutput": {{"permissionDecision":
            "ask", "permissionDecisionReason": "a person should look"}}}}';;
          *) echo '{{"hookSpecificOutput": {{"permissionDecision": "allow"}}}}';;
        esac
    """)
    env.hooks(f"""
        [[hooks.PreToolUse]]
        command = "{reply}"
    """)
    target = env.work / "saved.txt"
    openai_server.script(
        calls(ToolCall("touch", {"path": "x"}), ToolCall("read", {"path": "r"}),
              ToolCall("save", {"path": str(target)}), ToolCall("exec", {"command": "ls"})),
        Reply(text="ok"))
    done = env.run("-p", "go")
    assert done.returncode == 0, done.stderr
    touch, read, save, execute = tool_results(openai_server.requests[1])
    assert touch == "Error: denied: not today"
    # "ask" in a run where nobody can be asked is a denial, saying why
    assert read.startswith("Error: denied: read tools need the user's approval")
    assert "a person should look" in read
    # "allow" does not lift the approval a write tool needs: hooks only make things stricter
    assert save.startswith("Error: denied: write tools need the user's approval")
    assert not target.exists()
    assert execute == "ran ls"  # allowed anyway (a read tool), and allow changed nothing
    assert [p["tool_name"] for p in env.payloads("reply")] == ["touch", "read", "save", "exec"]


def test_other_exit_codes_are_reported_in_one_line_and_do_not_block(
        env: Env, openai_server: Any) -> None:
    broken = env.script("broken", "echo 'oops: config missing' >&2\nexit 1")
    env.hooks(f"""
        [[hooks.PreToolUse]]
        command = "{broken}"
    """)
    target = env.work / "made.txt"
    openai_server.script(calls(ToolCall("touch", {"path": str(target)})), Reply(text="ok"))
    done = env.run("-p", "go")
    assert done.returncode == 0
    assert target.exists()
    lines = [line for line in done.stderr.splitlines() if "hook" in line]
    assert len(lines) == 1
    assert lines[0].startswith("chatcli: hook PreToolUse `")
    assert lines[0].endswith("/broken.sh` failed (exit 1): oops: config missing")


def test_a_matcher_picks_the_tools_a_hook_runs_for(env: Env, openai_server: Any) -> None:
    seen = env.script("seen", "exit 0")
    env.hooks(f"""
        [[hooks.PreToolUse]]
        matcher = "exec|edit"
        command = "{seen}"
    """)
    openai_server.script(calls(ToolCall("read", {"path": "a"}), ToolCall("exec",
                                                                        {"command": "ls"})),
                         Reply(text="ok"))
    assert env.run("-p", "go").returncode == 0
    assert [p["tool_name"] for p in env.payloads("seen")] == ["exec"]


def test_a_hook_that_hangs_is_killed_with_its_children_at_its_timeout(
        env: Env, openai_server: Any) -> None:
    pid_file = env.scripts / "child.pid"
    hang = env.script("hang", f"sleep 60 &\necho $! > '{pid_file}'\nsleep 60")
    env.hooks(f"""
        [[hooks.PreToolUse]]
        command = "{hang}"
        timeout = 1
    """)
    target = env.work / "made.txt"
    openai_server.script(calls(ToolCall("touch", {"path": str(target)})), Reply(text="done"))
    started = time.monotonic()
    done = env.run("-p", "go")
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert took < 15
    assert done.stdout == "done\n" and target.exists()  # reported, not blocking
    assert "/hang.sh` timed out after 1s and was killed" in done.stderr
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(child):
        time.sleep(0.1)
    assert not _alive(child)  # the background sleep went with it (the process group)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split()[2] == "Z")


def test_a_hook_that_cannot_run_is_reported(env: Env, openai_server: Any) -> None:
    env.hooks("""
        [[hooks.PreToolUse]]
        command = "/no/such/hook-script"
    """)
    openai_server.script(calls(ToolCall("exec", {"command": "ls"})), Reply(text="ok"))
    done = env.run("-p", "go")
    assert done.returncode == 0
    assert tool_results(openai_server.requests[1]) == ["ran ls"]
    assert "chatcli: hook PreToolUse `/no/such/hook-script` failed (exit 127)" in done.stderr


# ------------------------------------------------------------------ after a call


def test_post_tool_use_gets_the_response_and_its_exit_2_reaches_the_model(
        env: Env, openai_server: Any) -> None:
    post = env.script("post", "echo 'lint: made.txt has no newline at the end' >&2\nexit 2")
    failed = env.script("failed", "exit 0")
    env.hooks(f"""
        [[hooks.PostToolUse]]
        matcher = "touch"
        command = "{post}"

        [[hooks.PostToolUseFailure]]
        command = "{failed}"
    """)
    target = env.work / "made.txt"
    openai_server.script(calls(ToolCall("touch", {"path": str(target)}),
                               ToolCall("fail", {"path": "x"})),
                         Reply(text="noted"), Reply(text="next"))
    assert env.run("-p", "go").returncode == 0
    assert target.exists()
    (payload,) = env.payloads("post")
    assert payload["hook_event_name"] == "PostToolUse"
    assert payload["tool_input"] == {"path": str(target)}
    assert payload["tool_response"] == f"created {target}"
    (failure,) = env.payloads("failed")
    assert failure["hook_event_name"] == "PostToolUseFailure" and failure["tool_name"] == "fail"
    assert "disk full" in failure["error"]
    # the hook's stderr goes to the model with the next step, once
    system = system_of(openai_server.requests[1])
    assert "[PostToolUse hook on touch] lint: made.txt has no newline at the end" in system
    assert "lint:" not in system_of(openai_server.requests[0])


def test_a_call_that_was_refused_gets_no_post_tool_use(env: Env, openai_server: Any) -> None:
    post = env.script("post", "exit 0")
    env.hooks(f"""
        [[hooks.PostToolUse]]
        command = "{post}"
        [[hooks.PostToolUseFailure]]
        command = "{post}"
    """)
    openai_server.script(calls(ToolCall("save", {"path": "x"})), Reply(text="ok"))
    assert env.run("-p", "go").returncode == 0  # save needs approval: refused in -p
    assert env.payloads("post") == []


# ------------------------------------------------------------------ prompts and sessions


def test_user_prompt_submit_and_session_start_add_context_for_the_model(
        env: Env, openai_server: Any) -> None:
    start = env.script("start", "echo 'The project uses tabs.'")
    prompt = env.script("prompt", "echo 'Ticket ABC-12 is open.'")
    end = env.script("end", "exit 0")
    env.hooks(f"""
        [[hooks.SessionStart]]
        command = "{start}"
        [[hooks.UserPromptSubmit]]
        command = "{prompt}"
        [[hooks.SessionEnd]]
        command = "{end}"
    """)
    openai_server.script(calls(ToolCall("read", {"path": "a"})), Reply(text="ok"))
    done = env.run("-p", "what is open?", "--json")
    assert done.returncode == 0, done.stderr
    for request in openai_server.requests:  # every model call of the turn
        system = system_of(request)
        assert "Context from the user's SessionStart hooks:\nThe project uses tabs." in system
        assert "Context from the user's UserPromptSubmit hooks:\nTicket ABC-12 is open." in system
    session_id = json.loads(done.stdout)["conversation_id"]
    (started,) = env.payloads("start")
    assert started == {"session_id": session_id, "cwd": str(env.work.resolve()),
                       "hook_event_name": "SessionStart", "source": "startup"}
    (submitted,) = env.payloads("prompt")
    assert submitted["prompt"] == "what is open?"
    assert submitted["hook_event_name"] == "UserPromptSubmit"
    (ended,) = env.payloads("end")
    assert ended["hook_event_name"] == "SessionEnd" and ended["session_id"] == session_id


def test_a_prompt_blocked_by_its_hook_runs_no_tool(env: Env, openai_server: Any) -> None:
    block = env.script("block", "echo 'prompts about prod are blocked' >&2\nexit 2")
    env.hooks(f"""
        [[hooks.UserPromptSubmit]]
        command = "{block}"
    """)
    target = env.work / "prod.txt"
    openai_server.script(calls(ToolCall("touch", {"path": str(target)})), Reply(text="blocked"))
    done = env.run("-p", "deploy to prod")
    assert done.returncode == 0
    assert not target.exists()
    assert "no tool runs in this turn" in tool_results(openai_server.requests[1])[0]
    assert "prompts about prod are blocked" in system_of(openai_server.requests[0])
    assert "a UserPromptSubmit hook blocked the prompt: prompts about prod are blocked" in (
        done.stderr)


def test_stop_runs_after_the_final_answer_only(env: Env, openai_server: Any) -> None:
    stop = env.script("stop", "exit 0")
    env.hooks(f"""
        [[hooks.Stop]]
        command = "{stop}"
    """)
    openai_server.script(calls(ToolCall("read", {"path": "a"})),
                         calls(ToolCall("read", {"path": "b"})), Reply(text="the end"))
    assert env.run("-p", "go").returncode == 0
    (payload,) = env.payloads("stop")  # three model calls, one final answer
    assert payload["hook_event_name"] == "Stop" and payload["stop_hook_active"] is False


# ------------------------------------------------------------------ Claude Code's settings


def test_claude_settings_json_hooks_run_with_claude_tool_names(
        env: Env, openai_server: Any) -> None:
    bash = env.script("bash", "echo 'no shell today' >&2\nexit 2")
    reads = env.script("reads", "exit 0")
    (env.home / ".claude").mkdir()
    (env.home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": str(bash),
                                           "timeout": 5}]},
            {"matcher": "Read|Edit", "hooks": [{"type": "command", "command": str(reads)}]},
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "true"}]}],
    }}))
    openai_server.script(calls(ToolCall("exec", {"command": "rm x"}),
                               ToolCall("read", {"path": "a.txt"})), Reply(text="ok"))
    done = env.run("-p", "go")
    assert done.returncode == 0, done.stderr
    assert tool_results(openai_server.requests[1]) == ["Error: denied: no shell today",
                                                       "file text"]
    (bash_payload,) = env.payloads("bash")
    assert bash_payload["tool_name"] == "Bash"
    assert bash_payload["tool_input"] == {"command": "rm x"}
    (read_payload,) = env.payloads("reads")
    assert read_payload["tool_name"] == "Read"
    assert read_payload["tool_input"]["file_path"] == "a.txt"


def test_project_hooks_run_only_when_the_user_trusts_the_project(
        env: Env, openai_server: Any) -> None:
    project = env.script("project", "echo 'project says no' >&2\nexit 2")
    (env.work / ".claude").mkdir()
    (env.work / ".claude" / "settings.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "", "hooks": [{"type": "command", "command": str(project)}]}]}}))
    (env.work / ".chatcli").mkdir()
    (env.work / ".chatcli" / "config.toml").write_text(textwrap.dedent(f"""
        [hooks]
        trust_project = true  # a project cannot trust itself

        [[hooks.PreToolUse]]
        command = "{project}"
    """))
    openai_server.script(calls(ToolCall("read", {"path": "a"})), Reply(text="ok"))
    done = env.run("-p", "go")
    assert done.returncode == 0
    assert env.payloads("project") == []
    assert tool_results(openai_server.requests[1]) == ["file text"]
    notes = [line for line in done.stderr.splitlines() if "trust" in line]
    assert len(notes) == 1  # the kernel's one line, naming both files and `chatcli trust`
    assert ".chatcli/config.toml (hooks.PreToolUse)" in notes[0], notes
    assert ".claude/settings.json" in notes[0] and "`chatcli trust`" in notes[0]

    env.hooks("[hooks]\ntrust_project = true\n")  # the setting that trusted before: no more
    openai_server.script(calls(ToolCall("read", {"path": "a"})), Reply(text="ok"))
    assert "not trusted" in env.run("-p", "go").stderr
    assert env.payloads("project") == []

    trusting = env.cli("trust", "--yes")
    assert trusting.returncode == 0, trusting.stderr
    openai_server.script(calls(ToolCall("read", {"path": "a"})), Reply(text="ok"))
    trusted = env.run("-p", "go")
    assert "not trusted" not in trusted.stderr
    assert len(env.payloads("project")) == 1  # one command, configured twice: run once
    assert tool_results(openai_server.requests[-1]) == ["Error: denied: project says no"]

    # a change to a hooks file after trust: ignored again
    (env.work / ".claude" / "settings.json").write_text(json.dumps({"hooks": {}}))
    openai_server.script(calls(ToolCall("read", {"path": "a"})), Reply(text="ok"))
    changed = env.run("-p", "go")
    assert "changed since you trusted it" in changed.stderr
    assert len(env.payloads("project")) == 1
    assert tool_results(openai_server.requests[-1]) == ["file text"]


def test_configuration_mistakes_are_reported_by_name(env: Env, openai_server: Any) -> None:
    env.hooks("""
        [[hooks.PreToolUze]]
        command = "true"

        [[hooks.PostToolUse]]
        matcher = "exec("
        command = "true"

        [[hooks.Stop]]
        timeout = 5
    """)
    openai_server.script(Reply(text="ok"))
    done = env.run("-p", "go")
    assert done.returncode == 0
    assert "unknown event 'PreToolUze'" in done.stderr
    assert "the matcher 'exec(' is not a valid regex" in done.stderr
    assert "hooks.Stop[0] has no command" in done.stderr


# ------------------------------------------------------------------ compaction (in process)


def test_pre_and_post_compact_hooks_run_when_compaction_calls_its_hooks(
        tmp_path: Path, chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from chatcli import Conversation, PluginHost, load_settings, user_config_path
    from chatcli_agent.user_hooks import plugin

    log = tmp_path / "compact.jsonl"
    script = tmp_path / "compact.sh"
    script.write_text(f"#!/bin/sh\n{{ cat; echo; }} >> '{log}'\n")
    script.chmod(0o755)
    user_config_path().write_text(textwrap.dedent(f"""
        [[hooks.PreCompact]]
        command = "{script}"
        [[hooks.PostCompact]]
        command = "{script}"
    """))
    monkeypatch.setenv("HOME", str(tmp_path))
    host = PluginHost()
    host.register(plugin, "user-hooks")
    host.configure(load_settings(), tmp_path)
    conversation = Conversation()
    # the hooks themselves, called by pluggy (the next test has the kernel call them)
    host.pm.hook.view_changed(conversation=conversation, reason="compacting", strategy="summary",
                              removed=0)
    host.pm.hook.view_changed(conversation=conversation, reason="compact", strategy="summary",
                              removed=12)
    host.pm.hook.view_changed(conversation=conversation, reason="undo", strategy="", removed=0)
    before, after = (json.loads(line) for line in log.read_text().splitlines() if line)
    assert before == {"session_id": conversation.id, "cwd": str(tmp_path),
                      "hook_event_name": "PreCompact", "trigger": "auto",
                      "custom_instructions": "", "strategy": "summary"}
    assert after["hook_event_name"] == "PostCompact" and after["removed"] == 12


def test_pre_and_post_compact_hooks_fire_when_the_kernel_compacts(
        tmp_path: Path, chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel calls view_changed ("compacting", "compact") itself: a real ``/compact`` on a
    Session (the compaction plugin's strategies, the scripted model writing the summary) fires the
    user's PreCompact for each strategy that runs and PostCompact for each compaction made."""
    from chatcli import Message, PluginHost, Session, load_settings, user_config_path
    from chatcli_agent.user_hooks import plugin
    from chatcli_compaction import plugin as compaction
    from chatcli_testing import ScriptedProvider, scripted_plugin

    log = tmp_path / "compact.jsonl"
    script = tmp_path / "compact.sh"
    script.write_text(f"#!/bin/sh\n{{ cat; echo; }} >> '{log}'\n")
    script.chmod(0o755)
    user_config_path().write_text(textwrap.dedent(f"""
        provider = "scripted"
        compact_keep_recent = 2
        [[hooks.PreCompact]]
        command = "{script}"
        [[hooks.PostCompact]]
        matcher = "summarise"
        command = "{script}"
    """))
    monkeypatch.setenv("HOME", str(tmp_path))
    provider = ScriptedProvider()
    host = PluginHost()
    host.register(scripted_plugin(provider), "scripted")
    host.register(plugin, "user-hooks")
    host.register(compaction, "compaction")
    session = Session(host, load_settings(), workspace=tmp_path).open()
    for i in range(5):
        session.conversation.append(Message.user(f"question {i} " + "q" * 300))
        session.conversation.append(Message.assistant(f"answer {i} " + "a" * 300))
    provider.script(Reply(text="## Current task state\n- answering questions"))
    report = session.compact()
    conversation = session.conversation
    session.close()
    assert [c.strategy for c in report.compactions] == ["summarise"]
    payloads = [json.loads(line) for line in log.read_text().splitlines() if line]
    assert [(p["hook_event_name"], p["strategy"]) for p in payloads] == [
        ("PreCompact", "trim"), ("PreCompact", "summarise"), ("PostCompact", "summarise")]
    assert payloads[-1]["removed"] == 8 and payloads[0]["session_id"] == conversation.id


# ------------------------------------------------------------------ in process: per conversation

#: A SessionStart hook that tells the model which conversation it started.
NAMES_ITS_SESSION = f"""#!{sys.executable}
import json, sys
print("started " + json.load(sys.stdin)["session_id"])
"""


def hooked_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A host with the scripted model, and a user config with the SessionStart hook."""
    from chatcli import PluginHost, user_config_path
    from chatcli_testing import ScriptedProvider, scripted_plugin

    script = tmp_path / "start.py"
    script.write_text(NAMES_ITS_SESSION)
    script.chmod(0o755)
    user_config_path().write_text(f'provider = "scripted"\n[[hooks.SessionStart]]\n'
                                  f'command = "{script}"\n')
    monkeypatch.setenv("HOME", str(tmp_path))
    provider = ScriptedProvider()
    host = PluginHost()
    host.register(scripted_plugin(provider), "scripted")
    host.provider_for_test = provider
    return host


def started_context(host: Any) -> list[str]:
    """The SessionStart context the last model call was sent."""
    return [s.text for s in host.provider_for_test.requests[-1].system
            if s.name == "hooks-session-start"]


def ask(host: Any, session: Any, text: str) -> None:
    from chatcli import Message

    host.provider_for_test.script(Reply(text="ok"))
    list(session.run(Message.user(text)))


def test_two_sessions_in_one_process_keep_their_own_hook_context(
        tmp_path: Path, chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a conversation's hooks said lives in its stash: a second session's SessionStart
    context never reaches the first session's model calls, nor the other way round."""
    from chatcli import Session, load_settings
    from chatcli_agent.user_hooks import plugin

    host = hooked_host(tmp_path, monkeypatch)
    host.register(plugin, "user-hooks")
    first = Session(host, load_settings(), workspace=tmp_path).open()
    second = Session(host, load_settings(), workspace=tmp_path).open()
    try:
        ask(host, first, "hello")
        assert started_context(host) == [
            f"Context from the user's SessionStart hooks:\nstarted {first.conversation.id}"]
        ask(host, second, "hello")
        assert started_context(host) == [
            f"Context from the user's SessionStart hooks:\nstarted {second.conversation.id}"]
    finally:
        first.close()
        second.close()


def test_the_plugin_registered_after_start_up_is_configured_and_its_hooks_run(
        tmp_path: Path, chatcli_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``configure`` is historic: the plugin registered after the first session opened (and
    configured the host) still reads the user's hooks, which run for the next session."""
    from chatcli import Session, load_settings
    from chatcli_agent.user_hooks import plugin
    from chatcli_agent.user_hooks.state import CONFIG

    monkeypatch.setattr(CONFIG, "hooks", [])  # no earlier test's configure counts
    host = hooked_host(tmp_path, monkeypatch)
    before = Session(host, load_settings(), workspace=tmp_path).open()
    before.close()
    host.register(plugin, "user-hooks")
    later = Session(host, load_settings(), workspace=tmp_path).open()
    try:
        ask(host, later, "hello")
        assert started_context(host) == [
            f"Context from the user's SessionStart hooks:\nstarted {later.conversation.id}"]
    finally:
        later.close()
