"""Plugins whose hooks are known from an earlier start-up are imported when one of their hooks
is first called — and pluggy calls them in the order an eager start-up would have."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from process_support import CHATCLI, process_env

#: A plugin that leaves a mark in $MARKS when it is imported, and registers a provider.
PROVIDER_PLUGIN = '''
import os
from chatcli import hookimpl

with open(os.environ["MARKS"], "a") as marks:
    marks.write("{name}\\n")

@hookimpl
def register_providers(register):
    from chatcli import ProviderSpec
    register(ProviderSpec(name="{provider}", display_name="{display}", default_model="m",
                          factory=lambda config: None, requires_key=False))
'''

COMMAND_HOOK = '''
@hookimpl
def register_commands(cli):
    import click

    @cli.command("{command}")
    def _command():
        """Say who."""
        click.echo("{name} here")
'''


def _distribution(site: Path, name: str, body: str) -> None:
    package = site / f"{name}_plugin"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text(body)
    info = site / f"{name}_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[chatcli.plugins]\n{name} = {name}_plugin\n")


class Home:
    """An isolated home with a site folder of throwaway plugins and its own plugin cache."""

    def __init__(self, root: Path) -> None:
        self.root, self.site, self.marks = root, root / "site", root / "marks.txt"
        self.site.mkdir()

    def add(self, name: str, provider: str, display: str, command: str | None = None) -> Path:
        body = PROVIDER_PLUGIN.format(name=name, provider=provider, display=display)
        if command:
            body += COMMAND_HOOK.format(name=name, command=command)
        _distribution(self.site, name, body)
        return self.site / f"{name}_plugin" / "__init__.py"

    def run(self, *args: str, **extra: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
        """Run chatcli; returns the result and the plugins this run imported."""
        self.marks.write_text("")
        env = process_env(self.root, PYTHONPATH=str(self.site), MARKS=str(self.marks),
                          CHATCLI_CACHE_DIR=str(self.root / "cache"),
                          CHATCLI_PLUGINS="lazya,lazyz,lazyc,openai,admin,print", **extra)
        result = subprocess.run([str(CHATCLI), *args], capture_output=True, text=True, env=env,
                                timeout=60, cwd=self.root)
        return result, sorted(self.marks.read_text().split())


def test_help_imports_only_the_plugins_that_add_commands(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.add("lazya", "prov-a", "Alpha")
    home.add("lazyc", "prov-c", "Gamma", command="gamma")
    first, imported = home.run("--help")
    assert first.returncode == 0, first.stderr
    assert imported == ["lazya", "lazyc"]  # nothing known yet: everything is imported
    again, imported = home.run("--help")
    assert again.returncode == 0, again.stderr
    assert imported == ["lazyc"]  # the plugin adding a command, and only it
    assert "gamma" in again.stdout and again.stdout == first.stdout
    listing, imported = home.run("models")
    assert imported == ["lazya", "lazyc"]
    assert "Alpha" in listing.stdout and "Gamma" in listing.stdout
    command, imported = home.run("gamma")
    assert (command.returncode, command.stdout, imported) == (0, "lazyc here\n", ["lazyc"])


def test_plugins_list_shows_every_plugin_and_its_hooks(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.add("lazya", "prov-a", "Alpha")
    home.run("--help")
    listing, imported = home.run("plugins", "list")
    assert listing.returncode == 0, listing.stderr
    assert "lazya" in imported
    row = next(line for line in listing.stdout.splitlines() if line.startswith("lazya"))
    assert "loaded" in row and "register_providers" in listing.stdout


def test_late_import_keeps_the_eager_order(tmp_path: Path) -> None:
    # Both register provider "dup"; pluggy calls the later name first, so lazyz's wins. In a
    # lazy `models` run lazyz is imported first (for its command), lazya afterwards: it must
    # still come after lazyz in the call order.
    home = Home(tmp_path)
    home.add("lazya", "dup", "From A")
    home.add("lazyz", "dup", "From Z", command="zed")
    eager, _ = home.run("models", CHATCLI_EAGER_PLUGINS="1")
    home.run("--help")
    lazy, imported = home.run("models")
    assert imported == ["lazya", "lazyz"]
    assert "From Z" in eager.stdout and "From A" not in eager.stdout
    assert lazy.stdout == eager.stdout
    assert "'dup' from plugin 'lazyz' replaces the one from plugin 'lazya'" in lazy.stderr


def test_an_edited_plugin_is_imported_again_to_learn_its_hooks(tmp_path: Path) -> None:
    home = Home(tmp_path)
    module = home.add("lazya", "prov-a", "Alpha")
    home.run("--help")
    assert home.run("--help")[1] == []
    module.write_text(module.read_text() + COMMAND_HOOK.format(name="lazya", command="alpha"))
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later edit time
    result, imported = home.run("--help")
    assert imported == ["lazya"] and "alpha" in result.stdout
    assert home.run("--help")[1] == ["lazya"]  # now it adds a command: --help needs it


def test_eager_variable_imports_everything(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.add("lazya", "prov-a", "Alpha")
    home.run("--help")
    assert home.run("--help", CHATCLI_EAGER_PLUGINS="1")[1] == ["lazya"]


def test_a_plugin_that_stops_importing_is_reported(tmp_path: Path) -> None:
    home = Home(tmp_path)
    module = home.add("lazya", "prov-a", "Alpha")
    home.run("--help")
    module.write_text("raise RuntimeError('broken now')\n")
    time.sleep(0.01)
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    result, _ = home.run("--help")
    assert result.returncode == 0
    assert "plugin 'lazya' failed to import: RuntimeError: broken now" in result.stderr


#: A command that runs another plugin's command, found on the root group as chatcli-mcp finds
#: chatcli-admin's ``config unset`` and ``trust``.
CALLING_HOOK = '''
@hookimpl
def register_commands(cli):
    import click

    @cli.command("{command}")
    @click.pass_context
    def _command(ctx):
        """Run {target}."""
        root = ctx.find_root()
        ctx.invoke(root.command.get_command(root, "{target}"))
'''


def _touch_later(module: Path) -> None:
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later edit time


def test_a_command_imports_only_the_plugins_that_add_it(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.add("lazya", "prov-a", "Alpha", command="alpha")
    home.add("lazyc", "prov-c", "Gamma", command="gamma")
    first, imported = home.run("gamma")
    assert (first.stdout, imported) == ("lazyc here\n", ["lazya", "lazyc"])  # nothing known
    for command, plugin in (("gamma", "lazyc"), ("alpha", "lazya")):
        result, imported = home.run(command)
        assert (result.returncode, result.stdout, imported) == (0, f"{plugin} here\n", [plugin])
    helped, imported = home.run("alpha", "--help")
    assert "Say who." in helped.stdout and imported == ["lazya"]
    listing, imported = home.run("--help")  # the root's page still lists every command
    assert "alpha" in listing.stdout and "gamma" in listing.stdout
    assert imported == ["lazya", "lazyc"]


def test_a_command_still_finds_another_plugins_command(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.add("lazya", "prov-a", "Alpha", command="alpha")
    caller = home.add("lazyc", "prov-c", "Gamma")
    caller.write_text(caller.read_text() + CALLING_HOOK.format(command="call", target="alpha"))
    home.run("--help")
    for _ in range(2):  # known to add `call` the second time: lazya is imported on demand
        result, imported = home.run("call")
        assert (result.returncode, result.stdout) == (0, "lazya here\n"), result.stderr
        assert imported == ["lazya", "lazyc"]


def test_an_unknown_command_asks_every_plugin_and_fails_as_before(tmp_path: Path) -> None:
    home = Home(tmp_path)
    home.add("lazya", "prov-a", "Alpha", command="alpha")
    home.run("--help")
    result, imported = home.run("nosuch")
    assert result.returncode == 2 and "No such command 'nosuch'" in result.stderr
    assert imported == ["lazya"]


def test_a_plugin_whose_commands_changed_is_asked_again(tmp_path: Path) -> None:
    home = Home(tmp_path)
    module = home.add("lazya", "prov-a", "Alpha", command="alpha")
    home.add("lazyc", "prov-c", "Gamma", command="gamma")
    home.run("--help")
    module.write_text(module.read_text().replace('"alpha"', '"beta"'))
    _touch_later(module)
    renamed, imported = home.run("beta")
    assert (renamed.returncode, renamed.stdout) == (0, "lazya here\n"), renamed.stderr
    # its entry module changed: imported again and asked, and the others (its commands were
    # not known yet, so none is known to add `beta`); the next run knows
    assert imported == ["lazya", "lazyc"]
    assert home.run("beta")[1] == ["lazya"]
    gone, imported = home.run("alpha")
    assert gone.returncode == 2 and "No such command 'alpha'" in gone.stderr
    assert home.run("gamma")[1] == ["lazyc"]
