"""The tools: argument models (their JSON schema is what the model sees), descriptions, risks.

Imported when chatcli builds an engine (``register_tools``), never at start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from chatcli import Risk, Tool
from pydantic import BaseModel, ConfigDict, Field, model_validator

from chatcli_coder._common import coder_settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from chatcli import Settings, ToolContext

_PATH = "Path relative to the workspace root (or absolute, inside the workspace or a folder " \
        "the user allowed)."


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadArgs(_Args):
    path: str = Field(description=_PATH)
    offset: int | None = Field(None, ge=1, description="First line to show (1 = the first).")
    limit: int | None = Field(None, ge=1, le=100_000,
                              description="How many lines to show from offset (default 2000).")
    head: int | None = Field(None, ge=1, le=100_000, description="Show the first N lines.")
    tail: int | None = Field(None, ge=1, le=100_000, description="Show the last N lines.")

    @model_validator(mode="after")
    def _one_range(self) -> ReadArgs:
        if self.head is not None and self.tail is not None:
            raise ValueError("give head or tail, not both")
        if (self.head is not None or self.tail is not None) and (
                self.offset is not None or self.limit is not None):
            raise ValueError("give head/tail or offset/limit, not both")
        return self


class WriteArgs(_Args):
    path: str = Field(description=_PATH + " Missing folders are created.")
    content: str = Field(description="The whole new content of the file.")


class EditArgs(_Args):
    path: str = Field(description=_PATH)
    old: str = Field(description="The exact text to replace, copied from the file (without "
                                 "the line numbers read shows), with enough lines around it "
                                 "to be unique.")
    new: str = Field(description="The text that replaces it.")
    replace_all: bool = Field(False, description="Replace every occurrence of old.")


class OneEdit(_Args):
    path: str = Field(description=_PATH)
    old: str = Field(description="The exact text to replace.")
    new: str = Field(description="The text that replaces it.")
    replace_all: bool = Field(False, description="Replace every occurrence of old.")


class MultiEditArgs(_Args):
    edits: list[OneEdit] = Field(min_length=1, max_length=100,
                                 description="Edits applied in order; several may touch the "
                                             "same file (each sees the previous ones' result).")


class PatchArgs(_Args):
    patch: str = Field(description="A unified diff (--- a/path, +++ b/path, @@ hunks; "
                                   "/dev/null to add or delete a file) or the '*** Begin Patch' "
                                   "format (*** Update File: / *** Add File: / *** Delete File: "
                                   "path, @@ chunks of ' ', '-', '+' lines, *** End Patch).")


class SearchArgs(_Args):
    pattern: str = Field(min_length=1, description="A regular expression (Rust/ripgrep "
                                                   "syntax), or plain text with literal=true.")
    path: str = Field(".", description="Folder or file to search, relative to the workspace.")
    literal: bool = Field(False, description="Search for the pattern as plain text.")
    ignore_case: bool = Field(False, description="Match regardless of case.")
    glob: str | None = Field(None, description="Only files matching this glob: '*.py' (any "
                                               "folder), 'src/**/*.ts'; '!*.min.js' excludes.")
    context: int = Field(0, ge=0, le=20, description="Lines shown before and after each match.")
    max_results: int = Field(100, ge=1, le=2_000, description="Matching lines shown at most.")
    include_ignored: bool = Field(False, description="Also search files .gitignore excludes.")


class GlobArgs(_Args):
    pattern: str = Field(description="A glob: '*.py' matches at any depth, 'src/*.py' only "
                                     "directly in src, '**' crosses folders, "
                                     "'tests/**/test_*.py'.")
    path: str = Field(".", description="Folder to look in, relative to the workspace.")
    max_results: int = Field(200, ge=1, le=10_000, description="Paths shown at most.")
    include_ignored: bool = Field(False, description="Also list files .gitignore excludes.")


class TreeArgs(_Args):
    path: str = Field(".", description="Folder to show, relative to the workspace.")
    depth: int = Field(3, ge=1, le=20, description="Levels of folders to open (1: only this "
                                                   "folder's entries).")
    max_entries: int = Field(300, ge=10, le=10_000, description="Entries shown at most.")
    include_ignored: bool = Field(False, description="Also show what .gitignore excludes.")


class ExecArgs(_Args):
    command: str = Field(description="A bash command line (pipes, &&, redirections work).")
    cwd: str = Field(".", description="Folder to run in, inside the workspace.")
    timeout: float | None = Field(None, gt=0, description="Seconds before the command is "
                                                          "killed (default 120).")
    network: bool = Field(False, description="Let the command use the network (only when it "
                                             "needs it: downloads, installs).")


class GitArgs(_Args):
    action: Literal["status", "diff", "log", "changed", "branch"] = Field(
        description="status: short status; diff: unstaged changes (staged=true: staged ones); "
                    "log: recent commits; changed: changed and untracked files; branch: the "
                    "current branch and the local branches.")
    path: str | None = Field(None, description="Limit to this file or folder.")
    limit: int | None = Field(None, ge=1, le=500, description="log: how many commits "
                                                             "(default 20).")
    staged: bool = Field(False, description="diff: show the staged changes.")


class TestArgs(_Args):
    command: str | None = Field(None, description="The test command; omit it to run the one "
                                                  "detected for the project.")
    cwd: str = Field(".", description="Folder to run in, inside the workspace.")
    timeout: float | None = Field(None, gt=0, description="Seconds before the run is killed.")
    network: bool = Field(False, description="Let the tests use the network.")


def _lazy(module: str, name: str) -> Any:
    """``run`` importing its module on the first call."""

    def run(args: Any, context: ToolContext) -> str:
        import importlib

        tool: Callable[[Any, ToolContext], str] = getattr(importlib.import_module(module), name)
        return tool(args, context)

    run.__name__ = name
    return run


def make_tools(settings: Settings, workspace: Path) -> list[Tool]:
    """The tools, described for the model."""
    coder = coder_settings(settings)
    sandbox = {"off": "The sandbox is off: commands run with your permissions.",
               "bwrap": "Commands run in a bubblewrap sandbox: the filesystem is read-only but "
                        "for the workspace and a private /tmp, and there is no network unless "
                        "network=true.",
               "auto": "Where bubblewrap is installed, commands run in its sandbox: the "
                       "filesystem is read-only but for the workspace and a private /tmp, and "
                       "there is no network unless network=true (without it, the result says "
                       "so)."}[coder.sandbox]
    if coder.sandbox != "off":
        sandbox += (" In the sandbox, files the user denied are empty, chatcli's and git's "
                    "control files (.git, .chatcli, .mcp.json, .gitattributes) are read-only "
                    "unless the user approved writing them, and a command not approved for "
                    "writing sees the workspace read-only.")
    limits = (f"Default timeout {coder.exec_timeout:g} s, at most {coder.exec_timeout_max:g} s; "
              "on timeout or when the user stops it, the command and everything it started are "
              "killed. Output (stdout and stderr together) is shown to the user live; the "
              "result keeps its beginning and end when long.")
    from chatcli_coder._run import will_confine
    from chatcli_coder._shell import test_hint

    confined = will_confine(coder)

    return [
        Tool(
            name="read", args_model=ReadArgs, risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._files", "read_file"),
            description=(
                "Read a text file, with line numbers ('   12<TAB>text'). Shows up to 2000 "
                "lines from offset (default 1), or head/tail N lines; says which lines were "
                "left out and the offset to continue with. Lines over 2000 characters are cut. "
                "Binary files are refused. Read a file before editing it: edit, multiedit, "
                "apply_patch and write refuse files not read in this conversation, or changed "
                "since."),
        ),
        Tool(
            name="write", args_model=WriteArgs, risk=Risk.WRITE, subject="path",
            run=_lazy("chatcli_coder._files", "write_file"),
            description=(
                "Create a file, or replace all of an existing one (read it first), atomically "
                "(a temporary file, then a rename; permissions kept). Prefer edit for changes "
                "to part of a file."),
        ),
        Tool(
            name="edit", args_model=EditArgs, risk=Risk.WRITE, subject="path",
            run=_lazy("chatcli_coder._files", "edit_file"),
            description=(
                "Replace text in a file you have read: old must occur exactly once (or set "
                "replace_all). When old is not found as it is, it is looked for ignoring line "
                "endings, then trailing whitespace, then a different indentation of whole "
                "lines (new is re-indented the same way); otherwise the error quotes the "
                "closest lines. Returns the changed lines."),
        ),
        Tool(
            name="multiedit", args_model=MultiEditArgs, risk=Risk.WRITE, subject=None,
            run=_lazy("chatcli_coder._files", "multiedit_files"),
            description=(
                "Several edits (like the edit tool's) to one or more files you have read, all "
                "or nothing: if one fails, no file changes and the error names it."),
        ),
        Tool(
            name="apply_patch", args_model=PatchArgs, risk=Risk.WRITE, subject=None,
            run=_lazy("chatcli_coder._files", "apply_patch"),
            description=(
                "Apply a patch to files you have read: a unified diff, or the '*** Begin "
                "Patch' format; adds, deletes, renames and updates files, all or nothing. "
                "Hunks are found by their lines (exact, else ignoring trailing whitespace or "
                "a different indentation), near the line numbers given; line counts in @@ "
                "headers need not be right."),
        ),
        Tool(
            name="search", args_model=SearchArgs, risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._find", "search"),
            description=(
                "Search file contents with ripgrep: regex (Rust syntax) or literal text, "
                "optionally case-insensitive, in a folder or file, filtered by glob, with "
                "context lines. Output 'path:line:text' (context lines 'path-line-text'). "
                "Skips .git, .gitignored files (unless include_ignored), binary files and "
                "credential files (.env, keys). Shows up to max_results matching lines and "
                "says how many more there are."),
        ),
        Tool(
            name="glob", args_model=GlobArgs, risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._find", "glob_files"),
            description=(
                "List files whose path matches a glob, sorted by path: '*.py' at any depth, "
                "'src/*.py' directly in src, 'tests/**/test_*.py'. Skips .git, .gitignored "
                "files (unless include_ignored) and credential files; files only, not "
                "folders."),
        ),
        Tool(
            name="tree", args_model=TreeArgs, risk=Risk.READ, subject="path",
            run=_lazy("chatcli_coder._find", "tree"),
            description=(
                "Show a folder's layout as an indented tree (folders first, 'name/'; symbolic "
                "links as 'name -> target'), down to depth levels; deeper folders show their "
                "entry count. Honours .gitignore, skips .git and credential files; at most "
                "max_entries entries and 100 per folder."),
        ),
        Tool(
            name="exec", args_model=ExecArgs, risk=Risk.EXECUTE, subject="command",
            confined=confined,
            run=_lazy("chatcli_coder._shell", "exec_command"),
            description=(
                "Run a shell command with bash -c in the workspace (or cwd inside it); stdin "
                "is empty, so it must not wait for input. Returns the exit code and the "
                f"output. {limits} Background processes are killed when the command ends. "
                f"{sandbox} Use the dedicated tools to read, search and edit files."),
        ),
        Tool(
            name="git", args_model=GitArgs, risk=Risk.READ, subject=None,
            run=_lazy("chatcli_coder._shell", "git_tool"),
            description=(
                "Look at the workspace's git repository, read-only: status, diff (or staged "
                "diff), log, changed files, branches; optionally for one path. It never "
                "commits, checks out or changes anything (use exec for that, with the user's "
                "approval)."),
        ),
        Tool(
            name="test", args_model=TestArgs, risk=Risk.EXECUTE, subject="command",
            confined=confined,
            run=_lazy("chatcli_coder._shell", "run_tests"),
            description=(
                "Run the project's tests and report pass or fail with the output. Without "
                "command it detects the test command: pytest (the project's .venv python, "
                "uv run, or python3 -m pytest), npm test, go test ./..., cargo test, make "
                f"test.{test_hint(Path(workspace))} Runs like exec: {limits} {sandbox}"),
        ),
    ]
