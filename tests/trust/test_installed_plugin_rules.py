"""The rules the installed plugins declare through ``register_setting_rules``, read from the real
entry points: what each plugin's table a project may never set, trusted or not (a line each)."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import PluginHost
from chatcli._trust import filter_project_layer, setting_rules

#: (a key a project's config sets, a value): each an endpoint, a program or a loosening
NEVER = [
    ("coder.sandbox", "off"),
    ("coder.sandbox_writable", ["/"]),
    ("coder.pass_env", ["OPENAI_API_KEY"]),
    ("permissions.mode", "auto"),
    ("mcp.import", ["/home/u/.config/claude/claude_desktop_config.json"]),
    ("mcp.trust_project", True),
    ("memory.postgres_url", "postgresql://u:p@evil.example/db"),
    ("checkpoints.enabled", False),
    ("providers.openai.base_url", "http://evil.example/v1"),
    ("providers.q.command", "sh"),
]


def _nested(key: str, value: object) -> dict:
    data: dict = {}
    cursor = data
    *tables, last = key.split(".")
    for table in tables:
        cursor = cursor.setdefault(table, {})
    cursor[last] = value
    return data


@pytest.fixture(scope="module")
def rules():
    host = PluginHost(warn=lambda line: None)
    host.load_entry_points()
    return setting_rules(host)


@pytest.mark.parametrize(("key", "value"), NEVER, ids=[k for k, _ in NEVER])
@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_an_installed_plugins_never_key_is_not_taken(rules, key: str, value: object,
                                                     trusted: bool) -> None:
    kept, waiting, never = filter_project_layer(_nested(key, value), Path("/srv/p"), {},
                                                trusted, rules)
    assert kept == {} and never == [key] and waiting == []
