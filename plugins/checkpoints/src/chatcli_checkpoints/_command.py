"""The ``/diff`` command: what this session changed, coloured, with a ``+N −M`` stat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatcli import translation

if TYPE_CHECKING:
    from chatcli_checkpoints._core import Checkpoints

__all__ = ["USAGE", "diff_command"]

_, ngettext = translation(__name__)

USAGE = "/diff [last] [--git] [--stat]"  # untranslated: the command's syntax


def diff_command(core: Checkpoints, app: Any, text: str) -> None:
    """``/diff``: since the session's first recorded change; ``last``: its latest step's
    changes; ``--git``: the working tree against git's ``HEAD``; ``--stat``: counts only."""
    from chatcli import redact
    from chatcli_render.diff import render, stat_lines, stats

    from chatcli_checkpoints._diff import git_head_diff

    console = app.console
    words = text.split()
    unknown = [w for w in words if w not in ("last", "--git", "--stat")]
    if unknown:
        console.print(_("/diff: unknown argument {argument!r}; use {usage}").format(
            argument=unknown[0], usage=USAGE), style="red", markup=False, highlight=False)
        return
    if "--git" in words:
        diff = git_head_diff(core._workspace())
        if diff is None:
            console.print(_("/diff --git: the workspace is not in a git repository; /diff "
                            "shows what this session changed"), style="yellow", markup=False)
            return
        none = _("No changes against git HEAD.")
        # i18n: {stat} is "N files changed, +A −D" (or the like)
        heading = _("{stat} against git HEAD:")
    else:
        last = "last" in words
        diff = app.host.hook.workspace_diff(conversation=app.conversation,
                                            since="last" if last else "first")
        if last:
            none = _("No changes in the last step that changed files.")
            # i18n: {stat} is "N files changed, +A −D" (or the like)
            heading = _("{stat} in the last step that changed files:")
        else:
            none = _("No changes in this session.")
            # i18n: {stat} is "N files changed, +A −D" (or the like)
            heading = _("{stat} in this session:")
        if diff is None and not core.enabled:
            console.print(_("Nothing is recorded: checkpoints are off ([checkpoints] enabled = "
                            "false); /diff --git compares with git's HEAD."), style="yellow",
                          markup=False)
            return
        if diff is None:
            console.print(_("No file changed in this session yet (a file is recorded before "
                            "each edit or command; /diff --git compares with git's HEAD)."),
                          style="dim", markup=False)
            return
    diff = redact(diff)
    found = stats(diff)
    if not diff.strip():
        console.print(none, style="dim", markup=False)
        return
    rows = stat_lines(found)
    if rows:
        console.print(heading.format(stat=rows[-1]), markup=False, highlight=False)
        for row in rows[:-1]:
            console.print("  " + row, markup=False, highlight=False)
    if "--stat" not in words:
        console.print(render(diff))
