"""Running a shell command for the model: its own process group, live output, head and tail
kept, timeout and cancellation killing the whole group, and a bubblewrap sandbox.

The sandbox (``bwrap``): the whole filesystem read-only (``--ro-bind / /``), the workspace and
the allowed folders writable (read-only when the call's :class:`chatcli.Confinement` is not
``writable``), chatcli's and git's control files in them read-only (unless
``protected_writable``), the paths the confinement hides replaced by an empty file or an empty
read-only folder, a private ``/tmp`` (virtual environments and ``PATH`` folders under it shown
read-only), fresh ``/dev`` and ``/proc``, its own PID namespace (chatcli and its environment are
not there; when the command ends or is stopped, everything it started dies with it), no
capabilities (``--cap-drop ALL``: nothing it does can unmount what hides or protects), no
network unless asked (``--unshare-net``), and ``--die-with-parent``: nothing outlives chatcli.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import queue
import select
import shutil
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from chatcli_coder._common import CoderSettings, SandboxUnavailable
from chatcli_coder._probe import _probe, _probe_lock, probe_in_background, will_confine

__all__ = ["Outcome", "Sandbox", "choose_sandbox", "probe_in_background", "run_command",
           "will_confine"]

#: Seconds between SIGTERM and SIGKILL.
KILL_GRACE = 2.0
#: Seconds of silence after the command exits before what it left running is killed (output
#: still flowing, from the pipe or from what is queued, keeps it reading, up to LINGER).
DRAIN = 0.3
LINGER = 10.0
#: A line longer than this is split (a progress bar without newlines).
MAX_LINE = 4_000


# ------------------------------------------------------------------------------ the sandbox


@dataclass(frozen=True)
class Sandbox:
    """How commands run: ``bwrap`` (the path of the binary) or None (unconfined), and the note
    the model gets about it once."""

    bwrap: str | None
    note: str = ""


_told_missing = False


def choose_sandbox(settings: CoderSettings) -> Sandbox:
    """The sandbox ``[coder] sandbox`` asks for: ``off``; ``bwrap`` (an error when it cannot
    run); ``auto`` (bwrap where it works, else unconfined, said once per process)."""
    global _told_missing
    if settings.sandbox == "off":
        return Sandbox(None)
    binary = shutil.which("bwrap")
    why = "bwrap (bubblewrap) is not installed" if binary is None else _probe(binary)
    if why is None:
        return Sandbox(binary)
    if settings.sandbox == "bwrap":
        raise SandboxUnavailable(f"[coder] sandbox = \"bwrap\" but {why}; install bubblewrap "
                                 "(apt-get install bubblewrap) or set [coder] sandbox = \"auto\"")
    with _probe_lock:
        told, _told_missing = _told_missing, True
    if told:
        return Sandbox(None)
    return Sandbox(None, f"[no sandbox: {why}; the command runs unconfined, with the network, "
                         "and only the permission policy guards it]")


def sandboxed(argv: list[str], bwrap: str, cwd: Path, writable: list[Path],
              network: bool, *, readonly: list[Path] | tuple[Path, ...] = (),
              protected: list[Path] | tuple[Path, ...] = (),
              hidden: list[tuple[Path, bool]] | tuple[tuple[Path, bool], ...] = ()
              ) -> list[str]:
    """``argv`` wrapped in bubblewrap: ``writable`` folders bound writable and ``readonly``
    ones read-only (over the private ``/tmp`` too; shorter paths first, so a folder inside
    another one is bound after it), then each ``protected`` path bound read-only over itself,
    then each ``hidden`` ``(path, is_folder)`` covered: an empty read-only folder over a folder,
    ``/dev/null`` over a file."""
    wrapped = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
               "--tmpfs", "/tmp"]
    for folder in _programs_under_tmp():
        wrapped += ["--ro-bind", str(folder), str(folder)]
    seen: set[Path] = set()
    roots = [(folder, True) for folder in writable] + [(folder, False) for folder in readonly]
    for folder, write in sorted(roots, key=lambda item: len(item[0].parts)):
        if folder in seen or not folder.is_dir():
            continue
        seen.add(folder)
        wrapped += ["--bind" if write else "--ro-bind", str(folder), str(folder)]
    for path in sorted(set(protected), key=lambda p: (len(p.parts), str(p))):
        if os.path.lexists(path):
            wrapped += ["--ro-bind", str(path), str(path)]
    for path, is_dir in hidden:
        if is_dir:
            wrapped += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            wrapped += ["--ro-bind", "/dev/null", str(path)]
    if not network:
        wrapped.append("--unshare-net")
    wrapped += ["--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session",
                "--cap-drop", "ALL", "--chdir", str(cwd), "--"]
    return wrapped + argv


def _programs_under_tmp() -> list[Path]:
    """Folders under ``/tmp`` that commands need to find their programs — virtual environments
    and ``PATH`` entries there, and the Python chatcli runs on with its import path — shown
    read-only over the private
    ``/tmp`` (a project checked out under ``/tmp`` with its ``.venv`` beside it still runs)."""
    import sys

    candidates = [Path(sys.prefix), Path(sys.base_prefix)]
    candidates += [Path(entry) for entry in sys.path if entry]  # editable installs' sources
    if os.environ.get("VIRTUAL_ENV"):
        candidates.append(Path(os.environ["VIRTUAL_ENV"]))
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if entry:
            folder = Path(entry)
            venv = folder.parent
            candidates.append(venv if (venv / "pyvenv.cfg").is_file() else folder)
    found: list[Path] = []
    for candidate in candidates:
        try:
            real = candidate.resolve()
        except OSError:
            continue
        if real.parts[:2] == ("/", "tmp") and len(real.parts) > 2 and real.is_dir() and (
                real not in found):
            found.append(real)
    return sorted(found, key=lambda p: len(p.parts))


def shell() -> str:
    """bash, or sh where there is no bash."""
    return shutil.which("bash") or shutil.which("sh") or "/bin/sh"


# ------------------------------------------------------------------------------ output


class Collector:
    """Output lines, keeping the head and the tail within ``budget`` characters."""

    def __init__(self, budget: int) -> None:
        self.head_budget = max(budget * 2 // 5, 200)
        self.tail_budget = max(budget - self.head_budget, 200)
        self.head: list[str] = []
        self.head_size = 0
        self.tail: deque[str] = deque()
        self.tail_size = 0
        self.head_full = False
        self.dropped_lines = 0
        self.dropped_chars = 0
        self.lines = 0

    def add(self, line: str) -> None:
        self.lines += 1
        limit = self.tail_budget // 2
        if len(line) > limit:
            line = f"{line[:limit]}… [{len(line) - limit:,} characters of this line cut]"
        if not self.head_full and self.head_size + len(line) + 1 <= self.head_budget:
            self.head.append(line)
            self.head_size += len(line) + 1
            return
        self.head_full = True
        self.tail.append(line)
        self.tail_size += len(line) + 1
        while self.tail_size > self.tail_budget and self.tail:
            gone = self.tail.popleft()
            self.tail_size -= len(gone) + 1
            self.dropped_lines += 1
            self.dropped_chars += len(gone) + 1

    def text(self) -> str:
        parts = list(self.head)
        if self.dropped_lines:
            parts.append(f"[… {self.dropped_lines:,} lines ({self.dropped_chars:,} characters) "
                         "left out; rerun with the output filtered (grep, head, tail) to see "
                         "them …]")
        parts.extend(self.tail)
        return "\n".join(parts)


# ------------------------------------------------------------------------------ running


@dataclass
class Outcome:
    """How a command ended."""

    exit_code: int | None
    output: str
    seconds: float
    timed_out: bool = False
    cancelled: bool = False
    killed_leftovers: bool = False
    #: lines before the output (how it ran) and after it (what may explain a failure)
    notes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)


def _reader(fd: int, lines: queue.Queue[str | None], stop: threading.Event) -> None:
    """Read ``fd`` and put its lines on ``lines`` (None at the end)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    try:
        while True:
            if stop.is_set():
                break
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            chunk = os.read(fd, 65_536)
            if not chunk:
                break
            pending += decoder.decode(chunk)
            while True:
                newline = pending.find("\n")
                if newline < 0:
                    break
                lines.put(pending[:newline].rstrip("\r"))
                pending = pending[newline + 1:]
            while len(pending) > MAX_LINE:
                lines.put(pending[:MAX_LINE])
                pending = pending[MAX_LINE:]
        pending += decoder.decode(b"", final=True)
        if pending:
            lines.put(pending.rstrip("\r"))
    except OSError:
        pass
    finally:
        lines.put(None)


def _kill_group(process: subprocess.Popen[bytes], grace: float = KILL_GRACE) -> None:
    """SIGTERM to the command's whole process group, SIGKILL to what is left after
    ``grace`` seconds."""
    pgid = process.pid
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if process.poll() is not None and not _group_alive(pgid):
            return
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_command(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    budget: int,
    output: Callable[[str], None],
    cancelled: Callable[[], bool],
) -> Outcome:
    """Run ``argv`` in a new session (its own process group), stdout and stderr together.

    Each line goes to ``output`` as it arrives (on this thread) and into the result (head and
    tail kept within ``budget`` characters). The group is killed on timeout, when
    ``cancelled()`` turns true, on KeyboardInterrupt (re-raised), and once the command exits
    (what it left running in the background). Never raises for a failing command.
    """
    started = time.monotonic()
    collector = Collector(budget)
    read_fd, write_fd = os.pipe()
    try:
        process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=write_fd,
            stderr=write_fd, start_new_session=True, close_fds=True)
    except BaseException:
        os.close(read_fd)
        os.close(write_fd)
        raise
    os.close(write_fd)
    lines: queue.Queue[str | None] = queue.Queue()
    stop = threading.Event()
    reader = threading.Thread(target=_reader, args=(read_fd, lines, stop), daemon=True,
                              name="chatcli-exec-output")
    reader.start()
    outcome = Outcome(exit_code=None, output="", seconds=0.0)
    deadline = started + timeout
    exited_at: float | None = None
    last_line = started
    finished_reading = False
    try:
        while True:
            try:
                line = lines.get(timeout=0.05)
            except queue.Empty:
                line = ""
                empty = True
            else:
                empty = False
            now = time.monotonic()
            if not empty:
                if line is None:
                    finished_reading = True
                else:
                    last_line = now
                    collector.add(line)
                    with contextlib.suppress(Exception):
                        output(line)
            if process.poll() is not None:
                if exited_at is None:
                    exited_at = now
                if finished_reading or now - max(exited_at, last_line) > DRAIN or (
                        now - exited_at > LINGER):
                    break
                continue
            if cancelled():
                outcome.cancelled = True
                _kill_group(process)
                break
            if time.monotonic() > deadline:
                outcome.timed_out = True
                _kill_group(process)
                break
    except BaseException:  # KeyboardInterrupt in a one-shot run: nothing may outlive it
        _kill_group(process, grace=0.5)
        stop.set()
        raise
    finally:
        if process.poll() is not None and _group_alive(process.pid):
            outcome.killed_leftovers = not (outcome.timed_out or outcome.cancelled)
            _kill_group(process, grace=0.5)
        reader.join(timeout=1)  # what is still in the pipe (a process that left the group
        stop.set()  # may hold it open: then stop reading)
        reader.join(timeout=2)
        with contextlib.suppress(OSError):
            os.close(read_fd)
    while True:  # what the reader still had
        try:
            line = lines.get_nowait()
        except queue.Empty:
            break
        if line is not None:
            collector.add(line)
            with contextlib.suppress(Exception):
                output(line)
    outcome.exit_code = process.returncode
    outcome.output = collector.text()
    outcome.seconds = time.monotonic() - started
    return outcome
