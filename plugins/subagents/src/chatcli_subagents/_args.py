"""The argument models of the plugin's tools (pydantic): imported when a call's arguments are
validated, or when their JSON schemas are made (:mod:`chatcli_subagents.argstool`); a run that
calls neither tool builds neither model."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

__all__ = ["BranchArgs", "DelegateArgs"]


class DelegateArgs(BaseModel):
    """The arguments of ``delegate``."""

    agent: str = Field(min_length=1, description="the worker type: one of the types "
                                                 "listed")  # untranslated: model-facing
    task: str = Field(
        min_length=1,
        description="the whole task for the worker, self-contained: it sees nothing of this "
                    "conversation (goal, files, constraints, what to report "
                    "back)")  # untranslated: model-facing
    description: str = Field(min_length=1, max_length=120,
                             description="3-8 words naming the task, for the "
                                         "board")  # untranslated: model-facing
    isolation: Literal["worktree"] | None = Field(
        default=None,
        description="\"worktree\": the worker edits its own git worktree and branch, "
                    "merged later (for workers editing files other workers may "
                    "edit)")  # untranslated: model-facing


class BranchArgs(BaseModel):
    """The arguments of ``worker_branch``."""

    worker: str = Field(min_length=1, description="the worker's id (w1, w2…) whose report "
                                                  "named a branch")  # untranslated: model-facing
    action: Literal["merge", "discard"] = Field(
        description="merge: bring its commits into the current branch (a conflict changes "
                    "nothing and names the files); discard: drop its branch")  # untranslated: model
