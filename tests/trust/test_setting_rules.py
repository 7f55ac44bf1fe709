"""The rules of the project layer and the trust record, as data and as properties: what each
kind of rule takes from a project, that nothing a ``never`` rule names ever gets through
(Hypothesis over any table), that plugins name control files and rules through their hooks,
and that the digest follows every byte of every control file."""

from __future__ import annotations

import json
import os
import string
from pathlib import Path
from typing import Any

import pytest
from chatcli import (
    ConfigError,
    ControlFile,
    PluginHost,
    SettingRule,
    hookimpl,
    project_trust,
)
from chatcli._trust import filter_project_layer, forget, kernel_rules, setting_rules
from chatcli_workspace import trust_notice, trust_project, untrust_project
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

ROOT = Path("/srv/project")


class Rules:
    """A plugin's rules, registered through the real hook."""

    def __init__(self, *rules: Any) -> None:
        self.rules = rules

    @hookimpl
    def register_setting_rules(self, register):
        for rule in self.rules:
            register(rule)


def _inside_only(value: Any, root: Path) -> Any:
    return [v for v in value if isinstance(v, str) and not v.startswith("/")]


PLUGIN_RULES = [
    SettingRule("tool.endpoint", "never"),
    SettingRule("tool.budget", "always", "min"),
    SettingRule("tool.blocked", "always", "union"),
    SettingRule("tool.paths", "trusted", "union", keep=_inside_only),
    SettingRule("tool.servers", "trusted"),
    SettingRule("tool.servers.*.command", "never"),
    SettingRule("providers.*.base_url", "trusted"),  # cannot loosen the kernel's never
]

# (name, the project's data, the user file's data, trusted,
#  what is taken, what waits for trust, what no project may set)
CASES = [
    ("never-untrusted", {"tool": {"endpoint": "http://evil"}}, {}, False, {}, [],
     ["tool.endpoint"]),
    ("never-trusted", {"tool": {"endpoint": "http://evil"}}, {}, True, {}, [], ["tool.endpoint"]),
    ("trusted-waits", {"tool": {"mode": "x"}}, {}, False, {}, ["tool.mode"], []),
    ("trusted-taken", {"tool": {"mode": "x"}}, {}, True, {"tool": {"mode": "x"}}, [], []),
    ("undeclared-table-waits", {"other": {"a": 1, "b": {"c": 2}}}, {}, False, {},
     ["other.a", "other.b.c"], []),
    ("min-lowers", {"tool": {"budget": 3}}, {"tool": {"budget": 10}}, False,
     {"tool": {"budget": 3}}, [], []),
    ("min-never-raises", {"tool": {"budget": 30}}, {"tool": {"budget": 10}}, False,
     {"tool": {"budget": 10}}, [], []),
    ("min-kernel-default", {"max_turns": 999}, {}, False, {"max_turns": 20}, [], []),
    ("min-not-a-number", {"max_turns": "1"}, {}, False, {}, [], []),
    ("min-bool-is-no-number", {"max_turns": True}, {}, True, {}, [], []),
    ("union-keeps-users", {"tool": {"blocked": []}}, {"tool": {"blocked": ["a"]}}, False,
     {}, [], []),  # nothing taken: the user's list stands
    ("union-adds", {"tool": {"blocked": ["b", "a"]}}, {"tool": {"blocked": ["a"]}}, False,
     {"tool": {"blocked": ["a", "b"]}}, [], []),
    ("union-text", {"tool": {"blocked": "b"}}, {"tool": {"blocked": "a"}}, False,
     {"tool": {"blocked": ["a", "b"]}}, [], []),
    ("keep-part", {"tool": {"paths": ["in", "/out"]}}, {}, True, {"tool": {"paths": ["in"]}},
     [], ["tool.paths (in part)"]),
    ("keep-nothing", {"tool": {"paths": ["/out"]}}, {}, True, {}, [], ["tool.paths"]),
    ("deeper-never-in-trusted-table", {"tool": {"servers": {"s": {"command": "rm", "x": 1}}}},
     {}, True, {"tool": {"servers": {"s": {"x": 1}}}}, [], ["tool.servers.s.command"]),
    ("kernel-never-wins", {"providers": {"openai": {"base_url": "http://evil", "model": "m"}}},
     {}, True, {"providers": {"openai": {"model": "m"}}}, [], ["providers.openai.base_url"]),
    ("provider-table-all-never", {"providers": {"cli": {"command": ["sh"], "args": ["-c"]}}}, {},
     True, {}, [], ["providers.cli.command", "providers.cli.args"]),
    ("provider-nested-headers", {"providers": {"x": {"headers": {"A": "b"}}}}, {}, True, {}, [],
     ["providers.x.headers.A"]),
    ("allowed-dirs-inside", {"allowed_dirs": ["sub", "/srv/project/x", "/srv/other", ".."]},
     {"allowed_dirs": ["/u"]}, True,
     {"allowed_dirs": ["/u", "/srv/project/sub", "/srv/project/x"]}, [],
     ["allowed_dirs (in part)"]),
    ("allowed-dirs-untrusted", {"allowed_dirs": ["sub"]}, {}, False, {}, ["allowed_dirs"], []),
    ("plugins-never", {"plugins": {"disable": ["permissions"]}}, {}, True, {}, [],
     ["plugins.disable"]),
]


@pytest.mark.parametrize(("name", "data", "lower", "trusted", "kept", "waiting", "never"),
                         CASES, ids=[c[0] for c in CASES])
def test_each_kind_of_rule(name: str, data: dict[str, Any], lower: dict[str, Any],
                           trusted: bool, kept: dict[str, Any], waiting: list[str],
                           never: list[str]) -> None:
    rules = (kernel_rules(), PLUGIN_RULES)
    got = filter_project_layer(data, ROOT, lower, trusted, rules)
    assert got == (kept, waiting, never)


# ------------------------------------------------------------------------ any table at all

_NEVER = [r for r in [*kernel_rules(), *PLUGIN_RULES] if r.project == "never"
          and not r.key.startswith("providers.*.base_url")]
_KEYS = st.sampled_from(["providers", "openai", "cli", "base_url", "model", "tool", "endpoint",
                         "servers", "command", "budget", "blocked", "plugins", "allowed_dirs",
                         "max_turns", "system", "*", ""]) | st.text(
                             alphabet=string.printable + "\ud800é", max_size=8)
_LEAVES = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
           | st.text(max_size=10) | st.lists(st.text(max_size=5), max_size=3))
_TABLES = st.recursive(_LEAVES, lambda inner: st.dictionaries(_KEYS, inner, max_size=4),
                       max_leaves=20)


def _paths(data: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(data, dict):
        return [p for k, v in data.items() for p in _paths(v, (*prefix, k))] or [prefix]
    return [prefix]


def _named(path: tuple[str, ...], rule: SettingRule) -> bool:
    parts = rule.parts
    return len(parts) <= len(path) and all(p in ("*", q) for p, q in zip(parts, path,
                                                                            strict=False))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(data={".": None}, lower={}, trusted=False)  # any TOML key, "" and "." too
@example(data={"providers": {"p": {"model": {"providers": None}}}}, lower={}, trusted=True)
@given(data=st.dictionaries(_KEYS, _TABLES, max_size=5), lower=st.dictionaries(_KEYS, _TABLES,
                                                                                 max_size=3),
       trusted=st.booleans())
def test_nothing_a_never_rule_names_gets_through(data: dict[str, Any], lower: dict[str, Any],
                                                 trusted: bool) -> None:
    kept, waiting, never = filter_project_layer(data, ROOT, lower, trusted,
                                                (kernel_rules(), PLUGIN_RULES))
    for path in _paths(kept):
        if not path:
            continue
        # a never rule names it: only a more specific kernel rule may say otherwise
        # (providers.*.model over providers.*.*), and never a plugin's rule
        for refusing in (r for r in _NEVER if _named(path, r)):
            literal = sum(p != "*" for p in refusing.parts)
            assert any(r.project != "never" and _named(path, r) and (
                len(r.parts), sum(p != "*" for p in r.parts)) > (len(refusing.parts), literal)
                for r in kernel_rules()), f"{'.'.join(path)} got through ({refusing})"
        if not trusted:  # an untrusted project gives only what its rules call 'always'
            rule = max((r for r in [*kernel_rules(), *PLUGIN_RULES] if _named(path, r)),
                       key=lambda r: len(r.parts), default=None)
            assert rule is not None and rule.project == "always", ".".join(path)
    assert all(isinstance(key, str) for key in [*waiting, *never])


# ------------------------------------------------------------------------ hooks and the record


class ControlFiles:
    def __init__(self, *patterns: Any) -> None:
        self.patterns = list(patterns)

    @hookimpl
    def register_setting_rules(self, register):
        for pattern in self.patterns:
            register(ControlFile(pattern))


def _host(*plugins: object) -> tuple[PluginHost, list[str]]:
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    for index, plugin in enumerate(plugins):
        assert host.register(plugin, f"p{index}")
    return host, lines


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHATCLI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "project"
    (folder / ".chatcli").mkdir(parents=True)
    forget()
    yield folder
    forget()


def test_plugins_name_control_files_and_bad_patterns_are_refused(project: Path) -> None:
    (project / ".mcp.json").write_text("{}")
    (project / ".chatcli" / "skills" / "s").mkdir(parents=True)
    (project / ".chatcli" / "skills" / "s" / "SKILL.md").write_text("x")
    (project / ".chatcli" / "skills" / "loop").symlink_to(".")  # a link loop
    host, lines = _host(ControlFiles(".mcp.json", ".chatcli/skills/**"),
                        ControlFiles("/etc/passwd", "a/../../outside"), ControlFiles(7))
    state = project_trust(project / ".chatcli", host)
    assert state.root == project
    assert state.files == (".chatcli/skills/s/SKILL.md", ".mcp.json")
    assert not state.trusted and not state.changed
    assert len(lines) == 3  # two bad globs and a pattern that is no text
    assert sum("ignored the project control file pattern" in x for x in lines) == 3


def test_the_digest_follows_every_byte_and_name(project: Path) -> None:
    host, _ = _host(ControlFiles(".mcp.json"))
    (project / ".mcp.json").write_text('{"a": 1}')
    trusted = trust_project(project, host)
    assert trusted.trusted and project_trust(project, host).trusted
    for change in ('{"a": 2}', '{"a": 1} ', ""):
        (project / ".mcp.json").write_text(change)
        state = project_trust(project, host)
        assert not state.trusted and state.changed, change
    (project / ".mcp.json").write_text('{"a": 1}')
    assert project_trust(project, host).trusted  # the same bytes: trusted again
    (project / ".chatcli" / "config.toml").write_text("")  # a new control file
    assert project_trust(project, host).changed


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(before=st.binary(max_size=64), after=st.binary(max_size=64))
def test_any_change_of_content_asks_again(project: Path, before: bytes, after: bytes) -> None:
    config = project / ".chatcli" / "config.toml"
    config.write_bytes(before)
    forget()
    trust_project(project)
    config.write_bytes(after)
    os.utime(config, ns=(1, 1))  # even with the same size and an old time
    forget()
    assert project_trust(project).trusted is (before == after)


def test_trust_refuses_files_that_changed_since_they_were_shown(project: Path) -> None:
    config = project / ".chatcli" / "config.toml"
    config.write_text('system = "a"\n')
    shown = project_trust(project)
    config.write_text('system = "b"\n')
    with pytest.raises(ConfigError, match="changed while you looked"):
        trust_project(project, expected=shown.digest)
    assert not project_trust(project).trusted
    assert trust_project(project, expected=project_trust(project).digest).trusted
    assert not untrust_project(project).trusted


def test_an_unreadable_record_trusts_nothing_and_is_rewritten(project: Path,
                                                              tmp_path: Path) -> None:
    (project / ".chatcli" / "config.toml").write_text("x = 1\n")
    record = tmp_path / "data" / "trusted-projects.json"
    record.parent.mkdir(parents=True)
    record.write_text(json.dumps({"projects": {str(project): "not an entry"}}))
    assert not project_trust(project).trusted
    record.write_text("{ not json")
    forget()
    assert not project_trust(project).trusted
    assert trust_project(project).trusted
    assert str(project) in json.loads(record.read_text())["projects"]
    assert oct(record.stat().st_mode & 0o777) == "0o600"


def test_the_record_chatcli_workspace_writes_is_the_one_the_kernel_reads(
        project: Path, tmp_path: Path) -> None:
    from chatcli import trusted_projects
    from chatcli._trust import TRUST_FILE
    from chatcli_workspace import TRUST_FILE as WRITTEN

    assert WRITTEN == TRUST_FILE
    (project / ".chatcli" / "config.toml").write_text('system = "s"\n')
    state = trust_project(project)
    assert state.trusted
    entry = trusted_projects()[str(project)]
    assert entry["digest"] == state.digest and entry["files"] == [".chatcli/config.toml"]
    forget()
    assert project_trust(project).trusted  # read back from the file alone
    # another process forgetting the trust is noticed without forget(): the file was replaced
    record = tmp_path / "data" / TRUST_FILE
    record.write_text(json.dumps({"version": 1, "projects": {}}))
    assert not project_trust(project).trusted
    record.write_text(json.dumps({"version": 1, "projects": {str(project): entry}}))
    assert project_trust(project).trusted


def test_a_plugin_registering_something_else_is_named(project: Path) -> None:
    host, lines = _host(Rules(SettingRule("a.b", "never"), "a.c never"))
    _, plugin = setting_rules(host)
    assert [r.key for r in plugin] == ["a.b"]
    assert len(lines) == 1 and "expected SettingRule" in lines[0]


# (the arguments, the error's words)
BAD_RULES = [
    (("", "never"), "dotted path"),
    (("a..b", "never"), "dotted path"),
    (("a", "sometimes"), "project must be"),
    (("a", "always", "max"), "merge must be"),
]


@pytest.mark.parametrize(("args", "words"), BAD_RULES)
def test_a_bad_rule_says_what_is_wrong(args: tuple[Any, ...], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        SettingRule(*args)


def test_no_notice_where_there_is_no_project(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    forget()
    assert project_trust(tmp_path).root is None and trust_notice(tmp_path) is None


def test_the_budget_defaults_the_filter_knows_are_the_settings_defaults() -> None:
    from chatcli import Settings
    from chatcli._trust import KERNEL_MIN_DEFAULTS

    for key, default in KERNEL_MIN_DEFAULTS.items():
        assert Settings.model_fields[key].default == default, key
    assert {r.key for r in kernel_rules() if r.merge == "min"} == set(KERNEL_MIN_DEFAULTS)


def test_what_trust_would_turn_on(project: Path) -> None:
    from chatcli_workspace import trust_waiting

    host, _ = _host(ControlFiles(".mcp.json"),
                    Rules(SettingRule("permissions.deny", "always", "union")))
    config = project / ".chatcli" / "config.toml"
    config.write_text('max_turns = 3\n[permissions]\ndeny = ["read(x)"]\n')
    assert trust_waiting(project, host) == []  # it only tightens: nothing to ask
    assert trust_notice(project, host) is None
    config.write_text('system = "s"\nmax_turns = 3\n')
    forget()
    assert trust_waiting(project, host) == [".chatcli/config.toml (system)"]
    (project / ".mcp.json").write_text("{}")
    assert trust_waiting(project, host) == [".chatcli/config.toml (system)", ".mcp.json"]
    trust_project(project, host)
    assert trust_waiting(project, host) == [] and trust_notice(project, host) is None


def test_allowed_dirs_of_a_project_become_absolute_and_links_out_are_dropped(
        tmp_path: Path) -> None:
    root, outside = tmp_path / "p", tmp_path / "outside"
    (root / "sub" / "deeper").mkdir(parents=True)
    outside.mkdir()
    (root / "out").symlink_to(outside)
    (root / "sub" / "deeper" / "up").symlink_to(root)
    data = {"allowed_dirs": ["sub", "out", "out/x", "sub/deeper/up", "sub/deeper/up/../.."]}
    kept, _, never = filter_project_layer(data, root, {}, True, (kernel_rules(), []))
    assert kept == {"allowed_dirs": [str(root / "sub"), str(root)]}
    assert never == ["allowed_dirs (in part)"]
