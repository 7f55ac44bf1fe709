"""The JSON-lines file: private modes, rotation by size with a count of files kept, and lines
that stay whole when several processes append and rotate at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from chatcli_audit.query import Filters, read_records
from chatcli_audit.writer import JsonlWriter, rotated_files


def _line(number: int, size: int = 60) -> bytes:
    record = {"kind": "model_call", "n": number, "pad": "x" * (size - len(str(number)))}
    return json.dumps(record).encode() + b"\n"


def test_the_folder_is_0700_and_the_file_0600_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        writer = JsonlWriter(tmp_path / "deep" / "audit" / "audit.jsonl", 10_000, 2)
        writer.append(_line(1))
    finally:
        os.umask(old)
        writer.close()
    assert (tmp_path / "deep" / "audit").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "deep" / "audit" / "audit.jsonl").stat().st_mode & 0o777 == 0o600


def test_a_file_left_readable_by_others_is_made_private(tmp_path: Path) -> None:
    file = tmp_path / "audit.jsonl"
    file.write_bytes(_line(0))
    file.chmod(0o644)
    writer = JsonlWriter(file, 10_000, 2)
    writer.append(_line(1))
    writer.close()
    assert file.stat().st_mode & 0o777 == 0o600
    assert file.read_bytes() == _line(0) + _line(1)


def test_rotation_keeps_the_newest_files_and_never_passes_the_size(tmp_path: Path) -> None:
    file = tmp_path / "audit.jsonl"
    line_size = len(_line(0))
    writer = JsonlWriter(file, line_size * 3, 2)
    for number in range(20):
        writer.append(_line(number))
    writer.close()
    assert [p.name for p in rotated_files(file)] == ["audit.jsonl.2", "audit.jsonl.1"]
    for path in [file, *rotated_files(file)]:
        assert path.stat().st_size <= line_size * 3
        assert path.stat().st_mode & 0o777 == 0o600
    kept = [r["n"] for r in read_records(file, Filters()).records]
    assert kept == list(range(12, 20))  # the last three files' lines, oldest first


def test_keep_zero_drops_the_old_records_and_a_lowered_keep_removes_the_extra(
        tmp_path: Path) -> None:
    file = tmp_path / "audit.jsonl"
    size = len(_line(0))
    writer = JsonlWriter(file, size * 2, 4)
    for number in range(12):
        writer.append(_line(number))
    writer.close()
    assert len(rotated_files(file)) == 4
    writer = JsonlWriter(file, size * 2, 1)
    writer.append(_line(12))
    writer.close()
    assert [p.name for p in rotated_files(file)] == ["audit.jsonl.1"]
    writer = JsonlWriter(file, size * 2, 0)
    for number in range(13, 16):
        writer.append(_line(number))
    writer.close()
    assert rotated_files(file) == []
    assert [r["n"] for r in read_records(file, Filters()).records] == [14, 15]


def test_a_single_line_bigger_than_the_limit_is_still_written_whole(tmp_path: Path) -> None:
    file = tmp_path / "audit.jsonl"
    writer = JsonlWriter(file, 4096, 1)
    writer.append(_line(1, 5000))
    writer.append(_line(2, 5000))
    writer.close()
    assert [r["n"] for r in read_records(file, Filters()).records] == [1, 2]


WRITER = """
import json, sys
from pathlib import Path
from chatcli_audit.writer import JsonlWriter
file, who, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
writer = JsonlWriter(file, 20_000, 1000)
for number in range(count):
    line = json.dumps({"who": who, "n": number, "pad": who * (50 + number % 200)})
    writer.append(line.encode() + b"\\n")
"""


@pytest.mark.slow
def test_processes_appending_and_rotating_at_once_lose_and_tear_no_line(
        tmp_path: Path) -> None:
    file = tmp_path / "audit.jsonl"
    count, names = 400, ["a", "b", "c", "d"]
    running = [subprocess.Popen([sys.executable, "-c", WRITER, str(file), name, str(count)])
               for name in names]
    assert all(process.wait(timeout=120) == 0 for process in running)
    reading = read_records(file, Filters())
    assert reading.skipped == 0  # every line whole
    assert len(rotated_files(file)) > 3  # it did rotate, many times
    for name in names:
        mine = [r["n"] for r in reading.records if r["who"] == name]
        assert mine == list(range(count))  # none lost, none twice, in its order
