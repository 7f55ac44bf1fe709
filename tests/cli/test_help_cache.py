"""``chatcli --help`` is served from a cached page (chatcli_cli.main through chatcli-cli's
HelpCache) without importing click —
byte for byte click's page, never a stale one: a plugin installed, edited or disabled, another
width or a failing plugin all show what click would print now."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chatcli._paths import atomic_write
from chatcli_cli.help_cache import HelpCache
from hypothesis import given, settings
from hypothesis import strategies as st
from process_support import CHATCLI, PYTHON, process_env

COMMAND = '''
import click
from chatcli import hookimpl

@hookimpl
def register_commands(cli):
    @cli.command("{command}")
    def _command():
        """{help}"""
'''

OPTION = '''
@hookimpl
def register_cli_options(register):
    register(click.Option(["--{option}"], is_flag=True, help="{help}"))
'''

#: click's own page, printed by the command line itself (no console script, no cache).
CLICK_PAGE = "import sys\nfrom chatcli_cli.root import run\nsys.exit(run(['--help']))"


class Home:
    """A home with its own cache folder and a site folder of throwaway plugins."""

    def __init__(self, root: Path) -> None:
        self.root, self.site, self.cache = root, root / "site", root / "page-cache"
        self.site.mkdir()
        self._settle()

    def _settle(self) -> None:
        """Give the site folder's files a time well before the next run, as an installed
        distribution has (a page made from files changed just before its run is not kept)."""
        moment = time.time_ns() - 30 * 10**9
        for path in [*self.site.rglob("*"), self.site]:
            os.utime(path, ns=(moment, moment))

    def plugin(self, name: str, body: str) -> None:
        package = self.site / f"{name}_plugin"
        package.mkdir(exist_ok=True)
        (package / "__init__.py").write_text(body)
        info = self.site / f"{name}_plugin-1.0.dist-info"
        info.mkdir(exist_ok=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}-plugin\n"
                                       "Version: 1.0\n")
        (info / "entry_points.txt").write_text(f"[chatcli.plugins]\n{name} = {name}_plugin\n")
        self._settle()

    def env(self, **extra: str) -> dict[str, str]:
        return process_env(self.root, **{"PYTHONPATH": str(self.site), "COLUMNS": "80",
                                         "CHATCLI_CACHE_DIR": str(self.cache), **extra})

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(CHATCLI), *args], capture_output=True, text=True,
                              env=self.env(**extra), cwd=self.root, timeout=60)

    def served(self, flag: str = "--help", **extra: str) -> tuple[str, bool]:
        """The page a run printed, and whether it imported click to print it."""
        done = self.run(flag, PYTHONPROFILEIMPORTTIME="1", **extra)
        assert done.returncode == 0, done.stderr
        lines = [line for line in done.stderr.splitlines() if not line.startswith("import time")]
        assert lines == []
        return done.stdout, any(line.split("|")[-1].strip() == "click"
                                for line in done.stderr.splitlines())

    def click_page(self, **extra: str) -> str:
        done = subprocess.run([str(PYTHON), "-c", CLICK_PAGE], capture_output=True,
                              text=True, env=self.env(**extra), cwd=self.root, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def pages(self) -> list[Path]:
        return sorted(self.cache.glob("help-*.txt"))


@pytest.fixture
def help_home(home: Path) -> Home:
    return Home(home)


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_page_is_clicks_byte_for_byte_then_served_without_click(help_home: Home,
                                                                    flag: str) -> None:
    first = help_home.run(flag)
    assert (first.returncode, first.stderr) == (0, "")
    assert first.stdout == help_home.click_page() and "Usage: chatcli" in first.stdout
    [page] = help_home.pages()
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    assert help_home.served(flag) == (first.stdout, False)  # the copy, click not imported
    assert help_home.served(flag) == (first.stdout, False)


def test_a_new_plugins_command_and_option_appear(help_home: Home) -> None:
    before = help_home.run("--help").stdout
    assert help_home.served()[1] is False
    help_home.plugin("zebra", COMMAND.format(command="zebra", help="Stripe the answers.")
                     + OPTION.format(option="zebra-mode", help="Answer in stripes."))
    page, made = help_home.served()
    assert made and page != before
    assert "zebra" in page and "Stripe the answers." in page and "--zebra-mode" in page
    assert page == help_home.click_page()
    assert help_home.served() == (page, False)


def test_an_edited_plugin_is_read_again(help_home: Home) -> None:
    help_home.plugin("ibis", COMMAND.format(command="ibis", help="First words."))
    help_home.run("--help")
    page, made = help_home.served()
    assert not made and "First words." in page
    help_home.plugin("ibis", COMMAND.format(command="ibis", help="Second words.")
                     + OPTION.format(option="ibis-wings", help="Spread them."))
    page, made = help_home.served()
    assert made and "Second words." in page and "First words." not in page
    assert "--ibis-wings" in page and page == help_home.click_page()


@pytest.mark.parametrize(("variables", "expect_command", "own_file"), [
    ({"CHATCLI_DISABLE_PLUGINS": "okapi"}, False, False),
    ({"CHATCLI_PLUGINS": "okapi"}, True, False),
    ({"LANGUAGE": "de"}, True, False),
    ({"COLUMNS": "60"}, True, True),
    ({"COLUMNS": "200"}, True, False),  # wraps at 78 too: the same file
])
def test_variables_and_width_choose_their_own_page(help_home: Home, variables: dict[str, str],
                                                   expect_command: bool, own_file: bool) -> None:
    help_home.plugin("okapi", COMMAND.format(
        command="okapi", help="A long line of help that a narrow terminal wraps somewhere "
                              "before its end, and a wide one does not wrap at all."))
    usual = help_home.run("--help").stdout
    assert help_home.served()[1] is False
    page, made = help_home.served(**variables)
    assert made and page == help_home.click_page(**variables)
    assert ("okapi" in page) == expect_command
    assert help_home.served(**variables) == (page, False)
    # each width has its file; other variables replace the page of theirs
    assert help_home.served() == (usual, not own_file)
    assert len(help_home.pages()) == 1 + own_file


def test_a_run_that_warns_is_not_kept(help_home: Home) -> None:
    help_home.plugin("broken", "raise RuntimeError('no wings')\n")
    for _ in range(2):
        done = help_home.run("--help")
        assert done.returncode == 0 and "broken" in done.stderr and "no wings" in done.stderr
    assert help_home.pages() == []


def test_a_file_changed_just_before_the_run_is_not_trusted(help_home: Home) -> None:
    # A plugin installed while the page is made: its files are newer than the run's start.
    help_home.plugin("newt", COMMAND.format(command="newt", help="Fresh."))
    module = help_home.site / "newt_plugin" / "__init__.py"
    os.utime(module)  # now
    assert "newt" in help_home.run("--help").stdout
    assert help_home.pages() == []
    assert help_home.served()[1] is True


@pytest.mark.parametrize("damage", [
    lambda data: data[: len(data) // 2],                      # cut short
    lambda data: data.replace(b"\0", b"\n", 1),               # no key separator
    lambda data: data.replace(b"Usage:", b"\x1b[2JUsage:"),   # a terminal escape
    lambda data: b"",                                         # empty
    lambda data: data.replace(b"chatcli-help 1", b"chatcli-help 0"),  # another format
])
def test_a_damaged_page_is_not_served(help_home: Home, damage) -> None:
    good = help_home.run("--help").stdout
    [page] = help_home.pages()
    page.write_bytes(damage(page.read_bytes()))
    assert help_home.served() == (good, True)
    assert help_home.served() == (good, False)  # made again


@pytest.mark.parametrize("variable", [
    "CHATCLI_PROVIDERS__OPENAI__API_KEY", "CHATCLI_PROVIDERS__PROXY__HEADERS", "CHATCLI_MODEL",
])
def test_a_variables_value_is_not_written_down_yet_a_change_is_seen(help_home: Home,
                                                                    variable: str) -> None:
    secret = "sk-live-0123456789abcdefSECRET"
    page = help_home.run("--help", **{variable: secret}).stdout
    assert help_home.served(**{variable: secret}) == (page, False)
    [kept] = help_home.pages()
    assert secret.encode() not in kept.read_bytes() and variable.encode() in kept.read_bytes()
    assert help_home.served(**{variable: secret + "2"}) == (page, True)  # another value


def test_no_page_without_a_utf8_stdout(help_home: Home) -> None:
    done = help_home.run("--help", PYTHONIOENCODING="latin-1")
    assert done.returncode == 0 and "Usage: chatcli" in done.stdout
    assert help_home.pages() == []


@settings(max_examples=60, deadline=None)
@given(text=st.text(min_size=1))
def test_any_page_reads_back_as_written_or_is_refused(tmp_path_factory, text: str) -> None:
    folder = tmp_path_factory.mktemp("page")
    kept, used = folder / "help-x.txt", folder / "used.txt"
    used.write_text("x")
    key = f"chatcli-help 1\n--help\n{sys.executable}"
    cache = HelpCache("chatcli", "1", str(folder / "pages"), "CHATCLI_", list,
                      lambda path, data: atomic_write(Path(path), data, mode=0o600))
    cache.keep(str(kept), key, text, {str(used)}, settled=2**63)
    served = cache.read(str(kept), key)
    assert served == (None if "\x1b" in text or "\0" in text else text)
    if served is not None:
        assert cache.read(str(kept), key + "!") is None
        used.write_text("changed!")
        assert cache.read(str(kept), key) is None


def test_the_language_setting_chooses_the_page(help_home: Home) -> None:
    """The user's ``language`` setting decides the page when no variable names a language:
    a page made in English is never served once the setting says Portuguese (the settings
    file is among the files the page was made from, even before it exists)."""
    no_language = {"CHATCLI_LANG": "", "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": "",
                   "LANGUAGE": ""}
    english = help_home.run("--help", **no_language).stdout
    assert english.startswith("Usage: chatcli") and "Show this message and exit." in english
    assert help_home.served(**no_language) == (english, False)
    done = help_home.run("config", "set", "language", "pt_BR", **no_language)
    assert done.returncode == 0, done.stderr
    page, _ = help_home.served(**no_language)
    assert page.startswith("Uso: chatcli") and "Opções:" in page
    assert "Mostra esta mensagem e sai." in page and "Usage:" not in page
    assert "um assistente de IA no seu terminal" in page
    assert help_home.served(**{**no_language, "CHATCLI_LANG": "en"})[0] == english


def test_each_language_keeps_its_own_page(help_home: Home) -> None:
    """Pages in two languages are kept side by side: switching back and forth makes each once
    (a user of two terminals, one in each language, pays click's page twice, not every run)."""
    english, made = help_home.served(CHATCLI_LANG="en")
    portuguese, made_too = help_home.served(CHATCLI_LANG="pt_BR")
    assert made and made_too and portuguese.startswith("Uso: chatcli")
    for _ in range(2):
        assert help_home.served(CHATCLI_LANG="en") == (english, False)
        assert help_home.served(CHATCLI_LANG="pt_BR") == (portuguese, False)
    assert len(help_home.pages()) == 2
