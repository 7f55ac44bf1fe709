"""``chatcli plugins list|install|uninstall|new``: what is installed, and managing it."""

from __future__ import annotations

import importlib.util
import sys
from typing import TYPE_CHECKING

import click
from chatcli import cli_host, translation

from chatcli_admin.table import format_table

if TYPE_CHECKING:
    from chatcli import PluginHost

__all__ = ["PluginInfo", "installed_distribution", "installer_command", "plugin_infos",
           "plugins_group"]

KINDS = ("provider", "tool", "command", "skills")
#: The entry-point group plugins are found in (``[project.entry-points."chatcli.plugins"]``).
ENTRY_POINT_GROUP = "chatcli.plugins"

_, ngettext = translation(__name__)


@click.group("plugins", help=_("List, install, remove and create chatcli plugins."))
def plugins_group() -> None:
    """List, install, remove and create chatcli plugins."""


@plugins_group.command("list", help=_(
    "Show installed plugins: version, hooks, and whether they loaded (and why not)."))
@click.pass_context
def plugins_list(ctx: click.Context) -> int:
    """Show installed plugins: version, hooks, and whether they loaded (and why not)."""
    host = cli_host(ctx)
    # Ask every registration hook once so a plugin that raises in one is reported as failed.
    host.providers()
    host.tools()
    host.slash_commands()
    host.load_all()
    for hook in sorted(host.declared_hooks):  # and the plugins' own (register_skill_sources)
        if hook.startswith("register_"):
            getattr(host.hook, hook)(register=lambda item: None)
    infos = plugin_infos(host)
    if not infos:
        click.echo(_("no plugins installed; see `chatcli plugins install NAME`"))
        return 0
    rows = []
    for info in infos:
        status = _status_text(info.status)
        if info.reason:
            status = _("{status}: {reason}").format(status=status, reason=info.reason)
        rows.append([info.name, info.version or "-", status, ", ".join(info.hooks) or "-"])
    click.echo(format_table([_("NAME"), _("VERSION"), _("STATUS"), _("HOOKS")], rows))
    return 0


def _status_text(status: str) -> str:
    """A plugin's status as ``plugins list`` shows it (in the user's language)."""
    shown = {"loaded": _("loaded"), "misbehaving": _("misbehaving"), "failed": _("failed"),
             "disabled": _("disabled")}
    return shown.get(status, status)


class PluginInfo:
    """One entry of ``chatcli plugins list``: its status is "loaded", "misbehaving", "failed"
    or "disabled", and ``reason`` says why when it is not loaded."""

    def __init__(self, name: str, module: str, distribution: str | None = None,
                 version: str | None = None) -> None:
        self.name, self.module = name, module
        self.distribution, self.version = distribution, version
        self.hooks: list[str] = []
        self.status = "loaded"
        self.reason = ""


def plugin_infos(host: PluginHost) -> list[PluginInfo]:
    """What is installed, loaded and failed in ``host``, for ``chatcli plugins list`` (every
    plugin still waiting for one of its hooks is imported first)."""
    from importlib.metadata import entry_points

    host.load_all()
    dists = {
        ep.name: (ep.dist.name, ep.dist.version)
        for ep in entry_points(group=ENTRY_POINT_GROUP)
        if ep.dist is not None
    }
    infos: dict[str, PluginInfo] = {}
    for name, module in host.entry_points.items():
        dist, version = dists.get(name, (None, None))
        infos[name] = PluginInfo(name=name, module=module, distribution=dist, version=version)
    for name, plugin in host.pm.list_name_plugin():
        info = infos.setdefault(
            name, PluginInfo(name=name, module=getattr(plugin, "__name__", repr(plugin))))
        info.hooks = sorted(caller.name for caller in host.pm.get_hookcallers(plugin) or [])
    for failure in host.failures:
        info = infos.setdefault(failure.name, PluginInfo(name=failure.name, module="?"))
        if failure.fatal:
            info.status = "failed"
        elif info.status == "loaded":
            info.status = "misbehaving"
        info.reason = info.reason or f"{failure.stage}: {failure.reason}"
    from chatcli import managed_list

    refused, only = managed_list("policy.refused_plugins"), managed_list("policy.plugins")
    for name in host.skipped:
        info = infos.setdefault(name, PluginInfo(name=name, module="?"))
        info.status = "disabled"
        by = (refused if refused and name in refused[1] else
              only if only and name not in only[1] else None)
        if by is not None:
            info.reason = _("refused by the managed policy {file}").format(file=by[0])
    return sorted(infos.values(), key=lambda i: i.name)


def installer_command(action: str, names: list[str]) -> list[str]:
    """The command that installs or uninstalls ``names`` in chatcli's own environment:
    ``python -m pip`` when pip is there, else ``uv pip --python python`` (uv venvs have no pip)."""
    import shutil

    from chatcli import UsageError

    if importlib.util.find_spec("pip") is not None:
        command = [sys.executable, "-m", "pip", action]
        return [*command, "-y", *names] if action == "uninstall" else [*command, *names]
    uv = shutil.which("uv")
    if uv is None:
        raise UsageError(
            _("neither pip nor uv is available in chatcli's environment"),
            _("install pip: {python} -m ensurepip").format(python=sys.executable),
        )
    return [uv, "pip", action, "--python", sys.executable, *names]


def _run_installer(action: str, names: tuple[str, ...], dry_run: bool,
                   editable: bool = False) -> int:
    targets = [item for name in names for item in ("-e", name)] if editable else list(names)
    command = installer_command(action, targets)
    click.echo("$ " + " ".join(command), err=True)
    if dry_run:
        return 0
    import subprocess

    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        from chatcli import UsageError

        raise UsageError(_("{action} failed (exit {code})").format(action=action,
                                                                   code=done.returncode),
                         _("see the output above"))
    done_text = (_("installed: {names}; see `chatcli plugins list`") if action == "install" else
                 _("uninstalled: {names}; see `chatcli plugins list`"))
    click.echo(done_text.format(names=", ".join(names)))
    return 0


@plugins_group.command("install", help=_(
    "Install plugin packages (names, paths or URLs pip accepts) into chatcli's environment."))
@click.argument("names", nargs=-1, required=True)
@click.option("-e", "--editable", is_flag=True, help=_("Install local folders in editable mode."))
@click.option("--dry-run", is_flag=True,
              help=_("Print the installer command without running it."))
def plugins_install(names: tuple[str, ...], editable: bool, dry_run: bool) -> int:
    """Install plugin packages (names, paths or URLs pip accepts) into chatcli's environment."""
    return _run_installer("install", names, dry_run, editable)


def installed_distribution(name: str) -> str | None:
    """The installed distribution that ``name`` means: a plugin's name as ``chatcli plugins
    list`` shows it (``my-tool``), or a distribution's own name (``chatcli-my-tool``)."""
    from importlib.metadata import PackageNotFoundError, distribution, entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name and ep.dist is not None:
            return ep.dist.name
    try:
        return distribution(name).metadata["Name"] or name
    except PackageNotFoundError:
        return None


@plugins_group.command("uninstall", help=_(
    "Remove plugin packages (plugin or package names) from chatcli's environment."))
@click.argument("names", nargs=-1, required=True)
@click.option("--dry-run", is_flag=True,
              help=_("Print the installer command without running it."))
def plugins_uninstall(names: tuple[str, ...], dry_run: bool) -> int:
    """Remove plugin packages (plugin or package names) from chatcli's environment."""
    from chatcli import UsageError

    resolved = []
    for name in names:
        dist = installed_distribution(name)
        if dist is None and not dry_run:
            raise UsageError(_("no installed plugin or package named '{name}'").format(name=name),
                             _("see `chatcli plugins list` for the names"))
        if dist is not None and not _declares_plugins(dist):
            message = (_("'{dist}' is chatcli itself; removing it could break chatcli")
                       if dist.lower().replace("_", "-") in _CHATCLI_ITSELF else
                       _("'{dist}' is not a chatcli plugin (it declares no chatcli.plugins entry "
                         "point); removing it could break chatcli"))
            raise UsageError(message.format(dist=dist),
                             _("name a plugin from `chatcli plugins list`"))
        resolved.append(dist or name)
    return _run_installer("uninstall", tuple(resolved), dry_run)


#: Distributions that are chatcli rather than plugins of it.
_CHATCLI_ITSELF = frozenset({"chatcli", "chatcli-kernel", "chatcli-cli"})


def _declares_plugins(dist: str) -> bool:
    """Whether the installed distribution ``dist`` declares a ``chatcli.plugins`` entry point."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        return any(ep.group == ENTRY_POINT_GROUP for ep in distribution(dist).entry_points)
    except PackageNotFoundError:
        return True  # nothing to protect; the installer reports it


@plugins_group.command("new", help=_("Create a new plugin package NAME from the template."))
@click.argument("name")
@click.option("--kind", type=click.Choice(KINDS), required=True,
              help=_("What the plugin adds."))
@click.option("--dir", "directory", type=click.Path(file_okay=False),
              default=None, help=_("Where to create it (default: the current directory)."))
def plugins_new(name: str, kind: str, directory: str | None) -> int:
    """Create a new plugin package NAME from the template."""
    from pathlib import Path

    from chatcli_admin.scaffold import render_plugin

    path = render_plugin(name, kind, Path(directory) if directory else Path.cwd())
    click.echo(_("created {path}").format(path=path))
    click.echo(_("next: chatcli plugins install -e {path} && chatcli plugins list").format(
        path=path))
    return 0
