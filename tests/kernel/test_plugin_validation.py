"""A plugin whose hook has the wrong arguments is rejected with the reason on one line."""

from __future__ import annotations

from chatcli import PluginHost, hookimpl


class ExtraArgument:
    @hookimpl
    def register_providers(self, register, extra_arg):  # not in the hookspec
        raise AssertionError("never called")


def test_wrong_hook_arguments_are_reported_with_the_reason_in_one_line() -> None:
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    assert not host.register(ExtraArgument(), "extra")
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "extra_arg" in lines[0] and "register_providers" in lines[0]
    from chatcli_admin.plugins import plugin_infos  # `chatcli plugins list` reads it

    assert "extra_arg" in plugin_infos(host)[0].reason
    assert host.providers() == {}
