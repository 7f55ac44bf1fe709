"""The lines that word what trusting a project changes (chatcli_workspace's trust texts), in
English and in Brazilian Portuguese."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli._trust import forget
from chatcli_workspace import trust_notice, trust_summary


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CHATCLI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("CHATCLI_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "project"
    (folder / ".chatcli").mkdir(parents=True)
    (folder / ".chatcli" / "config.toml").write_text('system = "s"\nmax_turns = 3\n')
    forget()
    yield folder
    forget()


def test_the_trust_lines_in_both_languages(project: Path, chatcli_language) -> None:
    assert trust_notice(project) == (
        "this project is not trusted: ignored .chatcli/config.toml (system) — run "
        "`chatcli trust` to use them")
    assert trust_summary(project) == [
        ".chatcli/config.toml: trusting applies system; applied already (they only tighten): "
        "max_turns"]
    chatcli_language("pt_BR")
    assert trust_notice(project) == (
        "este projeto não é confiável; o chatcli ignorou .chatcli/config.toml (system) — rode "
        "`chatcli trust` para usá-los")
    assert trust_summary(project) == [
        ".chatcli/config.toml: confiar aplica system; já aplicadas (só restringem): max_turns"]
