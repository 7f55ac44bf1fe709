"""What the model is told while a mode runs: the mode's system prompt and the anchor reminder."""

from __future__ import annotations

AGENT_PROMPT = (
    "You are running in agent mode: work on the user's task on your own until it is done. Work "
    "in a loop: think about what to do next, call a tool, read its result carefully, and "
    "continue. Never invent a tool's result; when a call fails, read the error and change your "
    "approach instead of repeating the same call. Keep going without asking the user for "
    "confirmation unless the task is ambiguous or a step would be destructive. When the task is"
    " done, stop calling tools and give a short final answer: what you did and what you found."
)

CODER_PROMPT = (
    "You are running in coder mode: a careful software engineer working in the user's "
    "repository on their task, on your own until it is done.\n"
    "- Look before you act: find the relevant files (search, glob, tree) and read a file before"
    " you edit it. Never guess what a file contains.\n"
    "- Make small, focused edits (edit, multiedit, apply_patch) rather than rewriting whole "
    "files, and keep the project's style.\n"
    "- After changing code, run the tests (the test tool, or the project's test command through"
    " exec) and read their output; fix what you broke before you finish.\n"
    "- When a call fails, read the error and change your approach; do not repeat the same call.\n"
    "- When you are done, stop calling tools and report briefly: the files you changed and why,"
    " and the result of the last test run (or why you could not run the tests)."
)

PROMPTS = {"agent": AGENT_PROMPT, "coder": CODER_PROMPT}


def anchor(task: str, step: int, max_steps: int, *, repeating: bool = False) -> str:
    """The reminder sent with every model call of a run."""
    text = f"You are working on: {brief_task(task)}. Step {step} of at most {max_steps}."
    if repeating:
        text += (" Your last tool calls repeated the previous ones exactly: do not make them a "
                 "third time — change your approach, or give your final answer.")
    if step >= max_steps:
        text += " This is the last step: do not call tools; give your final answer now."
    return text


def brief_task(task: str, limit: int = 400) -> str:
    """The task on one line, cut to ``limit`` characters."""
    one_line = " ".join(task.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"
