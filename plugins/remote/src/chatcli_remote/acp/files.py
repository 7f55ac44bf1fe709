"""The editor's buffers as chatcli's file access: the coder's read/write/edit tools read what
the user sees in the editor (unsaved changes included) and write through the editor.

:class:`ClientFiles` follows the kernel's ``FileAccess`` contract (``read_text(path) -> str``,
``write_text(path, text) -> None``); it is called on the engine's thread and asks the editor on
the loop (``fs/read_text_file``, ``fs/write_text_file``), for what the client offered in
``initialize``. A path that is not a file on disk is the disk's business (the error the tool
expects); a failed request falls back to the disk, said on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from chatcli import translation

if TYPE_CHECKING:
    from acp.interfaces import Client

    from chatcli_remote.acp.outbox import Outbox

__all__ = ["ClientFiles"]

_, ngettext = translation(__name__)


class ClientFiles:
    """Files read and written through the ACP client (see the module's docstring).

    :param conn: the connection to the client.
    :param outbox: the bridge to the connection's loop.
    :param session_id: the ACP session the requests belong to.
    :param read: whether the client offered ``fs.read_text_file``.
    :param write: whether the client offered ``fs.write_text_file``.
    """

    def __init__(self, conn: Client, outbox: Outbox, session_id: str, *, read: bool,
                 write: bool) -> None:
        self.conn = conn
        self.outbox = outbox
        self.session_id = session_id
        self.read = read
        self.write = write

    def read_text(self, path: Path) -> str:
        """The text of ``path`` as the editor has it (its buffer when open)."""
        if self.read and path.is_file():
            try:
                answer = self.outbox.call(
                    lambda: self.conn.read_text_file(session_id=self.session_id,
                                                     path=str(path)))
                return answer.content
            except Exception as err:
                print(_("chatcli acp: the editor could not read {path} ({reason}); read from "
                        "disk").format(path=path, reason=err), file=sys.stderr)
        return path.read_bytes().decode("utf-8")

    def write_text(self, path: Path, text: str) -> None:
        """Write ``text`` to ``path`` through the editor (its buffer and the file)."""
        if self.write:
            try:
                self.outbox.call(lambda: self.conn.write_text_file(
                    session_id=self.session_id, path=str(path), content=text))
                return
            except Exception as err:
                print(_("chatcli acp: the editor could not write {path} ({reason}); written to "
                        "disk").format(path=path, reason=err), file=sys.stderr)
        from chatcli import atomic_write

        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text.encode("utf-8"))
