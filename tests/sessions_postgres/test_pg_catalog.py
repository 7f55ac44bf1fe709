"""``chatcli serve``'s view of the sessions (the ``session_catalog`` hook, answered by
chatcli-sessions through whichever store ``[sessions] backend`` names) on PostgreSQL: what one
replica wrote, another lists, exports and deletes."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chatcli import PluginHost, load_settings
from sessions_postgres_support import turn, wired


@pytest.fixture
def catalog_host(monkeypatch: pytest.MonkeyPatch, no_database_url: Path,
                 pg_schema_url: str) -> Iterator[PluginHost]:
    """chatcli-sessions and chatcli-sessions-postgres from their entry points, configured for
    the test's schema."""
    (no_database_url / "config" / "config.toml").write_text(
        f'[sessions]\nbackend = "postgres"\npostgres_url = "{pg_schema_url}"\n')
    monkeypatch.setenv("CHATCLI_PLUGINS", "sessions,sessions-postgres")

    def warn(line: str) -> None:
        raise AssertionError(f"plugin failure: {line}")

    host = PluginHost(warn=warn)
    host.load_entry_points()
    host.hooks.configure(host=host, settings=load_settings(), workspace=Path.cwd())
    yield host
    from chatcli_sessions.stores import close_stores

    close_stores()


def test_the_catalog_reads_what_another_replica_wrote(catalog_host: PluginHost,
                                                      open_store, tmp_path: Path) -> None:
    replica = open_store()
    first = wired(replica)
    first.metadata["cwd"] = str(tmp_path)
    turn(first, "deploy the team server", "use three replicas")
    second = wired(replica)
    second.metadata["cwd"] = str(tmp_path / "elsewhere")
    turn(second, "another question")
    catalog = catalog_host.hook.session_catalog()
    listed = catalog.list(None, limit=10)
    assert [s.id for s in listed] == [second.id, first.id]
    assert listed[1].title == "deploy the team server" and listed[1].messages == 2
    assert [s.id for s in catalog.list(str(tmp_path / "elsewhere"))] == [second.id]
    exported = json.loads(catalog.export(first.id, "json"))
    assert exported["session"]["id"] == first.id
    assert "use three replicas" in catalog.export(first.id, "md")
    assert catalog.delete(first.id) and replica.info(first.id) is None
    assert [s.id for s in catalog.list(None)] == [second.id]
