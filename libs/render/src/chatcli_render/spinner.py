"""A one-line "waiting for PROVIDER/MODEL…" spinner on a terminal's stderr.

``chatcli -p`` shows it while the model has not answered yet, so a slow first token does not
look like a hang. A thread draws it; :meth:`Spinner.stop` erases the line before the answer
(or anything else) is printed, and :meth:`Spinner.say` prints a status line above it.
:func:`activity` names what a running tool does, for a spinner's text (``edit calc.py``,
``running exec``) instead of a bare "thinking".
"""

from __future__ import annotations

import shutil
import threading
from typing import TextIO

from chatcli import translation

__all__ = ["Spinner", "activity"]

_, ngettext = translation(__name__)

#: Arguments that name the file a tool works on, by the names tools give them.
_PATH_KEYS = ("path", "file_path", "filename", "file", "notebook_path")


def activity(name: str, arguments: object = None, limit: int = 40,
             running: str | None = None) -> str:
    """What a running tool call does, in a few words: ``edit calc.py`` for a call naming a
    file, else ``running exec`` (in the user's language). Control characters are dropped and a
    long path keeps its end (the model writes the arguments: they are shown, never obeyed).
    ``running`` is the words for a call naming no file, with ``{tool}``: a front end may pass
    its own; None is chatcli-render's, translated."""
    tool = _printable(name) or _("tool")
    if isinstance(arguments, dict):
        for key in _PATH_KEYS:
            value = arguments.get(key)
            if isinstance(value, str) and _printable(value).strip():
                path = _printable(value).strip()
                if len(path) > limit:
                    path = "…" + path[-(limit - 1):]
                return f"{tool} {path}"
    return (running if running is not None else _("running {tool}")).format(tool=tool)


def _printable(text: str) -> str:
    return "".join(ch for ch in text if ch.isprintable())


_FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_ASCII_FRAMES = "|/-\\"
#: Erase the current line and go back to its start.
_CLEAR = "\r\x1b[2K"


class Spinner:
    """Draws ``FRAME text`` on ``stream`` every ``interval`` seconds between start and stop.

    The first frame waits ``delay`` seconds, so a quick answer shows no flicker.
    """

    def __init__(self, stream: TextIO, text: str, *, interval: float = 0.1,
                 delay: float = 0.1) -> None:
        self.stream = stream
        self.text = text
        self.interval = interval
        self.delay = delay
        encoding = (getattr(stream, "encoding", None) or "ascii").lower().replace("-", "")
        self._frames = _FRAMES if encoding in ("utf8", "utf8sig") else _ASCII_FRAMES
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._drawn = False

    @property
    def running(self) -> bool:
        return self._thread is not None

    def start(self) -> None:
        """Start spinning (again); nothing when it already spins."""
        if self._thread is not None:
            return
        self._stopping.clear()
        self._thread = threading.Thread(target=self._spin, name="chatcli-spinner", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop and erase the spinner line; nothing when it does not spin."""
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stopping.set()
        thread.join()
        with self._lock:
            self._erase()

    def say(self, line: str) -> None:
        """Print ``line`` on the stream (above the spinner, which is drawn again next tick)."""
        with self._lock:
            self._erase()
            self._write(line + "\n")

    def _spin(self) -> None:
        index = 0
        wait = self.delay
        while not self._stopping.wait(wait):
            wait = self.interval
            width = max(shutil.get_terminal_size().columns - 1, 1)
            frame = f"{self._frames[index % len(self._frames)]} {self.text}"[:width]
            index += 1
            with self._lock:
                if self._stopping.is_set():
                    return
                self._write(f"\r{frame}\x1b[K")
                self._drawn = True

    def _erase(self) -> None:
        if self._drawn:
            self._write(_CLEAR)
            self._drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: nothing left to show
            pass
