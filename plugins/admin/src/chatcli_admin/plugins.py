"""``chatcli plugins list|install|uninstall|new``: what is installed, and managing it."""

from __future__ import annotations

import importlib.util
import sys
from typing import TYPE_CHECKING

import click
from chatcli import cli_host

from chatcli_admin.table import format_table

if TYPE_CHECKING:
    from chatcli import PluginHost

__all__ = ["PluginInfo", "installed_distribution", "installer_command", "plugin_infos",
           "plugins_group"]

KINDS = ("provider", "tool", "command", "skills")
#: The entry-point group plugins are found in (``[project.entry-points."chatcli.plugins"]``).
ENTRY_POINT_GROUP = "chatcli.plugins"


@click.group("plugins")
def plugins_group() -> None:
    """List, install, remove and create chatcli plugins."""


@plugins_group.command("list")
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
        click.echo("no plugins installed; see `chatcli plugins install NAME`")
        return 0
    rows = []
    for info in infos:
        status = info.status if not info.reason else f"{info.status}: {info.reason}"
        rows.append([info.name, info.version or "-", status, ", ".join(info.hooks) or "-"])
    click.echo(format_table(["NAME", "VERSION", "STATUS", "HOOKS"], rows))
    return 0


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
            info.reason = f"refused by the managed policy {by[0]}"
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
            "neither pip nor uv is available in chatcli's environment",
            f"install pip: {sys.executable} -m ensurepip",
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

        raise UsageError(f"{action} failed (exit {done.returncode})", "see the output above")
    verb = "installed" if action == "install" else "uninstalled"
    click.echo(f"{verb}: {', '.join(names)}; see `chatcli plugins list`")
    return 0


@plugins_group.command("install")
@click.argument("names", nargs=-1, required=True)
@click.option("-e", "--editable", is_flag=True, help="Install local folders in editable mode.")
@click.option("--dry-run", is_flag=True, help="Print the installer command without running it.")
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


@plugins_group.command("uninstall")
@click.argument("names", nargs=-1, required=True)
@click.option("--dry-run", is_flag=True, help="Print the installer command without running it.")
def plugins_uninstall(names: tuple[str, ...], dry_run: bool) -> int:
    """Remove plugin packages (plugin or package names) from chatcli's environment."""
    from chatcli import UsageError

    resolved = []
    for name in names:
        dist = installed_distribution(name)
        if dist is None and not dry_run:
            raise UsageError(f"no installed plugin or package named '{name}'",
                             "see `chatcli plugins list` for the names")
        if dist is not None and not _declares_plugins(dist):
            what = ("chatcli itself" if dist.lower().replace("_", "-") in _CHATCLI_ITSELF
                    else "not a chatcli plugin (it declares no chatcli.plugins entry point)")
            raise UsageError(f"'{dist}' is {what}; removing it could break chatcli",
                             "name a plugin from `chatcli plugins list`")
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


@plugins_group.command("new")
@click.argument("name")
@click.option("--kind", type=click.Choice(KINDS), required=True, help="What the plugin adds.")
@click.option("--dir", "directory", type=click.Path(file_okay=False),
              default=None, help="Where to create it (default: the current directory).")
def plugins_new(name: str, kind: str, directory: str | None) -> int:
    """Create a new plugin package NAME from the template."""
    from pathlib import Path

    from chatcli_admin.scaffold import render_plugin

    path = render_plugin(name, kind, Path(directory) if directory else Path.cwd())
    click.echo(f"created {path}")
    click.echo(f"next: chatcli plugins install -e {path} && chatcli plugins list")
    return 0
