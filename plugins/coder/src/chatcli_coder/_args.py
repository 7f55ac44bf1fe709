"""The coder tools' argument models: their JSON schema is what the model sees, and they
validate a call's arguments (``model_validate``).

Imported when a call is validated, or when the schemas are not in the cache yet
(:mod:`chatcli_coder._tools`); building thirteen pydantic models is a few milliseconds of every
start-up otherwise.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["EditArgs", "ExecArgs", "GitArgs", "GlobArgs", "MultiEditArgs", "OneEdit", "PatchArgs",
           "ReadArgs", "SearchArgs", "TestArgs", "TreeArgs", "WriteArgs"]

_PATH = "Path relative to the workspace root (or absolute, inside the workspace or a folder " \
        "the user allowed)."


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadArgs(_Args):
    path: str = Field(description=_PATH)
    offset: int | None = Field(
        None, ge=1, description="First line to show (1 = the first).")  # untranslated
    limit: int | None = Field(
        None, ge=1, le=100_000,
        description="How many lines to show from offset (default 2000).")  # untranslated
    head: int | None = Field(
        None, ge=1, le=100_000, description="Show the first N lines.")  # untranslated
    tail: int | None = Field(
        None, ge=1, le=100_000, description="Show the last N lines.")  # untranslated

    @model_validator(mode="after")
    def _one_range(self) -> ReadArgs:
        if self.head is not None and self.tail is not None:
            raise ValueError("give head or tail, not both")
        if (self.head is not None or self.tail is not None) and (
                self.offset is not None or self.limit is not None):
            raise ValueError("give head/tail or offset/limit, not both")
        return self


class WriteArgs(_Args):
    path: str = Field(description=_PATH + " Missing folders are created.")  # untranslated
    content: str = Field(description="The whole new content of the file.")  # untranslated


class EditArgs(_Args):
    path: str = Field(description=_PATH)
    old: str = Field(description="The exact text to replace, copied from the file (without "
                                 "the line numbers read shows), with enough lines around it "
                                 "to be unique.")  # untranslated: model-facing
    new: str = Field(description="The text that replaces it.")  # untranslated: model-facing
    replace_all: bool = Field(False, description="Replace every occurrence of old.")  # untranslated


class OneEdit(_Args):
    path: str = Field(description=_PATH)
    old: str = Field(description="The exact text to replace.")  # untranslated: model-facing
    new: str = Field(description="The text that replaces it.")  # untranslated: model-facing
    replace_all: bool = Field(False, description="Replace every occurrence of old.")  # untranslated


class MultiEditArgs(_Args):
    edits: list[OneEdit] = Field(min_length=1, max_length=100,
                                 description="Edits applied in order; several may touch the "
                                             "same file (each sees the previous ones' "
                                             "result).")  # untranslated: model-facing


class PatchArgs(_Args):
    patch: str = Field(description=(
        "A unified diff (--- a/path, +++ b/path, @@ hunks; "
        "/dev/null to add or delete a file) or the '*** Begin Patch' "
        "format (*** Update File: / *** Add File: / *** Delete File: "
        "path, @@ chunks of ' ', '-', '+' lines, *** End Patch)."))  # untranslated: model-facing


class SearchArgs(_Args):
    pattern: str = Field(min_length=1, description=(
        "A regular expression (Rust/ripgrep "
        "syntax), or plain text with literal=true."))  # untranslated: model-facing
    path: str = Field(
        ".", description="Folder or file to search, relative to the workspace.")  # untranslated
    literal: bool = Field(
        False, description="Search for the pattern as plain text.")  # untranslated
    ignore_case: bool = Field(False, description="Match regardless of case.")  # untranslated
    glob: str | None = Field(None, description=(
        "Only files matching this glob: '*.py' (any "
        "folder), 'src/**/*.ts'; '!*.min.js' excludes."))  # untranslated: model-facing
    context: int = Field(
        0, ge=0, le=20, description="Lines shown before and after each match.")  # untranslated
    max_results: int = Field(
        100, ge=1, le=2_000, description="Matching lines shown at most.")  # untranslated
    include_ignored: bool = Field(
        False, description="Also search files .gitignore excludes.")  # untranslated


class GlobArgs(_Args):
    pattern: str = Field(description="A glob: '*.py' matches at any depth, 'src/*.py' only "
                                     "directly in src, '**' crosses folders, "
                                     "'tests/**/test_*.py'.")  # untranslated: model-facing
    path: str = Field(
        ".", description="Folder to look in, relative to the workspace.")  # untranslated
    max_results: int = Field(
        200, ge=1, le=10_000, description="Paths shown at most.")  # untranslated: model-facing
    include_ignored: bool = Field(
        False, description="Also list files .gitignore excludes.")  # untranslated: model-facing


class TreeArgs(_Args):
    path: str = Field(".", description="Folder to show, relative to the workspace.")  # untranslated
    depth: int = Field(3, ge=1, le=20, description="Levels of folders to open (1: only this "
                                                   "folder's entries).")  # untranslated
    max_entries: int = Field(
        300, ge=10, le=10_000, description="Entries shown at most.")  # untranslated
    include_ignored: bool = Field(
        False, description="Also show what .gitignore excludes.")  # untranslated: model-facing


class ExecArgs(_Args):
    command: str = Field(description=(
        "A bash command line (pipes, &&, redirections work)."))  # untranslated: model-facing
    cwd: str = Field(".", description="Folder to run in, inside the workspace.")  # untranslated
    timeout: float | None = Field(None, gt=0, description="Seconds before the command is "
                                                          "killed (default 120).")  # untranslated
    network: bool = Field(False, description="Let the command use the network (only when it "
                                             "needs it: downloads, installs).")  # untranslated


class GitArgs(_Args):
    action: Literal["status", "diff", "log", "changed", "branch"] = Field(
        description="status: short status; diff: unstaged changes (staged=true: staged ones); "
                    "log: recent commits; changed: changed and untracked files; branch: the "
                    "current branch and the local branches.")  # untranslated: model-facing
    path: str | None = Field(None, description="Limit to this file or folder.")  # untranslated
    limit: int | None = Field(None, ge=1, le=500, description="log: how many commits "
                                                             "(default 20).")  # untranslated
    staged: bool = Field(False, description="diff: show the staged changes.")  # untranslated


class TestArgs(_Args):
    command: str | None = Field(None, description="The test command; omit it to run the one "
                                                  "detected for the project.")  # untranslated
    cwd: str = Field(".", description="Folder to run in, inside the workspace.")  # untranslated
    timeout: float | None = Field(
        None, gt=0, description="Seconds before the run is killed.")  # untranslated
    network: bool = Field(False, description="Let the tests use the network.")  # untranslated
