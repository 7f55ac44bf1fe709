"""Fixtures for the Q provider tests: the fake ``q`` first on PATH, daemons stopped after."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from q_support import FakeQ, assert_no_orphans, running_fakes


@pytest.fixture
def fake_q(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeQ]:
    """The fake ``q`` on PATH for this test (its variables set); at the end every daemon is
    closed and no fake process may be left running."""
    from chatcli_provider_q._daemon import shutdown_all

    fake = FakeQ(tmp_path / "fake-q")
    for name, value in fake.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("CHATCLI_Q_DAEMON", raising=False)
    yield fake
    shutdown_all()
    assert_no_orphans(fake.pids())
    assert running_fakes(fake) == []
