"""How the plugin host tells the user's Ctrl+C from a ``KeyboardInterrupt`` a plugin raises while
it is imported (:class:`chatcli._discovery.CtrlC`), in the main thread and in others, and that a
slow import is timed where it happens (the whole-CLI behaviour is in
tests/cli/test_plugin_import_audit.py)."""

from __future__ import annotations

import os
import signal
import threading
import time
import uuid

import pytest
from chatcli import PluginHost
from chatcli._discovery import CtrlC, EntryPoint


@pytest.fixture
def default_sigint():
    """SIGINT raising KeyboardInterrupt, as in a terminal (the runner may ignore it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_real_sigint_is_the_users(default_sigint):
    with pytest.raises(KeyboardInterrupt), CtrlC() as ctrl_c:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    assert ctrl_c.pressed
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_raised_keyboard_interrupt_is_not(default_sigint):
    with pytest.raises(KeyboardInterrupt), CtrlC() as ctrl_c:
        raise KeyboardInterrupt
    assert not ctrl_c.pressed
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_handler_set_inside_is_kept(default_sigint):
    def own(signum, frame):
        return None

    with CtrlC():
        signal.signal(signal.SIGINT, own)
    assert signal.getsignal(signal.SIGINT) is own


def test_outside_the_main_thread_nothing_is_wrapped(default_sigint):
    seen = {}

    def work() -> None:
        with CtrlC() as ctrl_c:
            seen["handler"] = signal.getsignal(signal.SIGINT)
        seen["pressed"] = ctrl_c.pressed

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert seen == {"handler": signal.default_int_handler, "pressed": False}


@pytest.fixture
def plugin_module(tmp_path, monkeypatch):
    """Write a module on sys.path; returns a function giving its entry point."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(body: str) -> EntryPoint:
        name = f"audit_plugin_{uuid.uuid4().hex[:8]}"
        (tmp_path / f"{name}.py").write_text(body)
        return EntryPoint("rogue", name)

    return make


@pytest.mark.parametrize("in_thread", [False, True])
@pytest.mark.parametrize(("body", "reason"), [
    ("raise KeyboardInterrupt\n", "KeyboardInterrupt"),
    ("raise SystemExit(2)\n", "SystemExit: 2"),
    ("class Halt(BaseException):\n    pass\nraise Halt()\n", "Halt"),
])
def test_the_host_records_what_a_plugin_raises_at_import(default_sigint, plugin_module,
                                                         in_thread, body, reason):
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    entry = plugin_module(body)
    if in_thread:  # a lazy import on the first call of a hook, from a worker thread
        thread = threading.Thread(target=host._import, args=([entry],))
        thread.start()
        thread.join()
    else:
        host._import([entry])
    assert [(f.name, f.stage, f.reason) for f in host.failures] == [
        ("rogue", "to import", reason)]
    assert lines == [f"plugin 'rogue' failed to import: {reason} "
                     "(disable it with CHATCLI_DISABLE_PLUGINS=rogue)"]


def test_a_slow_import_is_named_once(plugin_module, monkeypatch):
    import chatcli._plugins as plugins

    entry = plugin_module("import time\ntime.sleep(1.05)\n")
    monkeypatch.setattr(plugins, "find_entry_points", lambda: [entry])
    monkeypatch.setattr(plugins, "remember_hooks", lambda learned: None)
    for variable in ("CHATCLI_PLUGINS", "CHATCLI_DISABLE_PLUGINS"):
        monkeypatch.delenv(variable, raising=False)
    lines: list[str] = []
    host = PluginHost(warn=lines.append)
    host.load_entry_points()
    host.load_all()
    [line] = lines
    assert line.startswith("plugin 'rogue' took 1.")
    assert line.endswith(" s to import; CHATCLI_DISABLE_PLUGINS=rogue skips it")
    assert host.failures == []
