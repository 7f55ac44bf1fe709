"""``chatcli trust [PATH]``, ``--list``, ``--revoke``: which projects may change chatcli.

A project's control files (``.chatcli/config.toml``, and those plugins name: ``.mcp.json``,
project skills…) take effect only once the user trusted them as they are; see
:func:`chatcli.project_trust`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click
from chatcli import cli_host, translation

from chatcli_admin.table import format_table

if TYPE_CHECKING:
    from chatcli import PluginHost, UsageError

__all__ = ["trust_command"]

_, ngettext = translation(__name__)


@click.command("trust", short_help=_("Let a project's files change chatcli."), help=_(
    "Trust the project of PATH (default: here): its .chatcli/config.toml, .mcp.json, skills…\n\n"
    "Shows what the project's files would change and asks. Until you trust it, chatcli ignores "
    "a project's files except what only tightens (deny rules, a smaller budget). A change to "
    "those files asks again. Endpoints, keys, programs to run and anything that loosens "
    "security never come from a project, trusted or not."))
@click.argument("path", required=False, type=click.Path(file_okay=False))
@click.option("-y", "--yes", is_flag=True, help=_("Trust it without asking."))
@click.option("--list", "as_list", is_flag=True, help=_("Show the trusted projects."))
@click.option("--revoke", is_flag=True, help=_("Stop trusting the project of PATH."))
@click.pass_context
def trust_command(ctx: click.Context, path: str | None, yes: bool, as_list: bool,
                  revoke: bool) -> int:
    """Trust the project of PATH (default: here): its .chatcli/config.toml, .mcp.json, skills…

    Shows what the project's files would change and asks. Until you trust it, chatcli ignores
    a project's files except what only tightens (deny rules, a smaller budget). A change to
    those files asks again. Endpoints, keys, programs to run and anything that loosens
    security never come from a project, trusted or not.
    """
    from chatcli import UsageError

    host = cli_host(ctx)
    if as_list:
        if path is not None or revoke or yes:
            raise UsageError(_("--list takes no PATH, --revoke or --yes"),
                             _("run `chatcli trust --list` alone"))
        return _list(host)
    workspace = _workspace(path)
    if revoke:
        return _revoke(host, workspace)
    return _trust(host, workspace, yes)


def _workspace(path: str | None) -> str:
    import os

    from chatcli import UsageError

    folder = os.path.realpath(path or os.getcwd())
    if not os.path.isdir(folder):
        raise UsageError(_("no folder {path!r}").format(path=path),
                         _("give a project folder, or run it inside one"))
    return folder


def _no_project(workspace: str) -> UsageError:
    from chatcli import UsageError

    return UsageError(_("{workspace} belongs to no project (the home folder is nobody's)"
                        ).format(workspace=workspace),
                      _("run it in a project folder, or give one: chatcli trust PATH"))


def _trust(host: PluginHost, workspace: str, yes: bool) -> int:
    from chatcli import UsageError, project_trust
    from chatcli_workspace import control_file_programs, trust_project, trust_summary

    state = project_trust(workspace, host)
    if state.root is None:
        raise _no_project(workspace)
    if not state.files:
        click.echo(_("{root}: nothing to trust (no file here changes chatcli)").format(
            root=state.root))
        return 0
    click.echo(_("project: {root}").format(root=state.root))
    if state.trusted:
        click.echo(ngettext("already trusted, as its files are now ({count} file)",
                            "already trusted, as its files are now ({count} files)",
                            len(state.files)).format(count=len(state.files)))
        return 0
    if state.changed:
        click.echo(_("its files changed since you trusted it"))
    click.echo(_("files that change chatcli here:"))
    for line in trust_summary(workspace, host):
        click.echo(f"  {line}")
        name = line.split(":", 1)[0]
        if name in state.files:  # what the file runs or reaches (MCP servers, hooks)
            for program in control_file_programs(f"{state.root}/{name}"):
                click.echo(f"    {program}")
    if not yes:
        if not _terminal():
            raise UsageError(_("nothing recorded: not a terminal, so nobody could answer"),
                             _("run `chatcli trust --yes` to trust it without asking"))
        if not click.confirm(_("Trust this project?"), default=False):
            click.echo(_("not trusted; nothing recorded"))
            return 1
    done = trust_project(workspace, host, expected=state.digest)
    count = len(done.files)
    click.echo(ngettext("trusted {root} ({count} file); a change to them asks again",
                        "trusted {root} ({count} files); a change to them asks again",
                        count).format(root=done.root, count=count))
    return 0


def _terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def _revoke(host: PluginHost, workspace: str) -> int:
    from chatcli import project_root, trusted_projects
    from chatcli_workspace import untrust_project

    root = project_root(workspace)
    if root is None:
        raise _no_project(workspace)
    known = trusted_projects()
    if root not in known and workspace not in known:
        click.echo(_("{root} was not trusted").format(root=root), err=True)
        return 0
    untrust_project(workspace, host)
    click.echo(_("no longer trusting {root}").format(root=root))
    return 0


def _list(host: PluginHost) -> int:
    import os

    from chatcli import project_trust, trusted_projects

    known = trusted_projects()
    if not known:
        click.echo(_("no trusted projects; trust one with `chatcli trust` in its folder"))
        return 0
    rows = []
    for root, entry in sorted(known.items()):
        if not os.path.isdir(root):
            status = _("gone")
        else:
            state = project_trust(root, host)
            status = _("trusted") if state.trusted else _("changed (asks again)")
        files = entry.get("files")
        shown = ", ".join(files) if isinstance(files, list) else "?"
        rows.append([root, status, str(entry.get("when", "?")), shown])
    click.echo(format_table([_("PROJECT"), _("STATE"), _("SINCE"), _("FILES")], rows))
    return 0
