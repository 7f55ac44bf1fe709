"""Personas as agent types (``register_agent_types``, declared by chatcli-subagents and here by
``agent_type_specs``): chatcli's persona files, the pack's ``verifier``, and Claude Code's
``.claude/agents`` files read as they are — their tool lists in chatcli's names, their model
aliases, the order of the five places they come from, and workspace trust keeping a cloned
repository's Claude Code agents out until the user trusts it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import chatcli_personas.plugin as personas_plugin
import pytest
from agent_type_specs import Declares
from chatcli import PluginHost, Risk, Tool, hookimpl
from chatcli._trust import forget
from chatcli_plugin_records import AgentType, PersonaSource
from chatcli_workspace import trust_project
from claude_agent_files import (
    CODE_REVIEWER,
    DATA_SCIENTIST,
    DEBUGGER,
    HOSTILE,
    RESEARCHER,
)
from personas_support import cli, persona_file, system_of, tool_names, write


@pytest.fixture(autouse=True)
def _module_plugin_reset() -> Any:
    """These tests register the entry module's plugin (as chatcli does): it forgets their host
    afterwards."""
    yield
    plugin = personas_plugin._PLUGIN
    plugin.host = plugin.workspace = plugin._catalog = plugin._store = None
    plugin._warned.clear()


def host_with(*plugins: Any, declare: bool = True) -> tuple[PluginHost, list[str]]:
    warned: list[str] = []
    host = PluginHost(warn=warned.append)
    if declare:
        assert host.register(Declares(), "subagents-specs")
    assert host.register(personas_plugin, "personas")
    for index, plugin in enumerate(plugins):
        assert host.register(plugin, f"extra{index}")
    personas_plugin._PLUGIN.configure(host=host, workspace=Path.cwd())
    return host, warned


def agent_types(host: PluginHost) -> dict[str, AgentType]:
    return host.collect("register_agent_types", AgentType, "agent type")


def trust(workspace: Path, host: PluginHost) -> None:
    forget()
    assert trust_project(workspace, host).trusted
    forget()


# ------------------------------------------------------------------------ the records


def test_a_chatcli_persona_is_an_agent_type_with_its_fields(workspace: Path) -> None:
    path = write(workspace, ".chatcli/agents/migrator.md", """
        ---
        name: migrator
        description: Moves code to the new API.
        traits: [careful]
        tone: terse
        tools: [read, edit, Bash, Grep]
        provider: anthropic
        model: claude-haiku-4-5
        isolation: worktree
        max_turns: 12
        ---
        You move call sites to the new API, one module at a time.
        """)
    host, warned = host_with()
    found = agent_types(host)["migrator"]
    assert found.description == "Moves code to the new API."
    assert found.tools == ("read", "edit", "exec", "search")
    assert (found.provider, found.model) == ("anthropic", "claude-haiku-4-5")
    assert (found.isolation, found.max_turns) == ("worktree", 12)
    assert found.source == str(path)
    assert found.prompt.endswith("You move call sites to the new API, one module at a time.")
    assert "Traits: careful." in found.prompt and "Tone: terse." in found.prompt
    assert warned == []


def test_bad_isolation_and_max_turns_are_one_line_warnings_and_the_persona_loads(
        workspace: Path) -> None:
    write(workspace, ".chatcli/agents/sloppy.md", """
        ---
        name: sloppy
        description: d
        isolation: container
        max-turns: lots
        ---
        Body.
        """)
    write(workspace, ".chatcli/agents/greedy.md", persona_file("greedy", description="d",
                                                                max_turns="0"))
    host, warned = host_with()
    types = agent_types(host)
    assert types["sloppy"].isolation is None and types["sloppy"].max_turns is None
    assert types["greedy"].max_turns is None
    assert sorted(warned) == [
        "persona .chatcli/agents/greedy.md: max-turns '0' is not a whole number from 1 to "
        "1000; ignored",
        "persona .chatcli/agents/sloppy.md: isolation 'container' is not one of: worktree; "
        "ignored",
        "persona .chatcli/agents/sloppy.md: max-turns 'lots' is not a whole number from 1 to "
        "1000; ignored",
    ]
    assert all("\n" not in line for line in warned)


def test_claude_code_agents_are_read_as_they_are(workspace: Path, home: Path) -> None:
    reviewer = write(home, ".claude/agents/code-reviewer.md", CODE_REVIEWER)
    write(home, ".claude/agents/debugger.md", DEBUGGER)
    write(home, ".claude/agents/data-scientist.md", DATA_SCIENTIST)
    researcher = write(home, ".claude/agents/web-researcher.md", RESEARCHER)
    host, warned = host_with()
    types = agent_types(host)
    assert warned == []

    review = types["code-reviewer"]
    assert review.tools == ("read", "search", "glob", "exec")
    assert review.model == "sonnet" and review.provider is None  # the alias: the type resolves it
    assert review.description.startswith("Expert code review specialist.")
    assert review.prompt == CODE_REVIEWER.split("---\n", 2)[2].strip()  # the body, as it is
    assert review.source == str(reviewer)
    assert review.isolation is None and review.max_turns is None

    assert types["debugger"].tools is None  # no tools line: every tool (the parent's)
    assert types["data-scientist"].tools == ("exec", "read", "write")
    assert types["data-scientist"].model is None  # inherit: the parent's model

    research = types["web-researcher"]
    assert research.tools == ("read", "exec")
    assert research.model == "claude-haiku-4-5"
    assert research.source == (f"{researcher} (tools chatcli lacks, ignored: WebFetch, "
                               "WebSearch, TodoWrite; patterns not enforced (the whole tool): "
                               "Bash(git log:*, git show:*))")

    # they are personas too: @name and /persona find them, with their colour
    catalog = personas_plugin._PLUGIN.catalog()
    debugger = catalog.get("debugger")
    assert debugger is not None and debugger.claude and debugger.colour == "orange1"
    assert catalog.get("code-reviewer").model is None  # 'sonnet' is no model id to answer with


def test_a_claude_code_agent_without_a_name_still_loads_with_a_warning(home: Path) -> None:
    write(home, ".claude/agents/Quick Fixer.md", "---\ndescription: d\n---\nFix it.\n")
    host, warned = host_with()
    assert "quick-fixer" in agent_types(host)
    assert warned == ["persona ~/.claude/agents/Quick Fixer.md: it has no name (Claude Code "
                      "requires one); it answers to @quick-fixer",
                      "persona ~/.claude/agents/Quick Fixer.md: its name 'Quick Fixer' is not "
                      "a plain name (lowercase letters, digits, '-'); it answers to "
                      "@quick-fixer"]


def test_the_verifier_of_the_pack_reads_and_tests_but_never_writes(workspace: Path) -> None:
    import chatcli_personas_core.plugin as core

    host, warned = host_with(core)
    verifier = agent_types(host)["verifier"]
    assert warned == []
    assert verifier.tools is not None
    assert {"read", "search", "git", "test", "exec"} <= set(verifier.tools)
    assert not {"write", "edit", "multiedit", "apply_patch", "delegate"} & set(verifier.tools)
    assert "VERDICT: PASS | FAIL | INCONCLUSIVE" in verifier.prompt
    assert verifier.source.endswith("chatcli_personas_core/personas/verifier.md")


def test_without_the_declaring_plugin_nothing_breaks(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/solo.md", persona_file("solo", description="d"))
    host, warned = host_with(declare=False)  # registers: the hook is optional
    host.hooks.register_setting_rules(register=lambda item: None)
    assert personas_plugin._PLUGIN.catalog().get("solo") is not None
    assert warned == []


# ------------------------------------------------------------------------ where they come from


class Pack:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @hookimpl
    def register_persona_sources(self, register):
        register(PersonaSource(name="pack", path=self.folder))


def test_precedence_chatcli_project_claude_project_user_claude_user_packages(
        workspace: Path, home: Path, tmp_path: Path) -> None:
    places = {
        "project": workspace / ".chatcli/agents",
        "project-claude": workspace / ".claude/agents",
        "user": home / "config/agents",
        "user-claude": home / ".claude/agents",
        "pack": tmp_path / "pack",
    }
    order = list(places)
    # the persona "from-N" is in places N and after: the first of them must win
    for index, _name in enumerate(order):
        for later in order[index:]:
            write(places[later], f"from-{index}.md", persona_file(
                f"from-{index}", f"the {later} copy", description=later))
    host, warned = host_with(Pack(places["pack"]))
    trust(workspace, host)
    types = agent_types(host)
    for index, name in enumerate(order):
        assert types[f"from-{index}"].prompt == f"the {name} copy", name
        assert types[f"from-{index}"].description == name
    assert warned == []


def test_a_nearer_folder_s_claude_agents_beat_the_root_s_chatcli_agents(workspace: Path) -> None:
    inner = workspace / "services" / "api"
    write(workspace, ".chatcli/agents/ops.md", persona_file("ops", "the root's", description="d"))
    write(inner, ".claude/agents/ops.md", persona_file("ops", "the service's", description="d"))
    host, _ = host_with()
    personas_plugin._PLUGIN.configure(host=host, workspace=inner)
    trust(inner, host)
    assert agent_types(host)["ops"].prompt == "the service's"


# ------------------------------------------------------------------------ trust




def test_an_untrusted_repository_s_claude_agents_do_not_take_effect(workspace: Path,
                                                                     home: Path) -> None:
    write(home, ".claude/agents/code-reviewer.md", CODE_REVIEWER)
    write(workspace, ".claude/agents/code-reviewer.md", HOSTILE)
    write(workspace, ".claude/agents/lurker.md", HOSTILE.replace("code-reviewer", "lurker"))
    host, warned = host_with()
    types = agent_types(host)
    assert "lurker" not in types  # neither a type ...
    assert personas_plugin._PLUGIN.catalog().get("lurker") is None  # ... nor a persona
    assert "evil.example" not in types["code-reviewer"].prompt  # the user's own one stands
    assert types["code-reviewer"].tools == ("read", "search", "glob", "exec")
    assert warned == []  # the session's trust notice names the ignored files (below)

    # the files are control files: trusting the project covers them as they are
    from chatcli import project_trust

    forget()
    assert ".claude/agents/lurker.md" in project_trust(workspace, host).files
    trust(workspace, host)
    personas_plugin._PLUGIN.configure(host=host, workspace=workspace)
    assert "evil.example" in personas_plugin._PLUGIN.catalog().get("code-reviewer").prompt
    assert personas_plugin._PLUGIN.catalog().get("lurker") is not None

    # a change to one of them after the trust: ignored again until trusted again
    (workspace / ".claude/agents/lurker.md").write_text(HOSTILE.replace("code-reviewer",
                                                                        "lurker") + "More.\n")
    forget()
    personas_plugin._PLUGIN.configure(host=host, workspace=workspace)
    catalog = personas_plugin._PLUGIN.catalog()
    assert catalog.get("lurker") is None
    assert "evil.example" not in catalog.get("code-reviewer").prompt


def test_agents_deeper_than_trust_reaches_are_not_read_and_said_so(workspace: Path) -> None:
    deep = workspace / "a" / "b" / "c"
    write(deep, ".claude/agents/deep.md", persona_file("deep", description="d"))
    write(workspace, ".claude/agents/top.md", persona_file("top", description="d"))
    host, warned = host_with()
    personas_plugin._PLUGIN.configure(host=host, workspace=deep)
    trust(deep, host)
    types = agent_types(host)
    assert "top" in types and "deep" not in types
    assert warned == ["persona a/b/c/.claude/agents: not read — workspace trust does not cover "
                      "it (more than 2 folders below the project root, or outside it)"]


def test_a_project_s_own_chatcli_agents_need_no_trust_as_before(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/local.md", persona_file("local", description="d"))
    host, _ = host_with()
    assert "local" in agent_types(host)


def test_a_hostile_repository_through_the_real_command_line(workspace: Path, home: Path,
                                                            openai_server: Any) -> None:
    write(workspace, ".claude/agents/code-reviewer.md", HOSTILE)
    write(home, ".claude/agents/code-reviewer.md", CODE_REVIEWER)
    openai_server.script("looks fine")
    done = cli(home, workspace, openai_server, "-p", "@code-reviewer check my change",
               plugins="openai,sessions,personas,personas-core,admin")  # admin: the notice
    assert done.returncode == 0, done.stderr
    assert "not trusted: ignored .claude/agents/code-reviewer.md" in done.stderr
    system = system_of(openai_server.requests[-1])
    assert "evil.example" not in system
    assert "You are a senior code reviewer" in system
    assert openai_server.requests[-1].json["model"] == "m"  # 'sonnet' is not sent as a model


# ------------------------------------------------------------------------ in the chat


class Tools:
    """Claude Code's tools as chatcli calls them, and one it would not offer."""

    @hookimpl
    def register_tools(self, register):
        for name, risk in (("read", Risk.READ), ("search", Risk.READ), ("glob", Risk.READ),
                           ("exec", Risk.EXECUTE), ("write", Risk.WRITE)):
            register(Tool(name=name, description=name, risk=risk,
                          parameters={"type": "object", "properties": {}},
                          run=lambda args, context, name=name: name))


def test_a_claude_code_agent_answers_an_at_mention_with_its_tools(chat: Any, workspace: Path,
                                                                  openai_server: Any) -> None:
    write(workspace, ".claude/agents/code-reviewer.md", CODE_REVIEWER)
    one = chat(extra_plugins=(Tools(),), core=False)
    trust(workspace, one.host)
    openai_server.script("reviewed")
    assert one.turn("@code-reviewer look at the diff").text == "reviewed"
    request = openai_server.requests[0]
    assert sorted(tool_names(request)) == ["exec", "glob", "read", "search"]
    assert "You are a senior code reviewer" in system_of(request)
    assert request.json["model"] == "m"


# ------------------------------------------------------------------------ @name task


class Delegate:
    """``/delegate TYPE TASK`` as chatcli-subagents offers it; records what it was given."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    @hookimpl
    def register_slash_commands(self, register: Any) -> None:
        from chatcli import SlashCommand

        register(SlashCommand(name="delegate", help="hand a task to a worker",
                              run=lambda app, argument: self.ran.append(argument)))


class Settings:
    def __init__(self, **table: Any) -> None:
        self.table = table

    def plugin_table(self, name: str) -> dict[str, Any]:
        return self.table if name == "personas" else {}


class App:
    def __init__(self, host: PluginHost, **table: Any) -> None:
        self.host, self.settings = host, Settings(**table)


def test_an_at_mention_becomes_a_delegation_when_delegate_exists(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/reviewer.md", persona_file("reviewer", description="d"))
    delegate = Delegate()
    host, warned = host_with(delegate)
    plugin = personas_plugin._PLUGIN
    app = App(host)
    assert plugin.route_mention(app, "@Reviewer  check src/app.py\nand the tests") == (
        "/delegate reviewer check src/app.py\nand the tests")
    # the chat's hook (chatcli-repl declares it): the first answer wins
    assert host.hook.route_input(app=app, text="@reviewer look") == "/delegate reviewer look"
    for text in ("@reviewer", "@reviewer   ", "@nobody look", "please ask @reviewer",
                 "@src/app.py look", "look"):
        assert plugin.route_mention(app, text) is None, text
    assert plugin.route_mention(App(host, mention="answer"), "@reviewer look") is None
    assert plugin.route_mention(App(host, mention="loud"), "@reviewer look") == (
        "/delegate reviewer look")
    assert warned == ["[personas] mention = 'loud' is not one of: delegate, answer; using "
                      "'delegate'"]


def test_without_delegate_the_persona_answers_as_before(workspace: Path) -> None:
    write(workspace, ".chatcli/agents/reviewer.md", persona_file("reviewer", description="d"))
    host, _ = host_with()
    assert personas_plugin._PLUGIN.route_mention(App(host), "@reviewer look") is None


def test_slash_agents_is_the_board_of_chatcli_subagents_when_it_is_installed(
        workspace: Path) -> None:
    import chatcli_subagents.plugin as subagents

    host, warned = host_with(subagents, declare=False)  # it declares register_agent_types
    commands = host.slash_commands()
    assert commands["personas"].aliases == ["agents"]
    assert commands["agents"].help.startswith("the workers (subagents)")  # a name beats an alias
    assert warned == []  # no clash reported
    alone, _ = host_with(declare=False)
    assert "agents" not in alone.slash_commands()  # the alias answers: /agents lists personas


def test_slash_persona_speaks_as_a_user_s_claude_code_agent(chat: Any, home: Path,
                                                             openai_server: Any) -> None:
    write(home, ".claude/agents/debugger.md", DEBUGGER)
    one = chat(core=False)
    said = one.command("/persona debugger")
    assert "now speaking as Debugger (@debugger)" in said
    openai_server.script("Found the root cause.")
    one.turn("the tests fail")
    assert "You are an expert debugger specializing in root cause analysis." in system_of(
        openai_server.requests[0])
    assert openai_server.requests[0].json["model"] == "m"
