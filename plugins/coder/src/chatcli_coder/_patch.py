"""Patches: parsing the two formats models write, and applying hunks through the cascade.

- **Unified diff** (``diff -u``, ``git diff``): ``--- a/path`` / ``+++ b/path`` headers,
  ``@@ -l,n +l,n @@`` hunks, ``/dev/null`` for an added or deleted file, ``rename from/to``.
  Line counts are a guide, not a requirement (models get them wrong): a hunk ends at the next
  header or at a line that is no hunk line.
- **The Begin Patch format**: ``*** Begin Patch``, then ``*** Add File: path`` (``+`` lines),
  ``*** Delete File: path``, ``*** Update File: path`` (optionally ``*** Move to: path``) with
  ``@@ [a line to find first]`` chunks of `` ``/``-``/``+`` lines and ``*** End of File``,
  then ``*** End Patch``.

Hunks are found through the same cascade as edits (exact lines, then ignoring trailing
whitespace, then one indentation offset), at or after the previous hunk, nearest the line the
header names.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from chatcli_coder._common import PatchError, one_line
from chatcli_coder._matching import (
    Block,
    Line,
    closest_lines,
    dominant_eol,
    find_block,
    reindent,
    split_lines,
    whitespace_only,
)

__all__ = ["FilePatch", "Hunk", "apply_hunks", "parse_patch"]


@dataclass
class Hunk:
    """Lines to find (``old``: context and removed lines) and what replaces them."""

    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    anchor: str | None = None
    line: int | None = None
    at_end: bool = False
    no_eol_old: bool = False
    no_eol_new: bool = False
    #: context lines that came from bare empty lines at the end (dropped when the hunk ends)
    loose: int = 0

    #: the kind of the last line added (" ", "-" or "+"), for "\\ No newline at end of file"
    last_kind: str = ""

    #: the lines in order, each with its kind (" ", "-", "+")
    ops: list[tuple[str, str]] = field(default_factory=list)

    def add(self, kind: str, text: str, loose: bool = False) -> None:
        if kind in (" ", "-"):
            self.old.append(text)
        if kind in (" ", "+"):
            self.new.append(text)
        self.ops.append((kind, text))
        self.loose = self.loose + 1 if loose else 0
        self.last_kind = kind

    def no_newline(self) -> None:
        """A "\\ No newline at end of file" line: the line before it ends its file."""
        if self.last_kind in (" ", "-"):
            self.no_eol_old = True
        if self.last_kind in (" ", "+"):
            self.no_eol_new = True

    def trim(self) -> None:
        """Drop the bare empty lines that trail the hunk (they separate, they are no
        context)."""
        if self.loose:
            del self.old[-self.loose:]
            del self.new[-self.loose:]
            del self.ops[-self.loose:]
            self.loose = 0

    @property
    def empty(self) -> bool:
        return not self.old and not self.new


@dataclass
class FilePatch:
    """What a patch does to one file: ``add`` (with ``content``), ``delete``, ``update``
    (with hunks, and ``move_to`` for a rename)."""

    action: str
    path: str
    hunks: list[Hunk] = field(default_factory=list)
    content: str = ""
    move_to: str | None = None


def parse_patch(text: str) -> list[FilePatch]:
    """The file changes ``text`` describes; :class:`PatchError` when it describes none or is
    malformed."""
    if not isinstance(text, str):
        raise PatchError("the patch must be text")  # untranslated: model-facing
    lines = text.replace("\r\n", "\n").split("\n")
    if any(line.strip() == "*** Begin Patch" for line in lines):
        files = _parse_begin_patch(lines)
    else:
        files = _parse_unified(lines)
    if not files:
        raise PatchError(
            "no file changes found: write a unified diff (--- a/path, +++ b/path, @@ hunks) "
            "or the *** Begin Patch format (*** Update File: path, @@, -/+ lines, "
            "*** End Patch)")  # untranslated: model-facing
    for patch in files:
        if not patch.path.strip() or (patch.move_to is not None and not patch.move_to.strip()):
            raise PatchError("a file header names no path")  # untranslated: model-facing
        if patch.action == "update" and not patch.hunks and patch.move_to is None:
            raise PatchError(f"the change to '{patch.path}' has no hunks")  # untranslated
    return files


# ---------------------------------------------------------------------------- Begin Patch

_HEADERS = ("*** Add File:", "*** Delete File:", "*** Update File:")


def _parse_begin_patch(lines: list[str]) -> list[FilePatch]:
    start = next(i for i, line in enumerate(lines) if line.strip() == "*** Begin Patch")
    files: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: Hunk | None = None
    added: list[str] = []

    def close() -> None:
        nonlocal current, hunk, added
        if hunk is not None:
            hunk.trim()
            if current is not None and not hunk.empty:
                current.hunks.append(hunk)
        if current is not None and current.action == "add":
            current.content = "".join(line + "\n" for line in added)
        current, hunk, added = None, None, []

    for number, line in enumerate(lines[start + 1:], start + 2):
        stripped = line.strip()
        if stripped == "*** End Patch":
            break
        header = next((h for h in _HEADERS if line.startswith(h)), None)
        if header is not None:
            close()
            path = line[len(header):].strip()
            action = header[4:].split()[0].lower()
            current = FilePatch(action=action, path=path)
            files.append(current)
            continue
        if current is None:
            if stripped:
                raise PatchError(
                    f"patch line {number}: expected *** Add File:, *** Update "
                    f"File: or *** Delete File:, found {one_line(line, 120)}")  # untranslated
            continue
        if current.action == "add":
            if line.startswith("+"):
                added.append(line[1:])
            elif stripped:
                raise PatchError(f"patch line {number}: every line of an added file starts "
                                 f"with '+', found {one_line(line, 120)}")  # untranslated
            continue
        if current.action == "delete":
            if stripped:
                raise PatchError(f"patch line {number}: *** Delete File: takes no lines, "
                                 f"found {one_line(line, 120)}")  # untranslated: model-facing
            continue
        if line.startswith("*** Move to:"):
            current.move_to = line[len("*** Move to:"):].strip()
            continue
        if stripped == "*** End of File":
            if hunk is None:
                raise PatchError(
                    f"patch line {number}: *** End of File before any hunk")  # untranslated
            hunk.at_end = True
            continue
        if line.startswith("@@"):
            if hunk is not None:
                hunk.trim()
                if not hunk.empty:
                    current.hunks.append(hunk)
            anchor = line[2:].strip()
            if anchor.endswith("@@") and anchor.startswith("-"):  # a unified header, by habit
                match = _HUNK_HEADER.match(line)
                hunk = Hunk(line=int(match.group(1)) if match else None)
            else:
                hunk = Hunk(anchor=anchor or None)
            continue
        if hunk is None:
            hunk = Hunk()
        if line == "":
            hunk.add(" ", "", loose=True)
        elif line[0] in " -+":
            hunk.add(line[0], line[1:])
        else:
            raise PatchError(f"patch line {number}: a hunk line starts with ' ', '-' or '+', "
                             f"found {one_line(line, 120)}")  # untranslated: model-facing
    close()
    return files


# ---------------------------------------------------------------------------- unified diff

_HUNK_HEADER = re.compile(r"^@@+ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@+")
_GIT_HEADER = re.compile(r"^diff --git (?:\"?a/)?(.+?)\"? (?:\"?b/)?(.+?)\"?$")
_NULL = "/dev/null"


def _header_path(line: str) -> str:
    """The path of a ``---``/``+++`` line (a tab and timestamp after it dropped)."""
    path = line[4:]
    if "\t" in path:
        path = path.split("\t", 1)[0]
    path = path.strip()
    if len(path) > 1 and path[0] == path[-1] == '"':
        path = path[1:-1]
    return path


def _strip_prefixes(old: str, new: str) -> tuple[str, str]:
    """git's ``a/`` and ``b/`` prefixes removed (when the headers use them)."""
    old_p = old.startswith("a/") or old == _NULL
    new_p = new.startswith("b/") or new == _NULL
    if old_p and new_p and not (old == new == _NULL):
        if old != _NULL:
            old = old[2:]
        if new != _NULL:
            new = new[2:]
    return old, new


def _parse_unified(lines: list[str]) -> list[FilePatch]:
    files: list[FilePatch] = []
    current: FilePatch | None = None
    hunk: Hunk | None = None
    counts: list[int] = [0, 0]  # lines the header announced (old, new) still to come
    rename: dict[str, str] = {}
    index = 0

    def end_hunk() -> None:
        nonlocal hunk
        if hunk is not None and current is not None:
            hunk.trim()
            if not hunk.empty:
                current.hunks.append(hunk)
        hunk = None

    def finish_git_rename() -> None:
        nonlocal current
        if "from" in rename and "to" in rename and current is None:
            current = FilePatch(action="update", path=rename["from"], move_to=rename["to"])
            files.append(current)
        rename.clear()

    while index < len(lines):
        line = lines[index]
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.startswith("--- ") and following.startswith("+++ "):
            end_hunk()
            old, new = _strip_prefixes(_header_path(line), _header_path(following))
            if old == _NULL and new == _NULL:
                raise PatchError(
                    f"patch line {index + 1}: both sides are /dev/null")  # untranslated
            rename.clear()
            if old == _NULL:
                current = FilePatch(action="add", path=new)
            elif new == _NULL:
                current = FilePatch(action="delete", path=old)
            else:
                current = FilePatch(action="update", path=old,
                                    move_to=new if new != old else None)
            files.append(current)
            index += 2
            continue
        if line.startswith("diff --git "):
            end_hunk()
            finish_git_rename()
            current = None
            index += 1
            continue
        if line.startswith("rename from "):
            rename["from"] = line[len("rename from "):].strip()
        elif line.startswith("rename to "):
            rename["to"] = line[len("rename to "):].strip()
            finish_git_rename()
        header = _HUNK_HEADER.match(line) if line.startswith("@@") else None
        if header is not None:
            end_hunk()
            if current is None:
                raise PatchError(f"patch line {index + 1}: a hunk before any --- / +++ "
                                 "file header")  # untranslated: model-facing
            start, old_count, _new, new_count = header.groups()
            hunk = Hunk(line=int(start))
            counts = [int(old_count) if old_count is not None else 1,
                      int(new_count) if new_count is not None else 1]
            index += 1
            continue
        if hunk is not None:
            satisfied = counts[0] <= 0 and counts[1] <= 0
            if line.startswith("\\"):
                hunk.no_newline()
                index += 1
                continue
            if line == "" and not satisfied:
                hunk.add(" ", "", loose=True)
                counts[0] -= 1
                counts[1] -= 1
                index += 1
                continue
            if line and line[0] in " -+":
                kind = line[0]
                hunk.add(kind, line[1:])
                counts[0] -= kind in (" ", "-")
                counts[1] -= kind in (" ", "+")
                index += 1
                continue
            end_hunk()
        index += 1
    end_hunk()
    finish_git_rename()
    for patch in files:
        if patch.action == "add":
            new_lines = [line for hunk in patch.hunks for line in hunk.new]
            no_eol = any(hunk.no_eol_new for hunk in patch.hunks)
            patch.content = "\n".join(new_lines) + ("" if no_eol or not new_lines else "\n")
            patch.hunks = []
    return files


# ---------------------------------------------------------------------------- applying


def apply_hunks(text: str, hunks: list[Hunk], shown: str) -> tuple[str, list[str]]:
    """``text`` with ``hunks`` applied, and notes on hunks found by the cascade. Raises
    :class:`PatchError` naming the hunk that does not apply (and the closest lines)."""
    lines = split_lines(text)
    eol = dominant_eol(text)
    had_final_eol = not lines or lines[-1].eol != ""
    #: (first line index, line count, new line texts, hunk)
    edits: list[tuple[int, int, list[str], Hunk]] = []
    notes: list[str] = []
    cursor = 0
    for number, hunk in enumerate(hunks, 1):
        start = cursor
        if hunk.anchor:
            found = _find_anchor(lines, hunk.anchor, cursor)
            if found is None:
                raise _hunk_error(lines, [hunk.anchor], shown, number, "its @@ line")
            start = found
        near = hunk.line - 1 if hunk.line else None
        if not hunk.old:
            if hunk.anchor:
                at = start + 1
            elif hunk.line is not None:
                at = min(max(hunk.line, 0), len(lines))
            else:
                at = len(lines)
            edits.append((at, 0, list(hunk.new), hunk))
            cursor = at
            continue
        located = find_block(lines, hunk.old, start, near, hunk.at_end)
        if located is None and start > 0:
            located = find_block(lines, hunk.old, 0, near, hunk.at_end)
        if located is None:
            raise _hunk_error(lines, hunk.old, shown, number, "its lines")
        block, how = located
        if how != "exact":
            way = ("ignoring trailing whitespace" if how == "trailing"
                   else "with its indentation adjusted")
            notes.append(f"hunk {number} of {shown} matched {way}")
        edits.append((block.first, block.count, _replacement(lines, block, hunk), hunk))
        cursor = block.first + block.count
    edits.sort(key=lambda e: (e[0], e[1]))
    for (first, count, _n, _h), (next_first, _c, _n2, _h2) in itertools.pairwise(edits):
        if first + count > next_first:
            raise PatchError(f"two hunks of {shown} change the same lines (near line "
                             f"{next_first + 1}); merge them into one")  # untranslated
    out: list[tuple[str, str]] = []
    at = 0
    #: whether the new text ends with a line ending: as the old one did, unless a hunk that
    #: reaches the end says otherwise ("\\ No newline at end of file")
    final_eol = had_final_eol
    for first, count, new_lines, hunk in edits:
        out.extend((line.text, line.eol) for line in lines[at:first])
        out.extend((line, eol) for line in new_lines)
        at = first + count
        if at >= len(lines) and new_lines:
            if hunk.no_eol_new:
                final_eol = False
            elif hunk.no_eol_old:
                final_eol = True
    out.extend((line.text, line.eol) for line in lines[at:])
    if not out:
        return "", notes
    body = [text + (ending or eol) for text, ending in out[:-1]]
    last_text, last_eol = out[-1]
    body.append(last_text + ((last_eol or eol) if final_eol else ""))
    return "".join(body), notes


def _replacement(lines: list[Line], block: Block, hunk: Hunk) -> list[str]:
    """The new lines of a matched hunk: context lines as the file has them, added lines
    re-indented like the match."""
    out: list[str] = []
    at = block.first
    for kind, text in hunk.ops:
        if kind == " ":
            out.append(lines[at].text)
            at += 1
        elif kind == "-":
            at += 1
        else:
            out.extend(reindent([text], block.added, block.removed))
    return out


def _find_anchor(lines: list[Line], anchor: str, start: int) -> int | None:
    wanted = anchor.strip()
    for scope in (range(start, len(lines)), range(0, min(start, len(lines)))):
        for index in scope:
            if lines[index].text.strip() == wanted:
                return index
    return None


def _hunk_error(lines: list[Line], old: list[str], shown: str, number: int, what: str
                ) -> PatchError:
    near = closest_lines([line.text for line in lines], old)
    tried = "exactly, ignoring trailing whitespace, or with the indentation adjusted"
    if near is None:
        return PatchError(
            f"hunk {number} of {shown} does not apply: {what} are not in the "
            f"file ({tried}) and no line looks like them; read the file again")  # untranslated
    first, last, ratio, quoted = near
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    alike = ("the same but for whitespace, tabs or spaces" if whitespace_only(
        [line.text for line in lines], old, first) else f"{ratio:.0%} alike")
    return PatchError(f"hunk {number} of {shown} does not apply: {what} are not in the file "
                      f"({tried}); the closest is {where} ({alike}): "
                      f"{one_line(quoted, 1_200)} — nothing was changed; fix the hunk or "
                      "read the file again")  # untranslated: model-facing
