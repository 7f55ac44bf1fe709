"""The plugin host: registration, validation, failure isolation, env selection."""

from __future__ import annotations

import subprocess
import sys

import pytest
from chatcli import Decision, PluginHost, ProviderSpec, hookimpl
from process_support import plugin_distribution


def _spec(name: str, priority: int = 50) -> ProviderSpec:
    return ProviderSpec(
        name=name, display_name=name.title(), default_model="m", factory=lambda c: None,
        requires_key=False, priority=priority,
    )


class GoodProviders:
    @hookimpl
    def register_providers(self, register):
        register(_spec("good"))


class RaisingProviders:
    @hookimpl
    def register_providers(self, register):
        register(_spec("half"))
        raise RuntimeError("boom\nsecond line")


class UnknownHook:
    @hookimpl
    def register_providerz(self, register):  # typo: not a chatcli hook
        register(_spec("typo"))


def quiet_host() -> tuple[PluginHost, list[str]]:
    lines: list[str] = []
    return PluginHost(warn=lines.append), lines


def test_registered_plugin_contributes_providers() -> None:
    host, _ = quiet_host()
    assert host.register(GoodProviders(), "good")
    assert list(host.providers()) == ["good"]


def test_plugin_raising_in_hook_is_reported_once_and_others_still_work() -> None:
    host, lines = quiet_host()
    host.register(GoodProviders(), "good")
    host.register(RaisingProviders(), "bad")
    providers = host.providers()
    assert "good" in providers
    assert [f.name for f in host.failures] == ["bad"]
    assert len(lines) == 1 and "boom" in lines[0] and "second line" not in lines[0]
    assert "CHATCLI_DISABLE_PLUGINS=bad" in lines[0]
    from chatcli_admin.plugins import plugin_infos  # `chatcli plugins list` reads it

    info = {i.name: i for i in plugin_infos(host)}
    assert info["bad"].status == "failed" and "boom" in info["bad"].reason
    assert info["good"].status == "loaded" and info["good"].hooks == ["register_providers"]


def test_unknown_hook_names_are_rejected() -> None:
    host, lines = quiet_host()
    assert not host.register(UnknownHook(), "typo")
    assert host.pm.get_plugin("typo") is None
    assert "register_providerz" in lines[0]
    assert host.providers() == {}


def test_later_registration_of_same_name_replaces_and_warns() -> None:
    class Again:
        @hookimpl
        def register_providers(self, register):
            register(_spec("good", priority=99))

    host, lines = quiet_host()
    host.register(GoodProviders(), "one")
    host.register(Again(), "two")
    assert host.providers()["good"].priority == 99
    assert any("replaces" in line for line in lines)


def test_call_isolates_failures_and_firstresult_stops_early() -> None:
    calls: list[str] = []

    class A:
        @hookimpl
        def authorize_tool_call(self, call):
            calls.append("A")
            return Decision.ALLOW

    class B:
        @hookimpl
        def authorize_tool_call(self, call):
            calls.append("B")
            raise ValueError("nope")

    host, _ = quiet_host()
    host.register(A(), "a")
    host.register(B(), "b")  # registered last: called first
    assert host.hooks.authorize_tool_call(call=None, tool=None, context=None) == Decision.ALLOW
    assert calls == ["B", "A"]
    assert host.failures[0].name == "b"


def _run(code: str, env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, **env_extra}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=60)


LIST = (
    "from chatcli import PluginHost\n"
    "h = PluginHost(); h.load_entry_points()\n"
    "print(sorted(h.entry_points)); print(sorted(h.providers()))\n"
    "print([str(f) for f in h.failures])"
)


def test_plugin_that_fails_to_import_is_skipped(tmp_path) -> None:
    env = plugin_distribution(tmp_path, "probe", "import no_such_module_xyz\n")
    result = _run(LIST, env)
    assert result.returncode == 0, result.stderr
    assert "probe" in result.stdout
    assert "No module named 'no_such_module_xyz'" in result.stderr
    assert "Traceback" not in result.stderr
    assert "openai" in result.stdout.splitlines()[0]  # the others still load
    assert "probe" in result.stdout.splitlines()[2] and "to import" in result.stdout


def test_env_selection_loads_only_named_plugins(tmp_path) -> None:
    env = plugin_distribution(tmp_path, "probe", "raise SystemError('must not be imported')\n")
    only = _run(LIST, {**env, "CHATCLI_PLUGINS": "openai"})
    assert only.returncode == 0, only.stderr
    assert only.stdout.splitlines()[0] == "['openai']"
    assert "must not be imported" not in only.stderr
    blocked = _run(LIST, {**env, "CHATCLI_DISABLE_PLUGINS": "probe,openai"})
    loaded = blocked.stdout.splitlines()[0]
    assert "probe" not in loaded and "openai" not in loaded and "anthropic" in loaded
    assert "must not be imported" not in blocked.stderr
    typo = _run(LIST, {**env, "CHATCLI_PLUGINS": "openai,opneai"})
    assert "CHATCLI_PLUGINS names 'opneai', which is not installed" in typo.stderr
    assert typo.stdout.splitlines()[0] == "['openai']"


def test_keyless_servers_are_never_chosen_automatically() -> None:
    from chatcli import Settings, UsageError, choose_provider

    class Servers:
        @hookimpl
        def register_providers(self, register):
            register(_spec("server", priority=90)._replace(auto_select=False))
            register(_spec("cloud", priority=80)._replace(requires_key=True,
                                                          env_keys=["CLOUD_TEST_KEY"]))

    host, _ = quiet_host()
    host.register(Servers(), "servers")
    with pytest.raises(UsageError, match="no provider has an API key"):
        choose_provider(host, Settings())
    assert choose_provider(host, Settings(provider="server")).name == "server"
    host.register(GoodProviders(), "good")  # keyless and auto-selectable: the offline default
    assert choose_provider(host, Settings()).name == "good"
