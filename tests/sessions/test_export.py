"""Markdown export of an answer cut short inside a code block (real chatcli processes)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from pathlib import Path

from chatcli_sessions.store import SessionStore
from markdown_it import MarkdownIt
from sessions_helpers import FakeApp
from test_cli import CHATCLI, run_chatcli


def interrupt_when(marker: str, args: list[str], env: dict[str, str]) -> int:
    """Start ``chatcli ARGS``, press Ctrl+C (SIGINT) once ``marker`` is on its output."""
    process = subprocess.Popen([str(CHATCLI), *args], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    assert process.stdout is not None
    seen, deadline = b"", time.monotonic() + 30
    try:
        while marker.encode() not in seen and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.1)[0]:
                seen += os.read(process.stdout.fileno(), 4096)
        assert marker.encode() in seen, seen
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
    return code


def test_an_answer_cut_inside_a_code_block_is_closed_and_marked(home: Path, openai_server,
                                                               tmp_path: Path) -> None:
    from chatcli_testing import Reply

    env = dict(os.environ, OPENAI_API_KEY="test", OPENAI_BASE_URL=openai_server.url)
    body = "".join(f"line_{n} = {n}\n" for n in range(3000))
    openai_server.script(Reply(text="Here it is:\n\n```python\n" + body + "```\n", chunk_size=8,
                               delay=0.01),
                         Reply(text="Sure, *shorter* then."))
    code = interrupt_when("line_3 =", ["--provider", "openai", "-p", "write a long script"], env)
    assert code == 130
    result = run_chatcli("--provider", "openai", "-c", "-p", "make it shorter", env=env)
    assert result.returncode == 0, result.stderr
    with SessionStore(home / "data" / "sessions.db") as store:
        [info] = store.list()

    exported = run_chatcli("sessions", "export", info.id)
    assert exported.returncode == 0, exported.stderr
    text = exported.stdout
    assert "## Assistant (" in text and "— interrupted" in text
    assert "_(interrupted: the answer stops here)_" in text
    tokens = MarkdownIt().parse(text)
    [fence] = [t for t in tokens if t.type == "fence"]
    assert fence.info == "python" and fence.content.startswith("line_0 = 0\n")
    assert "make it shorter" not in fence.content and "interrupted" not in fence.content
    after = tokens[tokens.index(fence) + 1:]  # what follows the block is markdown again
    headings = [after[i + 1].content for i, t in enumerate(after) if t.type == "heading_open"]
    assert [h.split(" ")[0] for h in headings] == ["User", "Assistant"]
    inline = [c.type for t in after if t.type == "inline" for c in t.children or []]
    assert "em_open" in inline  # "*shorter*" of the next answer

    target = tmp_path / "out.md"
    assert run_chatcli("sessions", "export", info.id, "-o", str(target)).returncode == 0
    assert target.read_text() == text
    assert run_chatcli("sessions", "show", info.id).stdout == text


def test_slash_session_export_closes_the_fence_too(app: FakeApp, tmp_path: Path) -> None:
    from chatcli import Message

    conversation = app.conversation
    conversation.checkpoint("show me")
    conversation.append(Message.user("show me"))
    cut = Message.assistant("~~~~sh\necho ~~~\n```\nstill code")
    cut.interrupted = True
    conversation.append(cut)
    conversation.append(Message.user("and *then*?"))
    target = tmp_path / "chat.md"
    app.run(f"/session export markdown {target}")
    tokens = MarkdownIt().parse(target.read_text())
    [fence] = [t for t in tokens if t.type == "fence"]
    assert fence.markup == "~~~~" and fence.content == "echo ~~~\n```\nstill code\n"
    assert "— interrupted" in target.read_text()
    assert [t.content for t in tokens if t.type == "inline"][-1] == "and *then*?"


def test_close_fences_leaves_closed_and_non_fences_alone() -> None:
    from chatcli_sessions.export import close_fences

    closed = "a\n```py\nx\n```\nb"
    assert close_fences(closed) == closed
    assert close_fences("``` not `a fence`\ntext") == "``` not `a fence`\ntext"
    assert close_fences("````\n```\nx") == "````\n```\nx\n````"  # a shorter fence is content
    assert close_fences("   ```\nx\n````   ") == "   ```\nx\n````   "
    assert close_fences("```\nx\n``` y") == "```\nx\n``` y\n```"  # a closing fence has no info
