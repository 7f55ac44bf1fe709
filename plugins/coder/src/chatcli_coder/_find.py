"""The finding tools: search (ripgrep, or Python where rg is missing), glob, tree."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chatcli_coder._common import (
    NotAFile,
    ToolError,
    coder_settings,
    credential,
    display,
    looks_binary,
    missing,
    resolve_path,
)
from chatcli_coder._walk import Hidden, Walker

if TYPE_CHECKING:
    from chatcli import ToolContext

#: Seconds a search may take before it stops and reports what it found.
SEARCH_SECONDS = 20.0
#: Characters of a matching line shown.
LINE_CHARS = 500
#: Files larger than this are not searched by the Python fallback.
FALLBACK_MAX_BYTES = 20 * 1024 * 1024


def rg_binary() -> str | None:
    """The ``rg`` of the ripgrep wheel (in this environment's scripts), else one on PATH."""
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        candidate = os.path.join(folder, "rg")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("rg")


def _hidden(context: ToolContext) -> Hidden:
    """What the call must not see (deny rules' targets): skipped without a word."""
    confinement = getattr(context, "confinement", None)
    return Hidden(getattr(confinement, "hidden", ()) or ())


def _top(args: Any, context: ToolContext) -> tuple[Path, str]:
    target = resolve_path(args.path, context)
    if not target.exists():
        raise missing(args.path, target, context)
    return target, display(target, context)


# ------------------------------------------------------------------------------ search


class _Results:
    """Matching and context lines, grouped, within a line count and a character budget."""

    def __init__(self, max_results: int, budget: int) -> None:
        self.max_results = max_results
        self.budget = budget
        self.rows: list[str] = []
        self.used = 0
        self.matches = 0  # matching lines seen
        self.shown = 0  # matching lines shown
        self.files: set[str] = set()
        self.shown_files: set[str] = set()
        self.full = False
        self.last: tuple[str, int] | None = None
        self.skipped_credentials: set[str] = set()

    def add(self, path: str, number: int, text: str, is_match: bool) -> None:
        if is_match:
            self.matches += 1
            self.files.add(path)
        if self.full:
            return
        if is_match and self.shown >= self.max_results:
            self.full = True
            return
        text = text.rstrip("\n").rstrip("\r")
        if len(text) > LINE_CHARS:
            text = text[:LINE_CHARS] + f"… [+{len(text) - LINE_CHARS:,} characters]"
        if self.last is not None and (self.last[0] != path or number > self.last[1] + 1):
            self._row("--")
        row = f"{path}{':' if is_match else '-'}{number}{':' if is_match else '-'}{text}"
        if not self._row(row):
            self.full = True
            return
        self.last = (path, number)
        if is_match:
            self.shown += 1
            self.shown_files.add(path)

    def _row(self, row: str) -> bool:
        if self.used + len(row) + 1 > self.budget:
            return False
        self.rows.append(row)
        self.used += len(row) + 1
        return True

    def text(self, notes: list[str]) -> str:
        body = "no matches" if not self.matches else "\n".join(self.rows)
        footer = list(notes)
        if self.matches > self.shown:
            footer.insert(0, f"[{self.shown:,} of {self.matches:,} matching lines shown, from "
                             f"{len(self.shown_files):,} of {len(self.files):,} files; narrow "
                             "the pattern, path or glob, or raise max_results]")
        elif self.matches:
            footer.insert(0, f"[{self.matches:,} matching line{'s' * (self.matches > 1)} in "
                             f"{len(self.files):,} file{'s' * (len(self.files) > 1)}]")
        if self.skipped_credentials:
            footer.append(f"[{len(self.skipped_credentials)} credential file(s) left out "
                          "(.env, keys…); read one by name if the user allows it]")
        return "\n".join([body, *footer])


def search(args: Any, context: ToolContext) -> str:
    """The ``search`` tool."""
    top, _shown = _top(args, context)
    settings = coder_settings(context.settings)
    results = _Results(args.max_results, max(context.max_output - 600, 1_000))
    notes: list[str] = []
    binary = rg_binary()
    if binary is not None:
        _search_rg(binary, args, context, top, results, settings.list_credentials, notes)
    else:
        notes.append("[searched with Python's re module: ripgrep (rg) is not installed]")
        _search_python(args, context, top, results, settings.list_credentials, notes)
    return results.text(notes)


def _search_rg(binary: str, args: Any, context: ToolContext, top: Path, results: _Results,
               credentials: bool, notes: list[str]) -> None:
    root = Path(os.path.realpath(context.workspace))
    inside = top == root or top.is_relative_to(root)
    where = (top.relative_to(root).as_posix() or ".") if inside else str(top)
    command = [binary, "--json", "--no-config", "--no-messages", "--hidden", "--glob", "!.git",
               "--no-require-git", "--max-columns", str(LINE_CHARS * 4),
               "--max-columns-preview"]
    if args.literal:
        command.append("--fixed-strings")
    if args.ignore_case:
        command.append("--ignore-case")
    if args.context:
        command += ["--context", str(args.context)]
    if args.include_ignored:
        command.append("--no-ignore")
    if args.glob:
        command += ["--glob", args.glob]
    command += ["--regexp", args.pattern, "--", where]
    hidden = _hidden(context)
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    # a search that finds nothing for long prints nothing: a timer ends it
    timer = threading.Timer(SEARCH_SECONDS, process.kill)
    timer.daemon = True
    timer.start()
    stopped = False
    try:
        for raw in process.stdout:
            if time.monotonic() - started > SEARCH_SECONDS:
                stopped = True
                break
            if results.full and b'"type":"match"' not in raw[:20]:
                continue
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            kind = event.get("type")
            if kind not in ("match", "context"):
                continue
            data = event["data"]
            path = _rg_text(data.get("path"))
            if path.startswith("./"):
                path = path[2:]
            absolute = Path(path) if os.path.isabs(path) else root / path
            if hidden and hidden.covers(absolute):
                continue
            if not credentials and credential(absolute):
                results.skipped_credentials.add(path)
                continue
            number = data.get("line_number") or 0
            results.add(path, number, _rg_text(data.get("lines")), kind == "match")
    finally:
        timer.cancel()
        if process.poll() is None:
            process.kill()
        error = process.stderr.read().decode("utf-8", errors="replace").strip()
        process.wait()
    stopped = stopped or time.monotonic() - started > SEARCH_SECONDS
    if stopped:
        notes.append(f"[the search stopped after {SEARCH_SECONDS:.0f} s; counts are partial]")
    if process.returncode == 2 and not results.matches:
        first = error.replace("\n", " ").strip()
        if "regex parse error" in error or "error:" in error:
            raise ToolError(
                f"the pattern is not a valid regular expression (Rust syntax): "  # untranslated
                f"{first[:400]}; set literal=true to search for the text as it is")
        raise ToolError(f"rg failed: {first[:400]}")  # untranslated: model-facing


def _rg_text(value: Any) -> str:
    if not isinstance(value, dict):
        return ""
    if "text" in value:
        return str(value["text"])
    import base64

    with contextlib.suppress(ValueError, TypeError):
        return base64.b64decode(value.get("bytes", "")).decode("utf-8", errors="replace")
    return ""


def _search_python(args: Any, context: ToolContext, top: Path, results: _Results,
                   credentials: bool, notes: list[str]) -> None:
    flags = re.IGNORECASE if args.ignore_case else 0
    try:
        regex = re.compile(re.escape(args.pattern) if args.literal else args.pattern, flags)
    except re.error as err:
        raise ToolError(f"the pattern is not a valid regular expression: {err}; set "
                        "literal=true to search for the text as it is") from None  # untranslated
    hidden = _hidden(context)
    walker = Walker(top if top.is_dir() else top.parent, ignore=not args.include_ignored,
                    credentials=True, hidden=hidden)
    glob = _glob_spec(args.glob) if args.glob else None
    files = [top] if top.is_file() else (entry.path for entry in walker.files())
    if hidden.covers(top):
        files = []
    started = time.monotonic()
    for path in files:
        if time.monotonic() - started > SEARCH_SECONDS:
            notes.append(f"[the search stopped after {SEARCH_SECONDS:.0f} s; counts are "
                         "partial]")
            break
        if path.is_symlink() or not path.is_file():
            continue
        relative_to_top = path.relative_to(top).as_posix() if path != top else path.name
        if glob is not None and not glob(relative_to_top):
            continue
        shown = display(path, context)
        if not credentials and credential(path):
            probe = _Results(1, 10_000)
            _search_file(path, shown, regex, 0, probe)
            if probe.matches:
                results.skipped_credentials.add(shown)
            continue
        _search_file(path, shown, regex, args.context, results)


def _search_file(path: Path, shown: str, regex: re.Pattern[str], around: int,
                 results: _Results) -> None:
    try:
        if path.stat().st_size > FALLBACK_MAX_BYTES:
            return
        data = path.read_bytes()
    except OSError:
        return
    if looks_binary(data[:8_192]):
        return
    lines = data.decode("utf-8", errors="replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    before: deque[int] = deque(maxlen=around)
    after = 0
    for index, line in enumerate(lines):
        if regex.search(line):
            for earlier in before:
                results.add(shown, earlier + 1, lines[earlier], False)
            before.clear()
            results.add(shown, index + 1, line, True)
            after = around
        elif after:
            results.add(shown, index + 1, line, False)
            after -= 1
        elif around:
            before.append(index)


def _glob_spec(pattern: str) -> Any:
    """A test of a path (relative, with ``/``) against a glob, gitignore style: without a
    ``/`` it matches a name at any depth; ``**`` crosses folders; a leading ``!`` negates."""
    import pathspec

    negate = pattern.startswith("!")
    spec = pathspec.GitIgnoreSpec.from_lines([pattern[1:] if negate else pattern])
    return lambda relative: spec.match_file(relative) != negate


# ------------------------------------------------------------------------------ glob


def glob_files(args: Any, context: ToolContext) -> str:
    """The ``glob`` tool."""
    top, shown = _top(args, context)
    if not top.is_dir():
        raise NotAFile(f"'{shown}' is a file, not a folder: give the folder to look in")
    settings = coder_settings(context.settings)
    if not args.pattern.strip():
        raise ToolError(
            "the pattern is empty: give a glob such as '**/*.py' or '*.md'")  # untranslated
    matches = _glob_spec(args.pattern)
    hidden = _hidden(context)
    walker = Walker(top, ignore=not args.include_ignored, credentials=True, hidden=hidden)
    found: list[str] = []
    secrets = 0
    total = 0
    started = time.monotonic()
    stopped = False
    for entry in ([] if hidden.covers(top) else walker.files()):
        if time.monotonic() - started > SEARCH_SECONDS:
            stopped = True
            break
        if matches(entry.path.relative_to(top).as_posix()):
            if not settings.list_credentials and credential(entry.path):
                secrets += 1
                continue
            total += 1
            if len(found) < 100_000:
                found.append(display(entry.path, context))
    found = sorted(found)[: args.max_results]
    budget = max(context.max_output - 400, 1_000)
    rows: list[str] = []
    used = 0
    for row in found:
        if used + len(row) + 1 > budget:
            break
        rows.append(row)
        used += len(row) + 1
    notes: list[str] = []
    if not total:
        rows = [f"no files match '{args.pattern}' in '{shown}'"]
    elif len(rows) < total:
        notes.append(f"[{len(rows):,} of {total:,} files shown; narrow the pattern or the "
                     "path, or raise max_results]")
    else:
        notes.append(f"[{total:,} file{'s' * (total > 1)}]")
    if stopped:
        notes.append(f"[the listing stopped after {SEARCH_SECONDS:.0f} s]")
    if secrets:
        notes.append(f"[{secrets} credential file(s) left out (.env, keys…); name one to the "
                     "read tool if the user allows it]")
    return "\n".join(rows + notes)


# ------------------------------------------------------------------------------ tree

#: Entries of one folder shown before "… N more".
PER_FOLDER = 100


def tree(args: Any, context: ToolContext) -> str:
    """The ``tree`` tool."""
    top, shown = _top(args, context)
    if not top.is_dir():
        raise NotAFile(f"'{shown}' is a file, not a folder")
    settings = coder_settings(context.settings)
    walker = Walker(top, ignore=not args.include_ignored, credentials=settings.list_credentials,
                    hidden=_hidden(context))
    budget = max(context.max_output - 400, 1_000)
    rows = [f"{shown}/" if shown != "." else "./"]
    state = {"entries": 0, "dirs": 0, "files": 0, "used": len(rows[0]), "stopped": False}

    def emit(row: str) -> bool:
        if state["entries"] >= args.max_entries or state["used"] + len(row) + 1 > budget:
            state["stopped"] = True
            return False
        rows.append(row)
        state["entries"] += 1
        state["used"] += len(row) + 1
        return True

    def visit(folder: Path, depth: int) -> None:
        dirs, files = walker.children(folder)
        indent = "  " * depth
        listed = 0
        for entry in [*dirs, *files]:
            if state["stopped"]:
                return
            if listed == PER_FOLDER:
                left = len(dirs) + len(files) - listed
                emit(f"{indent}… {left:,} more entries")
                return
            listed += 1
            if entry.is_link:
                try:
                    target = os.readlink(entry.path)
                except OSError:
                    target = "?"
                if not emit(f"{indent}{entry.name} -> {target}"):
                    return
                state["files"] += 1
                continue
            if entry.is_dir:
                if depth + 1 >= args.depth:
                    sub_dirs, sub_files = walker.children(entry.path)
                    count = len(sub_dirs) + len(sub_files)
                    if not emit(f"{indent}{entry.name}/" + (
                            f" (… {count:,} entries)" if count else "")):
                        return
                    state["dirs"] += 1
                    continue
                if not emit(f"{indent}{entry.name}/"):
                    return
                state["dirs"] += 1
                visit(entry.path, depth + 1)
            else:
                if not emit(f"{indent}{entry.name}"):
                    return
                state["files"] += 1

    if not (walker.hidden and walker.hidden.covers(top)):
        visit(top, 0)
    # indentation: entries of the top folder start at column 2
    body = [rows[0], *("  " + row for row in rows[1:])]
    footer = f"[{state['dirs']:,} folders, {state['files']:,} files shown"
    if state["stopped"]:
        footer += (f"; the listing stopped at {state['entries']:,} entries: list a sub-folder, "
                   "lower depth or raise max_entries")
    footer += "]"
    if walker.credential_paths:
        footer += (f"\n[{len(walker.credential_paths)} credential file(s) left out (.env, "
                   "keys…)]")
    return "\n".join([*body, footer])
