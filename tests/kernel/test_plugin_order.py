"""Plugins registered in any order (a lazy start-up imports them when a hook needs them) are
called in the order registering them by position gives: ``tryfirst``, ``trylast`` and wrappers
included. The host sorts pluggy's implementations instead of registering later plugins again."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from chatcli import PluginHost, hookimpl
from hypothesis import given
from hypothesis import strategies as st

KINDS = ("plain", "tryfirst", "trylast", "wrapper", "wrapper-tryfirst")


def _plugin(name: str, kind: str, calls: list[str]) -> object:
    """A plugin implementing ``register_providers`` in the way ``kind`` says."""

    class Plugin:
        if kind.startswith("wrapper"):
            @hookimpl(wrapper=True, tryfirst=kind.endswith("tryfirst"))
            def register_providers(self, register: Callable[..., None]) -> Iterator[None]:
                calls.append(name)
                return (yield)
        else:
            @hookimpl(tryfirst=kind == "tryfirst", trylast=kind == "trylast")
            def register_providers(self, register: Callable[..., None]) -> None:
                calls.append(name)

    return Plugin()


def _call_order(kinds: list[str], order: list[int]) -> list[str]:
    """Register plugin ``i`` (at position ``i``) in ``order``; the names in call order."""
    host = PluginHost(warn=lambda line: None)
    calls: list[str] = []
    plugins = [(f"p{i}", _plugin(f"p{i}", kind, calls)) for i, kind in enumerate(kinds)]
    for i, (name, _plugin_object) in enumerate(plugins):
        host._positions[name] = i  # as load_entry_points gives them
    for i in order:
        assert host.register(plugins[i][1], plugins[i][0])
    host.pm.hook.register_providers(register=lambda spec: None)
    return calls


@given(st.lists(st.sampled_from(KINDS), min_size=1, max_size=7).flatmap(
    lambda kinds: st.tuples(st.just(kinds), st.permutations(range(len(kinds))))))
def test_any_registration_order_calls_as_the_position_order(case: tuple[list[str], list[int]]
                                                            ) -> None:
    kinds, order = case
    assert _call_order(kinds, list(order)) == _call_order(kinds, list(range(len(kinds))))


def test_position_order_is_pluggys_order() -> None:
    # later position first; tryfirst before, trylast after, wrappers around all
    kinds = ["plain", "trylast", "tryfirst", "plain", "wrapper", "trylast", "tryfirst"]
    assert _call_order(kinds, [6, 3, 0, 5, 1, 4, 2]) == [
        "p4", "p6", "p2", "p3", "p0", "p1", "p5"]


# ------------------------------------------------------------------ the quick look at attributes

def _shapes() -> list[object]:
    """Plugin and hookspec namespaces of every shape pluggy accepts, each with marked and
    unmarked attributes of every kind."""
    import types

    from chatcli import hookspec
    from chatcli._plugins import _PluginManager

    def plain() -> None: ...

    @hookimpl
    def marked() -> None: ...

    @hookspec
    def spec() -> None: ...

    class Base:
        @hookimpl
        def inherited(self) -> None: ...

    class Plugin(Base):
        answer = 42
        unmarked = plain

        @hookimpl
        def method(self) -> None: ...

        @staticmethod
        @hookimpl
        def static_below() -> None: ...

        @hookimpl
        @staticmethod
        def static_above() -> None: ...

        @classmethod
        @hookimpl
        def klass(cls) -> None: ...

        @property
        def prop(self) -> int:
            raise AssertionError("a property must not run")

        def __getattr__(self, name: str) -> object:
            return marked

    class Slotted:
        __slots__ = ("hook",)

        def __init__(self) -> None:
            self.hook = marked

    instance = Plugin()
    instance.own = marked  # type: ignore[attr-defined]
    instance.bound = Base().inherited  # type: ignore[attr-defined]
    module = types.ModuleType("shape")
    module.__dict__.update(marked=marked, plain=plain, spec=spec, value=None, number=1,
                           klass=Plugin, sub=types, bound=instance.method,
                           static=staticmethod(marked))
    return [module, instance, Plugin, Slotted(), _PluginManager]


def test_the_quick_look_agrees_with_pluggy() -> None:
    import pluggy
    from chatcli._plugins import _PluginManager

    quick, slow = _PluginManager("chatcli"), pluggy.PluginManager("chatcli")
    for namespace in _shapes():
        for name in dir(namespace):
            assert quick.parse_hookimpl_opts(namespace, name) == slow.parse_hookimpl_opts(
                namespace, name), (namespace, name)
            if isinstance(namespace, type) or type(namespace).__name__ == "module":
                assert quick.parse_hookspec_opts(namespace, name) == slow.parse_hookspec_opts(
                    namespace, name), (namespace, name)


def test_the_quick_look_skips_what_surely_is_no_hook() -> None:
    from chatcli._plugins import _quick_marker

    module, instance, *_ = _shapes()
    assert all(_quick_marker(module, name, "chatcli_impl") is None
               for name in ("plain", "number", "value", "klass", "sub", "spec", "__name__"))
    assert _quick_marker(module, "marked", "chatcli_impl") is not None
    assert all(_quick_marker(instance, name, "chatcli_impl") is None
               for name in ("answer", "prop", "unmarked", "__init__"))
    assert not any(_quick_marker(instance, name, "chatcli_impl") is None
                   for name in ("method", "inherited", "own", "static_below", "klass"))


# ------------------------------------------------------------------ registries kept

def test_a_plugin_registered_late_refreshes_only_the_registries_of_its_hooks(tmp_path) -> None:
    from chatcli import Settings, Tool

    calls: list[str] = []

    class Tools:
        @hookimpl
        def register_tools(self, register: Callable[..., None]) -> None:
            calls.append("tools")
            register(Tool(name="t", description="d", run=lambda args, context: "",
                          parameters={"type": "object", "properties": {}}))

    class Other:
        @hookimpl
        def session_end(self) -> None: ...

    class MoreTools:
        @hookimpl
        def register_tools(self, register: Callable[..., None]) -> None:
            calls.append("more")

    host = PluginHost(warn=lambda line: None)
    host.register(Tools(), "tools")
    host.tools()
    host.configure(Settings(), tmp_path)
    first = host.tools()  # collected again: the first were made for other settings
    host.register(Other(), "other")
    assert host.tools() is first and calls == ["tools", "tools"]
    host.register(MoreTools(), "more")
    assert list(host.tools()) == ["t"] and calls == ["tools", "tools", "more", "tools"]
