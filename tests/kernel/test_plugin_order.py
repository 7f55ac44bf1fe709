"""Plugins registered in any order (a lazy start-up imports them when a hook needs them) are
called in the order registering them by position gives: ``tryfirst``, ``trylast`` and wrappers
included. The host sorts pluggy's implementations instead of registering later plugins again."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from hypothesis import given
from hypothesis import strategies as st

from chatcli import PluginHost, hookimpl

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
