"""Plugins extend the contract: ``add_hookspecs`` declares a plugin's own hooks, other plugins
implement them without importing it, ``host.hook.<name>`` calls them (importing implementers
lazily), and an implementation of a hook nobody declares is still refused."""

from __future__ import annotations

import sys
import textwrap
import types
from pathlib import Path

import pytest
from chatcli import PluginHost, hookimpl, hookspec
from chatcli._discovery import EntryPoint


def _specs_module(name: str = "greeting_specs") -> types.ModuleType:
    module = types.ModuleType(name)

    @hookspec(firstresult=True)
    def greet(who: str) -> str | None:
        """Greet ``who``. First result wins."""

    @hookspec
    def register_colours(register) -> None:
        """Register colours."""

    module.greet = greet  # type: ignore[attr-defined]
    module.register_colours = register_colours  # type: ignore[attr-defined]
    return module


class Declarer:
    def __init__(self, module: types.ModuleType | None = None) -> None:
        self.module = module or _specs_module()

    @hookimpl
    def add_hookspecs(self, add):
        add(self.module)


class Greeter:
    @hookimpl
    def greet(self, who):
        return f"hello {who}"


class Colours:
    @hookimpl
    def register_colours(self, register):
        register("red")


def _host() -> tuple[PluginHost, list[str]]:
    lines: list[str] = []
    return PluginHost(warn=lines.append), lines


@pytest.mark.parametrize("order", ["declarer first", "implementer first"])
def test_a_plugin_hook_is_called_with_its_declared_semantics(order: str) -> None:
    host, lines = _host()
    plugins = [("declarer", Declarer()), ("greeter", Greeter()), ("colours", Colours())]
    if order == "implementer first":
        plugins.reverse()
    host._positions.update({name: index for index, (name, _) in enumerate(plugins)})
    registered = host._register_in_order(plugins)
    assert registered == {"declarer", "greeter", "colours"}
    assert host.hook.greet(who="ada") == "hello ada"  # firstresult: one value, not a list
    seen: list[str] = []
    host.hook.register_colours(register=seen.append)
    assert seen == ["red"] and lines == []


def test_a_typo_is_still_refused_but_a_declared_hook_is_accepted() -> None:
    class Typo:
        @hookimpl
        def greeet(self, who):
            return "never"

    host, lines = _host()
    assert host.register(Declarer(), "declarer")
    assert host.register(Greeter(), "greeter")
    assert not host.register(Typo(), "typo")
    assert host.pm.get_plugin("typo") is None
    assert "unknown hook 'greeet'" in lines[0] and "\n" not in lines[0]


def test_without_the_declaring_plugin_an_implementation_is_refused() -> None:
    host, lines = _host()
    assert not host.register(Greeter(), "greeter")
    assert "unknown hook 'greet'" in lines[0]


def test_an_implementation_with_arguments_the_spec_lacks_is_refused_when_it_is_declared() -> None:
    class Wrong:
        @hookimpl
        def greet(self, who, mood):
            return "never"

    host, lines = _host()
    host._positions.update({"wrong": 0, "declarer": 1})
    assert host._register_in_order([("wrong", Wrong()), ("declarer", Declarer())]) == {
        "declarer"}
    assert "mood" in lines[0] and "declared by plugin 'declarer'" in lines[0]
    assert host.hook.greet(who="x") is None


def test_a_plugin_hook_implementation_is_guarded_like_a_kernel_one() -> None:
    class Raising:
        @hookimpl
        def greet(self, who):
            raise ValueError("broken greeter")

    class WrongType:
        @hookimpl
        def greet(self, who):
            return 42

    host, lines = _host()
    host.register(Declarer(), "declarer")
    host.register(Greeter(), "greeter")
    host.register(Raising(), "raising")
    host.register(WrongType(), "wrongtype")
    assert host.hook.greet(who="bo") == "hello bo"
    assert {(f.name, f.stage) for f in host.failures} == {
        ("raising", "in hook greet"), ("wrongtype", "in hook greet")}
    assert any("expected str or None" in line for line in lines)


def _redeclaring_configure() -> types.ModuleType:
    module = types.ModuleType("mine")

    @hookspec
    def configure(host) -> None:
        """Mine."""

    module.configure = configure  # type: ignore[attr-defined]
    return module


@pytest.mark.parametrize("namespace, reason", [
    (types.ModuleType("empty"), "holds no @chatcli.hookspec"),
    (_redeclaring_configure(), "already declared by 'chatcli'"),
])
def test_a_bad_declaration_is_reported_against_the_declaring_plugin(namespace, reason) -> None:
    host, lines = _host()
    assert host.register(Declarer(namespace), "bad")
    assert [(f.name, f.stage) for f in host.failures] == [("bad", "in hook add_hookspecs")]
    assert reason in lines[0]


def test_a_hook_declared_by_two_plugins_keeps_the_first() -> None:
    module = _specs_module()
    host, lines = _host()
    host.register(Declarer(module), "first")
    host.register(Declarer(_specs_module("other")), "second")
    assert "already declared by 'first'" in lines[0]


# ------------------------------------------------------------------------ lazily imported plugins

DECLARER = '''
import sys

from chatcli import hookimpl, hookspec

@hookspec(firstresult=True)
def greet(who: str) -> str | None:
    """Greet."""

@hookimpl
def add_hookspecs(add):
    add(sys.modules[__name__])
'''

IMPLEMENTER = '''
from chatcli import hookimpl

@hookimpl
def greet(who):
    return "lazy hello " + who
'''


def test_the_entry_point_cache_remembers_declared_hooks_for_lazy_imports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import chatcli._discovery as discovery

    for module, body in (("hs_implementer", IMPLEMENTER), ("hs_declarer", DECLARER)):
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    # importing them must not write tmp_path/__pycache__: the folder's time is part of the
    # cache's fingerprint (as a plugin folder's is), and it would change between the two runs
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setenv("CHATCLI_CACHE_DIR", str(tmp_path / "cache"))
    for variable in ("CHATCLI_PLUGINS", "CHATCLI_DISABLE_PLUGINS", "CHATCLI_EAGER_PLUGINS"):
        monkeypatch.delenv(variable, raising=False)
    # the implementer sorts first: it is registered before the plugin declaring its hook
    monkeypatch.setattr(discovery, "_ask_stevedore", lambda: [
        EntryPoint("a-implementer", "hs_implementer"), EntryPoint("b-declarer", "hs_declarer")])

    first, lines = _host()
    first.load_entry_points()  # nothing known yet: both imported, the cache learns
    assert lines == [] and first.hook.greet(who="one") == "lazy hello one"
    cached = {ep.name: ep for ep in discovery.find_entry_points()}
    assert cached["b-declarer"].declares == frozenset({"greet"})
    assert cached["a-implementer"].hooks == frozenset({"greet"})

    second, lines = _host()
    second.load_entry_points()
    assert second.pm.get_plugin("a-implementer") is None  # both wait for their hook
    assert second.pm.get_plugin("b-declarer") is None
    assert second.hook.greet(who="two") == "lazy hello two"  # firstresult from the spec
    assert lines == []


def test_an_implementer_imported_alone_is_accepted_while_its_declarer_waits() -> None:
    host, lines = _host()
    host._pending["b-declarer"] = EntryPoint("b-declarer", "hs_declarer",
                                             frozenset({"add_hookspecs"}), "x", 1,
                                             frozenset({"greet"}))
    assert host.register(Greeter(), "greeter")
    assert lines == []
