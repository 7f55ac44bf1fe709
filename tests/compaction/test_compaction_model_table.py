"""The model table's context window is compaction's yardstick: a conversation that a
``[models."openai/PATTERN"] context_window = 4000`` entry in config.toml makes "full" is
compacted, where the provider's own figure (128,000) would never be reached."""

from __future__ import annotations

from typing import Any

import compaction_files_plugin as files
from chatcli import Compacted, Message, PluginHost, Session, TurnFinished, load_settings
from chatcli_compaction import plugin
from chatcli_sessions import plugin as sessions_plugin
from chatcli_testing import Reply, ToolCall
from compaction_support import App, answer_summaries

NO_COUNT = {"input_tokens": 0, "output_tokens": 5}  # keeps the local estimate uncorrected

CONFIG = """\
provider = "openai"
model = "gpt-test-long"
compact_keep_recent = 6

[models."openai/gpt-test*"]
context_window = 4000
input = 1.0
output = 2.0
"""


def _host() -> PluginHost:
    def fail(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    import chatcli_provider_openai.plugin as openai_plugin

    host = PluginHost(warn=fail)
    host.register(openai_plugin, "openai")
    host.register(sessions_plugin, "sessions")
    host.register(plugin, "compaction")
    host.register(files, "files")
    return host


def test_a_configured_window_makes_compaction_fire(chatcli_home: Any, openai_server: Any,
                                                   monkeypatch: Any) -> None:
    (chatcli_home / "config" / "config.toml").write_text(CONFIG)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-model-table")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.url)
    answer_summaries(openai_server)
    host = _host()
    settings = load_settings()
    session = Session(host, settings).open()
    app = App(host, session=session)
    try:
        assert session.engine.current.context_window == 4000
        compacted: list[Compacted] = []
        number = 0
        while not compacted:
            number += 1
            assert number < 20, "the threshold never fired"
            openai_server.script(
                Reply(tool_calls=[ToolCall("read", {"path": f"src/mod{number}.py"})],
                      usage=NO_COUNT),
                Reply(text=f"mod{number} defines functions.", usage=NO_COUNT))
            events = list(app.session.run(Message.user(f"what is in src/mod{number}.py?")))
            compacted = [e for e in events if isinstance(e, Compacted)]
            assert isinstance(events[-1], TurnFinished) and events[-1].error is None
        report = compacted[0].report
        assert report.changed and report.tokens_after < report.tokens_before
        assert 0.75 * 4000 < report.tokens_before < 0.75 * 128_000
    finally:
        session.close()
        sessions_plugin.close_stores()
