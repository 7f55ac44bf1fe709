"""The one-shot front end (``chatcli -p``) shows a compaction as one ``⟲`` line on stderr (stdout
keeps only the answer) and skips events it does not know."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from chatcli import Compacted, TextDelta, TurnFinished, Usage
from chatcli_plugin_records import CompactionReport
from chatcli_print.oneshot import _consume, _Output


class _Newer:
    """An event a newer engine might yield."""


def test_one_line_on_stderr_and_unknown_events_skipped(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    report = CompactionReport(tokens_before=91_000, tokens_after=22_000)
    report.compactions = [SimpleNamespace(strategy="trim"), SimpleNamespace(strategy="summarise")]
    out = io.StringIO()
    finished = _consume(iter([TextDelta("partial "), Compacted(report), _Newer(),
                              TextDelta("answer"), TurnFinished("end_turn", Usage())]),
                        _Output(out, "plain"), None)
    assert finished is not None
    assert out.getvalue() == "partial \nanswer"
    assert capsys.readouterr().err == (
        "chatcli: ⟲ compacted with trim, summarise: ~91,000 → ~22,000 tokens\n")
