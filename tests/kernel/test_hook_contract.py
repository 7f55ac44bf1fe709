"""The hook contract: calls go through pluggy (wrappers, ordering, tracing), failures and wrong
results are isolated, the run's context reaches plugins, and every declared hook has a caller."""

from __future__ import annotations

import re
from pathlib import Path

import chatcli
import pytest
from chatcli import (
    Conversation,
    Decision,
    Message,
    PluginHost,
    PromptSection,
    Risk,
    Session,
    SessionOptions,
    Settings,
    Tool,
    ToolFinished,
    TurnFinished,
    hookimpl,
)
from chatcli import hookspecs as specs
from chatcli_testing import AddTool, Reply, ScriptedProvider, ToolCall, scripted_plugin

KERNEL = Path(chatcli.__file__).parent
ROOT = KERNEL.parents[2]


def make_host(*plugins: object) -> tuple[PluginHost, ScriptedProvider, list[str]]:
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    provider = ScriptedProvider()
    host.register(scripted_plugin(provider), "scripted")
    for index, plugin in enumerate(plugins):
        assert host.register(plugin, f"plugin{index}")
    return host, provider, lines


def one_turn(host: PluginHost, text: str = "hi") -> TurnFinished:
    with Session(host, Settings(), SessionOptions(allow=frozenset(Risk))) as session:
        events = list(session.run(Message.user(text)))
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    return finished


def section_names(provider: ScriptedProvider, index: int = -1) -> list[str]:
    return [s.name for s in provider.requests[index].system]


# ------------------------------------------------------------------------ pluggy semantics


def test_a_new_style_wrapper_adds_a_section_that_reaches_the_request() -> None:
    class Plain:
        @hookimpl
        def prompt_sections(self):
            return [PromptSection(name="plain", text="from a plain implementation")]

    class Wrapper:
        @hookimpl(wrapper=True)
        def prompt_sections(self):
            sections = yield
            return [*sections, [PromptSection(name="wrapped", text="added by a wrapper")]]

    host, provider, lines = make_host(Plain(), Wrapper())
    assert one_turn(host).error is None
    assert {"plain", "wrapped"} <= set(section_names(provider))
    assert lines == []


def test_an_old_style_hookwrapper_is_refused_in_one_line_and_changes_nothing() -> None:
    ran: list[str] = []

    class Plain:
        @hookimpl
        def prompt_sections(self):
            return [PromptSection(name="plain", text="kept: the old-style wrapper is left out")]

    class OldWrapper:
        @hookimpl(hookwrapper=True)
        def prompt_sections(self):
            ran.append("old wrapper")
            outcome = yield
            outcome.force_result([[PromptSection(name="forced", text="only this")]])

    host, provider, lines = make_host(Plain(), OldWrapper())
    assert one_turn(host).error is None
    names = section_names(provider)
    assert "plain" in names and "forced" not in names and ran == []
    assert len(lines) == 1 and "plugin1" in lines[0] and "prompt_sections" in lines[0]
    assert "hookwrapper=True is not supported" in lines[0] and "wrapper=True" in lines[0]


def test_tryfirst_decides_a_first_result_hook() -> None:
    class Allow:
        @hookimpl(tryfirst=True)
        def authorize_tool_call(self):
            return Decision.DENY

    class Deny:  # registered later, so without tryfirst it would be asked first
        @hookimpl
        def authorize_tool_call(self):
            return Decision.ALLOW

    host, provider, _ = make_host(AddTool(), Allow(), Deny())
    provider.script(Reply(tool_calls=[ToolCall(name="add", arguments={"a": 1, "b": 2})]), "ok")
    finished = one_turn(host)
    result = finished.messages[2].tool_results[0]
    assert result.is_error and result.content == "denied by policy"


def test_tracing_prints_each_hook_call_and_its_result() -> None:
    host, _, _ = make_host()
    written: list[str] = []
    host.enable_tracing(write=written.append)
    one_turn(host)
    text = "".join(written)
    for hook in ("configure", "session_start", "prompt_sections", "before_request",
                 "after_response", "session_end"):
        assert re.search(rf"\b{hook} \[hook\]", text), hook
    assert "finish prompt_sections -->" in text


# ------------------------------------------------------------------------ isolation


class CustomStop(BaseException):
    """A BaseException subclass that is neither Exception nor SystemExit."""


@pytest.mark.parametrize("raised", [ValueError("bad value"), SystemExit("exit 3"),
                                    CustomStop("custom stop")])
def test_a_raising_implementation_is_reported_and_skipped(raised: BaseException) -> None:
    class Good:
        @hookimpl
        def prompt_sections(self):
            return [PromptSection(name="good", text="still here")]

    class Bad:
        @hookimpl
        def prompt_sections(self):
            raise raised

        @hookimpl
        def before_request(self):
            raise raised

    host, provider, lines = make_host(Good(), Bad())
    assert one_turn(host).text == "ok"
    assert "good" in section_names(provider)
    failures = [(f.name, f.stage) for f in host.failures]
    assert failures == [("plugin1", "in hook prompt_sections"),
                        ("plugin1", "in hook before_request")]
    assert len(lines) == 2
    assert all(type(raised).__name__ in line and "\n" not in line for line in lines)


@pytest.mark.parametrize("hook, value, expected", [
    ("prompt_sections", PromptSection(name="one", text="not in a list"), "list[PromptSection]"),
    ("prompt_sections", ["a string"], "list[PromptSection]"),
    ("authorize_tool_call", True, "Decision or Verdict or None"),
    ("before_request", "a value an observer should not return", "None"),
])
def test_a_wrong_result_type_is_reported_and_never_crashes_the_turn(hook, value, expected):
    plugin = type("Wrong", (), {hook: hookimpl(lambda self: value)})()
    host, provider, lines = make_host(AddTool(), plugin)
    provider.script(Reply(tool_calls=[ToolCall(name="add", arguments={"a": 2, "b": 3})]),
                    "done")
    finished = one_turn(host)
    assert finished.error is None and finished.text == "done"
    # the default policy allowed the read tool: a wrong decision counted for nothing
    assert finished.messages[2].tool_results[0].content == "5"
    assert {f.stage for f in host.failures} == {f"in hook {hook}"}  # at every model call
    assert len(lines) == 1 and f"expected {expected}" in lines[0]  # reported once


def test_a_failing_wrapper_passes_the_inner_result_through() -> None:
    class Plain:
        @hookimpl
        def prompt_sections(self):
            return [PromptSection(name="plain", text="kept")]

    class Broken:
        @hookimpl(wrapper=True)
        def prompt_sections(self):
            yield
            raise RuntimeError("wrapper bug")

    class WrongWrapper:
        @hookimpl(wrapper=True)
        def prompt_sections(self):
            yield
            return "not a list"

    host, provider, lines = make_host(Plain(), Broken(), WrongWrapper())
    one_turn(host)
    assert "plain" in section_names(provider)
    assert len(host.failures) == 2 and len(lines) == 2


def test_cmdline_main_first_answer_wins_and_what_it_raises_is_the_commands() -> None:
    """The chat answers when there is no prompt, another plugin the prompt; an exception from
    the front end (a bug, a closed pipe) is the command's failure, not a skipped plugin."""

    class Chat:
        @hookimpl
        def cmdline_main(self, host, settings, options, prompt):
            return 3 if prompt is None else None

    class Answer:
        @hookimpl
        def cmdline_main(self, host, settings, options, prompt):
            if prompt is None:
                return None
            if prompt == "boom":
                raise BrokenPipeError("the reader left")
            return len(prompt)

    host, _, lines = make_host(Chat(), Answer())

    def call(prompt: str | None) -> int | None:
        return host.hooks.cmdline_main(host=host, settings=Settings(), options=SessionOptions(),
                                       prompt=prompt)

    assert (call(None), call("four")) == (3, 4)
    with pytest.raises(BrokenPipeError, match="the reader left"):
        call("boom")
    assert host.failures == [] and lines == []
    host.unregister("plugin1")
    assert call("four") is None  # nobody answers: the command line names the plugin to add


def test_keyboard_interrupt_is_never_swallowed() -> None:
    class CtrlC:
        @hookimpl
        def before_request(self):
            raise KeyboardInterrupt

    host, _, _ = make_host(CtrlC())
    with Session(host, Settings()) as session:
        events = list(session.run(Message.user("hi")))
    assert events[-1].stop_reason == "interrupted"
    assert host.failures == []


def test_a_registration_of_the_wrong_type_is_reported_and_ignored() -> None:
    class Sloppy:
        @hookimpl
        def register_tools(self, register):
            register({"name": "not-a-tool"})
            register(Tool(name="fine", description="d", parameters={"type": "object"},
                          run=lambda args, ctx: "ran"))

    host, _, lines = make_host(Sloppy())
    assert list(host.tools()) == ["fine"]
    assert "expected Tool" in lines[0]


def test_tool_names_are_validated_where_tools_are_registered() -> None:
    with pytest.raises(ValueError, match="1-64 letters"):
        Tool(name="has spaces", description="d", run=lambda a, c: "")

    class BadName:
        @hookimpl
        def register_tools(self, register):
            register(Tool(name="x" * 65, description="d", run=lambda a, c: ""))

    host, _, lines = make_host(BadName())
    assert host.tools() == {}
    assert "1-64 letters" in lines[0]


# ------------------------------------------------------------------------ context for plugins


def test_configure_hands_host_settings_and_workspace_once(tmp_path) -> None:
    seen: list[tuple] = []

    class Configured:
        @hookimpl
        def configure(self, host, settings, workspace):
            seen.append((host, settings.max_turns, workspace))

    host, _, _ = make_host(Configured())
    for _ in range(2):
        with Session(host, Settings(max_turns=7), workspace=tmp_path) as session:
            list(session.run(Message.user("hi")))
    assert seen == [(host, 7, tmp_path.resolve())]


def test_register_tools_gets_the_run_and_the_tool_set_can_change() -> None:
    class Changing:
        """Offers ``first``; running it swaps the set for ``second`` (like tools/list_changed)."""

        def __init__(self) -> None:
            self.names = ["first"]
            self.host: PluginHost | None = None
            self.seen: list[tuple] = []

        @hookimpl
        def configure(self, host):
            self.host = host

        @hookimpl
        def register_tools(self, register, settings, workspace):
            self.seen.append((settings.max_turns, workspace))
            for name in self.names:
                register(Tool(name=name, description=name, run=self.run,
                              parameters={"type": "object", "properties": {}}))

        def run(self, arguments, context):
            self.names = ["second"]
            assert self.host is not None
            self.host.tools_changed()
            return "swapped"

    changing = Changing()
    host, provider, _ = make_host(changing)
    provider.script(Reply(tool_calls=[ToolCall(name="first", arguments={})]), "done")
    finished = one_turn(host)
    assert finished.messages[2].tool_results[0].content == "swapped"
    assert [t.name for t in provider.requests[0].tools] == ["first"]
    assert [t.name for t in provider.requests[1].tools] == ["second"]
    assert changing.seen == [(20, Path.cwd().resolve())] * 2


def test_a_raw_json_schema_tool_is_offered_as_it_is_and_checks_required_arguments() -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    got: list = []

    class Raw:
        @hookimpl
        def register_tools(self, register):
            register(Tool(name="lookup", description="d", parameters=schema,
                          run=lambda arguments, context: got.append(arguments) or "found"))

    host, provider, _ = make_host(Raw())
    provider.script(Reply(tool_calls=[ToolCall(name="lookup", arguments={})]),
                    Reply(tool_calls=[ToolCall(name="lookup", arguments={"q": "x"})]), "done")
    finished = one_turn(host)
    assert provider.requests[0].tools[0].parameters == schema
    first, second = (m.tool_results[0] for m in finished.messages if m.tool_results)
    assert first.is_error and "missing required argument(s): q" in first.content
    assert second.content == "found" and got == [{"q": "x"}]


# ------------------------------------------------------------------------ the declared hooks


def _declared_hooks() -> list[str]:
    return sorted(name for name in dir(specs) if hasattr(getattr(specs, name), "chatcli_spec"))


def _plugin_hookspecs() -> list[Path]:
    return sorted(ROOT.glob("plugins/*/src/*/hookspecs.py"))


def _plugin_hooks(path: Path) -> list[str]:
    return re.findall(r"^@hookspec(?:\([^)]*\))?\ndef (\w+)\(", path.read_text(), re.M)


def test_every_declared_hook_is_called() -> None:
    """A kernel hook is called through host.hooks somewhere in the kernel, its command line
    (chatcli-cli: ``cmdline_main``, ``register_cli_options``) or the plugins (a historic one by
    the host); a plugin's own hook by that plugin (host.hook, ``getattr(host.hook, "name")``
    or host.collect), or, for a service the declaring plugin implements itself
    (``session_catalog``), by another plugin."""
    files = [*KERNEL.rglob("*.py"), *(ROOT / "libs" / "cli").rglob("*.py"),
             *(ROOT / "plugins").rglob("*.py")]
    source = "\n".join(p.read_text() for p in files if "__pycache__" not in p.parts)
    for hook in _declared_hooks():
        called = re.search(rf"\.hooks\.{hook}\(|_call_historic\(\"{hook}\"", source)
        assert called, f"{hook} is declared but nothing calls it"
    assert _plugin_hookspecs(), "the plugins declare hooks of their own"
    for path in _plugin_hookspecs():
        package = path.parent
        own = "\n".join(p.read_text() for p in package.rglob("*.py") if p != path)
        assert re.search(r"add\(hookspecs\)", own), f"{package.name} never adds {path.name}"
        for hook in _plugin_hooks(path):
            call = (rf"\.hook\.{hook}\(|getattr\(\s*[\w.]*hook,\s*\"{hook}\""
                    rf"|collect\(\s*\"{hook}\"")
            called = re.search(call, own) or (
                re.search(rf"@hookimpl(?:\([^)]*\))?\ndef {hook}\(", own)
                and re.search(call, source))
            assert called, f"{package.name} declares {hook} but nothing calls it"


def test_plugin_hooks_are_documented_like_the_kernel_ones_and_are_not_kernel_hooks() -> None:
    import importlib

    kernel = set(_declared_hooks())
    for path in _plugin_hookspecs():
        module = importlib.import_module(f"{path.parent.name}.hookspecs")
        for hook in _plugin_hooks(path):
            assert hook not in kernel, f"{hook} is declared twice"
            doc = " ".join((getattr(module, hook).__doc__ or "").split())
            assert re.search(r"[Cc]alled", doc) and re.search(r"return|First result wins",
                                                               doc), hook


def test_the_kernel_has_at_most_25_hooks() -> None:
    assert len(_declared_hooks()) <= 25, _declared_hooks()


def test_every_hook_is_documented_with_where_it_is_called_and_what_it_returns() -> None:
    for hook in _declared_hooks():
        lines = (getattr(specs, hook).__doc__ or "").splitlines()
        doc = " ".join(" ".join(lines).split())
        assert len(lines) >= 4, f"{hook}: a one-line docstring"
        assert re.search(r"[Cc]alled", doc), hook
        assert re.search(r"return|First result wins", doc), hook


def test_the_typed_hook_calls_name_every_kernel_hook() -> None:
    """HookCalls has no copy of the signatures: mypy reads each hookspec's own through
    ``name = staticmethod(hookspecs.name)`` (or a method where the call's result differs)."""
    import ast

    from chatcli import HookCalls

    tree = ast.parse((KERNEL / "_plugins.py").read_text())
    typed = next(node for node in ast.walk(tree)
                 if isinstance(node, ast.ClassDef) and node.name == "HookCalls")
    named = set()
    for node in typed.body:
        if isinstance(node, ast.Assign):
            target = node.targets[0].id  # type: ignore[attr-defined]
            assert ast.unparse(node.value) == f"staticmethod(_hs.{target})", target
            named.add(target)
        elif isinstance(node, ast.FunctionDef):
            named.add(node.name)
    assert sorted(named) == _declared_hooks()
    assert sorted(dir(HookCalls(PluginHost().pm))) == _declared_hooks()


def test_host_hooks_refuses_a_name_that_is_not_a_kernel_hook() -> None:
    host = PluginHost()
    with pytest.raises(AttributeError, match=r"host\.hook\.register_widgets"):
        host.hooks.register_widgets  # noqa: B018


def test_head_moved_reaches_plugins_on_rewind() -> None:
    moves: list[tuple[str | None, str]] = []

    class Watch:
        @hookimpl
        def head_moved(self, head, reason):
            moves.append((head, reason))

    host, _, _ = make_host(Watch())
    with Session(host, Settings()) as session:
        list(session.run(Message.user("one")))
        first = session.conversation.checkpoints[0]
        session.conversation.rewind(first.id)
        session.conversation.undo()
    assert [reason for _, reason in moves] == ["rewind", "undo"]


def test_set_conversation_ends_one_and_starts_the_next_exactly_once() -> None:
    events: list[tuple[str, str]] = []

    class Watch:
        @hookimpl
        def session_start(self, conversation):
            events.append(("start", conversation.id))

        @hookimpl
        def session_end(self, conversation):
            events.append(("end", conversation.id))

    host, _, _ = make_host(Watch())
    other = Conversation(id="s_other")
    with Session(host, Settings()) as session:
        first = session.conversation.id
        session.set_conversation(other)
        session.set_conversation(other)  # the same one again: nothing happens
    session.close()  # closing twice: nothing more
    assert events == [("start", first), ("end", first), ("start", "s_other"),
                      ("end", "s_other")]


# ------------------------------------------------------------------------ every exit path


class Observe:
    """Records after_response and session_end."""

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    @hookimpl
    def after_response(self, message, error):
        self.seen.append(("after_response", message and message.text, message and
                          message.interrupted, type(error).__name__ if error else None))

    @hookimpl
    def session_end(self):
        self.seen.append(("session_end",))


def test_after_response_and_session_end_fire_when_the_provider_fails() -> None:
    from chatcli_testing import Fault

    observe = Observe()
    host, provider, _ = make_host(observe)
    provider.script(Fault(status=401), Fault(cut_after=2, reply=Reply(text="partial answer")))
    with Session(host, Settings()) as session:
        failed = list(session.run(Message.user("one")))[-1]
        cut = list(session.run(Message.user("two")))[-1]
    assert failed.error is not None and cut.error is not None
    assert observe.seen == [
        ("after_response", None, None, "AuthError"),
        ("after_response", "partial answer"[: len(cut.text)], True, "StreamCutError"),
        ("session_end",),
    ]


def test_after_response_fires_when_the_turn_is_interrupted() -> None:
    observe = Observe()
    host, provider, _ = make_host(observe)
    provider.script(Reply(text="a long answer that is stopped early", chunk_size=4))
    with Session(host, Settings()) as session:
        events = session.run(Message.user("hi"))
        next(events)  # the first piece of text arrived
        events.close()  # Ctrl+C in a front end
        assert session.conversation.messages()[-1].interrupted
    assert observe.seen[0][0] == "after_response" and observe.seen[0][2] is True
    assert observe.seen[-1] == ("session_end",)


def test_a_tool_step_interrupted_closes_every_call_with_a_result() -> None:
    seen: list[str] = []

    class Watch:
        @hookimpl
        def after_tool_call(self, call, result):
            seen.append(f"{call.name}: {result.content}")

    host, provider, _ = make_host(AddTool(), Watch())
    provider.script(Reply(tool_calls=[ToolCall(name="add", arguments={"a": 1, "b": 1}),
                                      ToolCall(name="add", arguments={"a": 2, "b": 2})]))
    with Session(host, Settings()) as session:
        events = session.run(Message.user("add twice"))
        for event in events:
            if isinstance(event, ToolFinished):
                break  # stop after the first tool ran
        events.close()
        results = session.conversation.messages()[-1].tool_results
    assert [r.content for r in results] == ["2", "not run: interrupted"]
    assert seen == ["add: 2", "add: not run: interrupted"]


def test_the_kernel_readme_lists_every_hook_where_it_is_declared() -> None:
    text = (KERNEL.parents[1] / "README.md").read_text()
    kernel_table = text[text.index("| group | hooks |"):text.index("**Plugins extend")]
    plugin_table = text[text.index("| declared by | hooks |"):text.index("**Per-session state")]
    named = set(re.findall(r"`(\w+)`", kernel_table))
    assert set(_declared_hooks()) <= named
    gone = {"before_compaction", "after_compaction", "tool_call_approved", "before_tool_call",
            "project_control_files"}
    assert not named & gone
    for path in _plugin_hookspecs():
        for hook in _plugin_hooks(path):
            assert f"`{hook}`" in plugin_table and f"`{hook}`" not in kernel_table, hook
    assert f"kernel's {len(_declared_hooks())} hooks" in text


class Decided:
    """Records tool_call_decided and after_tool_call; policy: deny ``b == 0``, ask ``b == 1``."""

    def __init__(self) -> None:
        self.seen: list[tuple] = []

    @hookimpl
    def authorize_tool_call(self, call):
        b = call.arguments.get("b")
        return Decision.DENY if b == 0 else Decision.ASK if b == 1 else Decision.ALLOW

    @hookimpl
    def tool_call_decided(self, call, tool, allowed, approval, verdict, conversation):
        self.seen.append(("decided", call.arguments["b"], allowed,
                          None if approval is None else approval.allow, verdict.decision.value,
                          conversation is not None, tool.name))

    @hookimpl
    def after_tool_call(self, call, result):
        self.seen.append(("after", call.arguments["b"], result.content))


@pytest.mark.parametrize("answer", [True, False])
def test_tool_call_decided_fires_for_every_decision_before_the_call_runs(answer: bool) -> None:
    decided = Decided()
    host, provider, _ = make_host(AddTool(), decided)
    provider.script(Reply(tool_calls=[ToolCall(name="add", arguments={"a": 1, "b": b})
                                      for b in (2, 0, 1)]), "done")
    with Session(host, Settings(), approver=lambda call, tool, verdict: answer) as session:
        list(session.run(Message.user("add")))
    asked = ("after", 1, "2") if answer else ("after", 1, "denied by the user")
    # decided in the model's order, each before it runs (read-only calls are decided, then
    # run together once a call that is not joins them: here the denied one)
    assert decided.seen == [
        ("decided", 2, True, None, "allow", True, "add"),  # the policy alone: runs
        ("decided", 0, False, None, "deny", True, "add"),  # the policy alone: refused
        ("after", 2, "3"), ("after", 0, "denied by policy"),
        ("decided", 1, answer, answer, "ask", True, "add"), asked,  # the person decided
    ]
