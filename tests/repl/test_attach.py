"""``@path`` references: which words name files, and what a message carries for each — and, in
a real terminal (tmux), a text file attached to what is sent while a binary one stops the
message."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chatcli import ImagePart, TextPart, UsageError
from chatcli_repl.attach import MAX_BYTES, references, typed_text, user_message
from chatcli_testing import Reply
from hypothesis import given, settings
from hypothesis import strategies as st

from .terminal import Terminal


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


def openai_env(server: object) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": server.url}  # type: ignore[attr-defined]


def last_user_content(server: object) -> str:
    content = server.requests[-1].json["messages"][-1]["content"]  # type: ignore[attr-defined]
    assert isinstance(content, str)
    return content


def input_line(screen: str) -> str:
    """The last prompt line on the screen."""
    return [line for line in screen.splitlines() if line.startswith("›")][-1]


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path: the screen is 100 columns wide, and pytest's tmp_path under
    xdist (…/popen-gw0/test_…0) would wrap the lines the test reads."""
    with tempfile.TemporaryDirectory(prefix="at-", dir="/tmp") as name:
        yield Path(name)


@pytest.mark.terminal
def test_at_path_attaches_text_files_and_refuses_binary_ones(
        start_chat: Callable[..., Terminal], openai_server, short_dir: Path) -> None:
    tmp_path = short_dir
    (tmp_path / "notes.txt").write_text("the secret number is 4711\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)) * 4)
    openai_server.script(Reply(text="it is 4711"))
    term = start_chat("--provider", "openai", **openai_env(openai_server))
    term.type(f"what number is in @{tmp_path}/notes.txt?")
    term.wait_for("it is 4711")
    sent = last_user_content(openai_server)
    assert sent.startswith(f"what number is in @{tmp_path}/notes.txt?")
    assert f'<file path="{tmp_path}/notes.txt">' in sent and "the secret number is 4711" in sent
    screen = term.screen()
    assert screen.count("the secret number is 4711") == 0  # the echo shows what was typed

    term.type(f"and @{tmp_path}/blob.bin")
    screen = term.wait_for("is a binary file")
    assert "Traceback" not in screen and "not sent" in screen
    term.wait_for(lambda s: input_line(s).rstrip() == f"› and @{tmp_path}/blob.bin")
    assert len(openai_server.requests) == 1  # nothing was sent
