"""``@path`` references: which words name files, and what a message carries for each."""

from __future__ import annotations

from pathlib import Path

import pytest
from chatcli import ImagePart, TextPart, UsageError
from chatcli_repl.attach import MAX_BYTES, references, typed_text, user_message
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("print('a')\n")
    (tmp_path / "b.md").write_text("# B\n")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20)
    (tmp_path / "dir").mkdir()
    return tmp_path


def test_references_are_existing_files_once_each_with_trailing_punctuation_dropped(
        files: Path) -> None:
    text = "see @a.py, then @b.md. and @a.py again; mail me@a.py and @nobody"
    assert references(text, files) == [("a.py", files / "a.py"), ("b.md", files / "b.md")]


def test_a_message_carries_the_typed_text_then_each_file(files: Path) -> None:
    message = user_message("compare @a.py with @pic.png", files)
    assert typed_text(message) == "compare @a.py with @pic.png"
    text, image = message.parts[1:]
    assert isinstance(text, TextPart) and text.text.strip() == (
        '<file path="a.py">\nprint(\'a\')\n</file>')
    assert isinstance(image, ImagePart) and image.media_type == "image/png"
    assert image.source == str(files / "pic.png")


@pytest.mark.parametrize(("name", "content", "error"), [
    ("dir", None, "@dir is a folder"),
    ("blob", b"\x00\x01\x02binary", "@blob is a binary file"),
    ("latin1", "café".encode("latin-1"), "@latin1 is a binary file"),
    ("big.log", b"x" * (MAX_BYTES + 1), "@big.log is too big to attach (256 KB"),
])
def test_what_cannot_be_attached_stops_the_message_in_one_line(
        files: Path, name: str, content: bytes | None, error: str) -> None:
    if content is not None:
        (files / name).write_bytes(content)
    with pytest.raises(UsageError) as err:
        user_message(f"look at @{name}", files)
    assert str(err.value).startswith(error) and "\n" not in str(err.value)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(exclude_characters="@"), max_size=80))
def test_text_without_at_is_sent_as_typed(text: str) -> None:
    message = user_message(text, Path("/nonexistent-dir-for-chatcli-tests"))
    assert [p.text for p in message.parts if isinstance(p, TextPart)] == [text]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_any_text_parses_without_error(text: str) -> None:
    found = references(text, Path("/nonexistent-dir-for-chatcli-tests"))
    assert all(written in text for written, _ in found)
