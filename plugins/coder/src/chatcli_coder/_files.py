"""The file tools: read, write, edit, multiedit, apply_patch.

They read and write a file's text through ``context.files`` (the disk, or an editor's unsaved
buffers): what the model reads, and what its edits are based on, is what the user sees. Whether
a file exists, is text and is not too large, and the read-before-edit stamps, are the disk's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli_render.diff import plus_minus, stats, unified

from chatcli_coder._common import (
    HASH_MAX_BYTES,
    BinaryFile,
    NotAFile,
    PatchError,
    ToolError,
    atomic_write,
    binary_kind,
    check_read,
    display,
    forget,
    looks_binary,
    missing,
    read_text_for_edit,
    remember,
    resolve_path,
)
from chatcli_coder._matching import plan_edit, replace_text

if TYPE_CHECKING:
    from chatcli import ToolContext

#: Lines a read returns when no range is given.
DEFAULT_LINES = 2_000
#: Characters of one line shown (the rest is cut, with a note).
MAX_LINE_CHARS = 2_000
#: Characters the read keeps for its notes.
_RESERVE = 400


# ------------------------------------------------------------------------------ read


def file_bytes(context: ToolContext, target: Path) -> bytes:
    """The content of an existing file as the model sees it: its text through
    ``context.files``, or its bytes on disk when they are not UTF-8."""
    try:
        return context.files.read_text(target).encode("utf-8", errors="replace")
    except UnicodeDecodeError:
        return target.read_bytes()


def _remember_written(context: ToolContext, target: Path, data: bytes) -> None:
    """Stamp a file just written (not when ``context.files`` keeps it off the disk)."""
    with contextlib.suppress(FileNotFoundError):
        remember(context, target, data)


def _count_lines(target: Path) -> int:
    count = 0
    last = b"\n"
    with open(target, "rb") as handle:
        while chunk := handle.read(1 << 20):
            count += chunk.count(b"\n")
            last = chunk[-1:]
    return count + (last != b"\n")


def _lines_from(target: Path, data: bytes | None, first: int) -> Iterator[bytes]:
    """The lines of the file from index ``first`` on (without their ``\\n``)."""
    if data is not None:
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        yield from lines[first:]
        return
    with open(target, "rb") as handle:
        for index, raw in enumerate(handle):
            if index >= first:
                yield raw[:-1] if raw.endswith(b"\n") else raw


def read_file(args: Any, context: ToolContext) -> str:
    """The ``read`` tool."""
    target = resolve_path(args.path, context)
    shown = display(target, context)
    if not target.exists():
        raise missing(args.path, target, context)
    if target.is_dir():
        raise NotAFile(f"'{shown}' is a folder: list it with the tree or glob tool")
    if not target.is_file():
        raise NotAFile(f"'{shown}' is not a regular file (a device or a pipe)")
    size = target.stat().st_size
    with open(target, "rb") as handle:
        sample = handle.read(8_192)
    if looks_binary(sample):
        raise BinaryFile(f"'{shown}' is {binary_kind(sample)} ({size:,} bytes), not text: "
                         "it is not shown")
    data = file_bytes(context, target) if size <= HASH_MAX_BYTES else None
    total = (data.count(b"\n") + (not data.endswith(b"\n")) if data else 0) if data is not None \
        else _count_lines(target)
    remember(context, target, data)
    if total == 0:
        return f"'{shown}' is empty (0 bytes)"
    if args.tail is not None:
        first = max(total - args.tail, 0)
        wanted = args.tail
    elif args.head is not None:
        first, wanted = 0, args.head
    else:
        first = (args.offset or 1) - 1
        wanted = args.limit or DEFAULT_LINES
    if first >= total:
        raise ToolError(f"'{shown}' has {total:,} lines; offset {first + 1:,} is past its "
                        "end")  # untranslated: model-facing
    budget = max(context.max_output - _RESERVE, 1_000)
    out: list[str] = []
    used = 0
    shown_last = first
    cut_lines = 0
    for index, raw in enumerate(_lines_from(target, data, first), first):
        if index >= first + wanted:
            break
        text = raw.decode("utf-8", errors="replace").rstrip("\r")
        if len(text) > MAX_LINE_CHARS:
            text = f"{text[:MAX_LINE_CHARS]}… [{len(text) - MAX_LINE_CHARS:,} more characters]"
            cut_lines += 1
        row = f"{index + 1:>6}\t{text}"
        if used + len(row) + 1 > budget and out:
            break
        out.append(row)
        used += len(row) + 1
        shown_last = index + 1
    notes: list[str] = []
    if first > 0 or shown_last < total:
        notes.append(f"[lines {first + 1:,}-{shown_last:,} of {total:,} shown")
        if shown_last < total:
            reason = "" if shown_last >= first + wanted else " (the output limit was reached)"
            notes[-1] += f"{reason}; read on with offset={shown_last + 1}"
        if first > 0:
            notes[-1] += "; earlier lines: offset=1"
        notes[-1] += "]"
    if size > HASH_MAX_BYTES:
        notes.append(f"['{shown}' is a large file ({size:,} bytes): read it in ranges or use "
                     "the search tool]")
    if cut_lines:
        notes.append(f"[{cut_lines} long line(s) were cut at {MAX_LINE_CHARS:,} characters]")
    return "\n".join(out + notes)


# ------------------------------------------------------------------------------ claims

#: How long a write waits for a file another worker holds (``[agents] lock_wait``), seconds.
LOCK_WAIT = 30.0


def lock_wait(context: ToolContext) -> float:
    """``[agents] lock_wait`` (seconds; :data:`LOCK_WAIT` when unset or not a number)."""
    value = context.settings.plugin_table("agents").get("lock_wait", LOCK_WAIT)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return LOCK_WAIT
    return float(value)


def claim_file(target: Path, context: ToolContext) -> None:
    """Claim ``target`` for the call's conversation before it is read for a change (by the
    preview shown for approval, or by the call) and written: a worker (child conversation)
    holds it until it ends; another worker's claim makes the call wait, at most ``[agents]
    lock_wait`` seconds, then fail with :class:`FileBusy` naming the file as the model writes
    it. (One agent, no worker: a dict truth test.)"""
    owner = context.conversation
    if owner is None:
        return
    from chatcli_workspace import FileBusy, claim, holder  # when a file is written

    if owner.parent is None and holder(target) is None:
        return  # the user's own agent holds nothing: it only waits while a worker holds it
    try:
        claim(target, owner, lock_wait(context), cancel=context.cancel)
    except FileBusy as err:
        raise FileBusy(display(target, context), err.holder, err.waited,
                       cancelled=err.cancelled) from None


# ------------------------------------------------------------------------------ write


def _summary(text: str) -> str:
    lines = text.count("\n") + (bool(text) and not text.endswith("\n"))
    size = len(text.encode())
    return f"{lines:,} line{'s' * (lines != 1)}, {size:,} byte{'s' * (size != 1)}"


def _plan_write(args: Any, context: ToolContext) -> tuple[Path, str, str | None]:
    """(the file, as shown, its text now or None when it does not exist), checked: an
    existing file must have been read and be unchanged since (claimed first)."""
    target = resolve_path(args.path, context)
    claim_file(target, context)
    shown = display(target, context)
    if target.is_dir():
        raise NotAFile(f"'{shown}' is a folder; give the path of a file")
    if not target.exists():
        return target, shown, None
    if not target.is_file():
        raise NotAFile(f"'{shown}' is not a regular file")
    data = file_bytes(context, target)
    check_read(context, target, shown, data)
    return target, shown, data.decode("utf-8", errors="replace")


def preview_write(args: Any, context: ToolContext) -> str:
    """What ``write`` would change, as a unified diff (raises what the call would raise)."""
    _target, shown, before = _plan_write(args, context)
    return unified(before, args.content, shown)


def write_file(args: Any, context: ToolContext) -> str:
    """The ``write`` tool."""
    target, shown, before = _plan_write(args, context)
    context.files.write_text(target, args.content)
    _remember_written(context, target, args.content.encode("utf-8"))
    if before is None:
        return f"created {shown} ({_summary(args.content)})"
    counts = _counts(unified(before, args.content, shown))
    return f"replaced {shown} ({_summary(args.content)}; {counts})"


def _counts(diff: str) -> str:
    """``+4 −1``: the lines ``diff`` adds and removes."""
    found = stats(diff)
    return plus_minus(sum(s.added for s in found), sum(s.removed for s in found))


# ------------------------------------------------------------------------------ edits


def _excerpt(text: str, start: int, replacement: str, limit_lines: int = 12) -> str:
    """The lines around an edit, numbered, as the file now is."""
    first = text.count("\n", 0, start)
    lines = text.split("\n")
    changed = replacement.count("\n") + 1
    lo = max(first - 2, 0)
    hi = min(first + changed + 2, len(lines))
    if hi - lo > limit_lines:
        hi = lo + limit_lines
    rows = [f"{n + 1:>6}\t{lines[n].rstrip(chr(13))[:MAX_LINE_CHARS]}" for n in range(lo, hi)]
    return "\n".join(rows)


def _load_for_edit(context: ToolContext, path: str) -> tuple[Path, str, str]:
    target = resolve_path(path, context)
    claim_file(target, context)
    shown = display(target, context)
    if not target.exists():
        raise missing(path, target, context, "; to create a file use the write tool")
    text = read_text_for_edit(target, shown, context.files)
    check_read(context, target, shown, text.encode("utf-8"))
    return target, shown, text


def preview_edit(args: Any, context: ToolContext) -> str:
    """What ``edit`` would change, as a unified diff (raises what the call would raise)."""
    _target, shown, text = _load_for_edit(context, args.path)
    spans, _how = plan_edit(text, args.old, args.new, args.replace_all, shown)
    return unified(text, replace_text(text, spans), shown)


def edit_file(args: Any, context: ToolContext) -> str:
    """The ``edit`` tool."""
    target, shown, text = _load_for_edit(context, args.path)
    spans, how = plan_edit(text, args.old, args.new, args.replace_all, shown)
    new_text = replace_text(text, spans)
    context.files.write_text(target, new_text)
    _remember_written(context, target, new_text.encode("utf-8"))
    found = "" if how == "exact" else f", found {how}"
    count = f"{len(spans)} replacements" if len(spans) > 1 else "1 replacement"
    count += f", {_counts(unified(text, new_text, shown))}"
    first = min(spans, key=lambda s: s.start)
    shift = sum(len(s.replacement) - (s.end - s.start) for s in spans if s.start < first.start)
    excerpt = _excerpt(new_text, first.start + shift, first.replacement)
    return f"edited {shown} ({count}{found}); it now reads:\n{excerpt}"


def _plan_multiedit(args: Any, context: ToolContext
                    ) -> tuple[dict[Path, tuple[str, str, str]], dict[Path, int]]:
    """Each file's (shown, original text, text after the edits), and its replacements (each
    file claimed before it is read; FileBusy is raised as it is)."""
    texts: dict[Path, tuple[str, str, str]] = {}  # target -> (shown, original, current)
    counts: dict[Path, int] = {}
    for number, edit in enumerate(args.edits, 1):
        try:
            target = resolve_path(edit.path, context)
            if target not in texts:
                target, shown, text = _load_for_edit(context, edit.path)
                texts[target] = (shown, text, text)
            shown, original, current = texts[target]
            spans, _how = plan_edit(current, edit.old, edit.new, edit.replace_all, shown)
        except (ToolError, ValueError, OSError) as err:
            name = type(err)
            message = f"edit {number} of {len(args.edits)}: {err}; no file was changed"
            try:
                raised = name(message)
            except Exception:
                raised = ToolError(message)
            raise raised from None
        texts[target] = (shown, original, replace_text(current, spans))
        counts[target] = counts.get(target, 0) + len(spans)
    return texts, counts


def preview_multiedit(args: Any, context: ToolContext) -> str:
    """What ``multiedit`` would change, as a unified diff (raises what the call would raise)."""
    texts, _counts_of = _plan_multiedit(args, context)
    return "".join(unified(original, current, shown)
                   for shown, original, current in texts.values())


def multiedit_files(args: Any, context: ToolContext) -> str:
    """The ``multiedit`` tool: every edit applies, or none."""
    texts, counts = _plan_multiedit(args, context)
    changes: list[tuple[Path, str | None]] = [
        (target, current) for target, (_s, original, current) in texts.items()
        if current != original]
    write_all(changes, context)
    done = ", ".join(f"{texts[t][0]} ({counts[t]} replacement{'s' * (counts[t] > 1)}, "
                     f"{_counts(unified(texts[t][1], texts[t][2], texts[t][0]))})"
                     for t in texts)
    return f"applied {len(args.edits)} edits: {done}"


# ------------------------------------------------------------------------------ patches


def write_all(changes: list[tuple[Path, str | None]], context: ToolContext,
              moves: dict[Path, Path] | None = None) -> None:
    """Write (text, through ``context.files``) or delete (None, on disk) every file, restoring
    all of them if one fails."""
    saved: list[tuple[Path, str | bytes | None]] = []
    try:
        for target, text in changes:
            if text is None:
                saved.append((target, target.read_bytes()))
                target.unlink()
            else:
                saved.append((target, _before_write(context, target)))
                context.files.write_text(target, text)
    except BaseException:
        for target, before in reversed(saved):
            with contextlib.suppress(OSError):
                if before is None:
                    if target.exists():
                        target.unlink()
                elif isinstance(before, bytes):
                    atomic_write(target, before)
                else:
                    context.files.write_text(target, before)
        raise
    for target, text in changes:
        if text is None:
            forget(context, target)
        else:
            _remember_written(context, target, text.encode("utf-8"))


def _before_write(context: ToolContext, target: Path) -> str | bytes | None:
    """What a file about to be written holds, to restore it (None: it does not exist)."""
    if not target.exists():
        return None
    try:
        return context.files.read_text(target)
    except UnicodeDecodeError:
        return target.read_bytes()


class _PatchPlan:
    """What a patch does, worked out before anything is written."""

    def __init__(self) -> None:
        #: the state of each touched file as the patch goes: text, or None once deleted
        self.state: dict[Path, str | None] = {}
        #: each touched file's text before the patch (None: it did not exist)
        self.before: dict[Path, str | None] = {}
        self.shown_of: dict[Path, str] = {}
        self.moves: dict[Path, Path] = {}
        self.done: list[str] = []
        self.notes: list[str] = []

    def diff(self) -> str:
        """The unified diff of the whole patch as it would apply (a move is a rename)."""
        moved_to = set(self.moves.values())
        parts = []
        for target, after in self.state.items():
            before = self.before.get(target)
            if target in self.moves:
                destination = self.moves[target]
                parts.append(unified(before, self.state.get(destination), self.shown_of[target],
                                     self.shown_of[destination]))
            elif target not in moved_to:
                parts.append(unified(before, after, self.shown_of[target]))
        return "".join(parts)


def _original(target: Path, shown: str, context: ToolContext) -> str | None:
    """A file's text before the patch, for its diff (None: absent; unreadable as text: a
    placeholder line)."""
    if not target.is_file():
        return None
    try:
        return read_text_for_edit(target, shown, context.files)
    except (ToolError, OSError) as err:
        return f"[{err}]\n"


def preview_patch(args: Any, context: ToolContext) -> str:
    """What ``apply_patch`` would change, as a unified diff (raises what the call would
    raise, a file not read first included)."""
    return _plan_patch(args, context).diff()


def apply_patch(args: Any, context: ToolContext) -> str:
    """The ``apply_patch`` tool: every file change applies, or none."""
    plan = _plan_patch(args, context)
    state = plan.state
    changes: list[tuple[Path, str | None]] = []
    for target, final in state.items():
        if final is None:
            if target.exists():
                changes.append((target, None))
        else:
            changes.append((target, final))
    write_all(changes, context)
    result = f"applied the patch ({_counts(plan.diff())}): " + ", ".join(plan.done)
    if plan.notes:
        result += "\n" + "\n".join(f"note: {note}" for note in plan.notes)
    return result


def _plan_patch(args: Any, context: ToolContext) -> _PatchPlan:
    """What the patch does (each file it touches, a move's destination too, claimed before it
    is read)."""
    from chatcli_coder._patch import apply_hunks, parse_patch

    files = parse_patch(args.patch)
    plan = _PatchPlan()
    state, shown_of, done, notes = plan.state, plan.shown_of, plan.done, plan.notes

    def first_touch(target: Path, shown: str) -> None:
        if target not in state and target not in plan.before:
            plan.before[target] = _original(target, shown, context)

    def current(target: Path, shown: str, path: str) -> str:
        if target in state:
            text = state[target]
            if text is None:
                raise PatchError(f"'{shown}' is deleted earlier in this patch")  # untranslated
            return text
        if not target.exists():
            raise missing(path, target, context, " to update (add a new file with *** Add "
                          "File: or --- /dev/null)")
        text = read_text_for_edit(target, shown, context.files)
        check_read(context, target, shown, text.encode("utf-8"))
        return text

    for patch in files:
        target = resolve_path(patch.path, context)
        claim_file(target, context)
        shown = shown_of[target] = display(target, context)
        first_touch(target, shown)
        if patch.action == "add":
            exists = state[target] is not None if target in state else target.exists()
            if exists:
                raise PatchError(f"'{shown}' already exists: change it with *** Update File: "
                                 "(or a --- a/ +++ b/ diff) instead of adding it")  # untranslated
            state[target] = patch.content
            done.append(f"added {shown}")
        elif patch.action == "delete":
            if (target in state and state[target] is None) or (
                    target not in state and not target.is_file()):
                raise PatchError(f"no file '{shown}' to delete")  # untranslated: model-facing
            state[target] = None
            done.append(f"deleted {shown}")
        else:
            text = current(target, shown, patch.path)
            if patch.hunks:
                text, hunk_notes = apply_hunks(text, patch.hunks, shown)
                notes.extend(hunk_notes)
            if patch.move_to is not None:
                destination = resolve_path(patch.move_to, context)
                claim_file(destination, context)
                moved = shown_of[destination] = display(destination, context)
                if destination != target and (state.get(destination) is not None or (
                        destination not in state and destination.exists())):
                    raise PatchError(
                        f"cannot move '{shown}' to '{moved}': it exists")  # untranslated
                first_touch(destination, moved)
                state[target] = None
                state[destination] = text
                if destination != target:
                    plan.moves[target] = destination
                done.append(f"moved {shown} to {moved}"
                            + (f" ({len(patch.hunks)} hunks)" if patch.hunks else ""))
            else:
                state[target] = text
                done.append(f"updated {shown} ({len(patch.hunks)} hunk"
                            f"{'s' * (len(patch.hunks) != 1)})")
    return plan
