"""The coder starts probing bubblewrap when it is configured, in a thread, so the tools made a
little later find the answer ready (a ``-p`` run does not wait for the probe's process)."""

from __future__ import annotations

import shutil
import threading

import pytest
from chatcli import Settings
from chatcli_coder import _probe, plugin
from chatcli_coder._settings import CoderSettings


def _probe_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "chatcli-bwrap-probe"]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> dict[str, str | None]:
    probed: dict[str, str | None] = {}
    monkeypatch.setattr(_probe, "_probed", probed)
    return probed


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_configure_probes_in_the_background(fresh: dict[str, str | None]) -> None:
    plugin.configure(settings=Settings())
    for thread in _probe_threads():
        thread.join(30)
    assert fresh == {shutil.which("bwrap"): None}  # bwrap works on these machines
    assert _probe.will_confine(CoderSettings()) is True


@pytest.mark.parametrize(("table", "why"), [
    ({"sandbox": "off"}, "the sandbox is off"),
    ({"sandbox": "nonsense"}, "a bad table is reported when the tools are made"),
])
def test_configure_starts_no_probe(fresh: dict[str, str | None], table: dict[str, str],
                                   why: str) -> None:
    plugin.configure(settings=Settings.model_validate({"coder": table}))
    assert not _probe_threads() and fresh == {}, why
