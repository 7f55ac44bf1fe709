"""``chatcli plugins uninstall NAME``: it takes the name ``chatcli plugins list`` shows, refuses
chatcli itself and packages that are not chatcli plugins, and fails for a name that is not
installed instead of claiming success."""

from __future__ import annotations

import pytest
from cli_support import CHATCLI, run_process


def test_uninstall_takes_the_plugin_name_shown_by_plugins_list(cli):
    # `openai` is how `chatcli plugins list` names the plugin of chatcli-provider-openai
    result = cli("plugins", "uninstall", "openai", "--dry-run")
    assert result.code == 0
    assert result.err.strip().split()[-1] == "chatcli-provider-openai"


def test_uninstall_of_something_not_installed_fails_instead_of_claiming_success(cli):
    result = cli("plugins", "uninstall", "no-such-plugin-xyz")
    assert result.code == 2
    assert "no installed plugin or package named 'no-such-plugin-xyz'" in result.err
    assert "uninstalled" not in result.out


@pytest.mark.parametrize("name, why", [
    ("chatcli-kernel", "is chatcli itself"),
    ("click", "is not a chatcli plugin"),
])
def test_plugins_uninstall_refuses_chatcli_itself_and_non_plugins(home, name, why):
    # --dry-run: if the guard ever regresses, the test must not really uninstall anything
    done = run_process([CHATCLI, "plugins", "uninstall", name, "--dry-run"], home)
    assert done.returncode == 2
    assert why in done.stderr and "pip uninstall" not in done.stderr
    plugin = run_process([CHATCLI, "plugins", "uninstall", "openai", "--dry-run"], home)
    assert plugin.returncode == 0 and "chatcli-provider-openai" in plugin.stderr
