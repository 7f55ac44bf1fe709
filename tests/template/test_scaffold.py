"""``chatcli.scaffold.render_plugin`` and ``chatcli plugins new``: rendering the plugin template.

These tests render into temporary folders in-process (fast); ``test_generated.py`` installs the
rendered packages and runs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import chatcli
import pytest
from chatcli import UsageError
from chatcli_admin.scaffold import KINDS, find_template, placeholders, render_plugin, validate_name
from hypothesis import given, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "plugin-template"
CHATCLI = Path(sys.executable).with_name("chatcli")

EXPECTED_FILES = {
    "provider": {
        "pyproject.toml", "README.md", ".gitignore", "tests/test_provider.py",
        "src/chatcli_provider_weather/__init__.py",
        "src/chatcli_provider_weather/plugin.py",
        "src/chatcli_provider_weather/client.py",
        "src/chatcli_provider_weather/locale/messages.pot",
        "src/chatcli_provider_weather/locale/pt_BR/LC_MESSAGES/messages.po",
    },
    "tool": {
        "pyproject.toml", "README.md", ".gitignore", "tests/test_tool.py",
        "src/chatcli_weather/__init__.py",
        "src/chatcli_weather/plugin.py",
        "src/chatcli_weather/tool.py",
        "src/chatcli_weather/locale/messages.pot",
        "src/chatcli_weather/locale/pt_BR/LC_MESSAGES/messages.po",
    },
    "command": {
        "pyproject.toml", "README.md", ".gitignore", "tests/test_commands.py",
        "src/chatcli_weather/__init__.py",
        "src/chatcli_weather/plugin.py",
        "src/chatcli_weather/commands.py",
        "src/chatcli_weather/locale/messages.pot",
        "src/chatcli_weather/locale/pt_BR/LC_MESSAGES/messages.po",
    },
    "skills": {
        "pyproject.toml", "README.md", ".gitignore", "tests/test_skills.py",
        "src/chatcli_skills_weather/__init__.py",
        "src/chatcli_skills_weather/plugin.py",
        "src/chatcli_skills_weather/skills/weather/SKILL.md",
        "src/chatcli_skills_weather/locale/messages.pot",
        "src/chatcli_skills_weather/locale/pt_BR/LC_MESSAGES/messages.po",
    },
}


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_the_template_is_found_in_the_repository():
    assert find_template() == TEMPLATE


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_renders_a_complete_package(kind, tmp_path):
    folder = render_plugin("weather", kind, tmp_path)

    assert folder == tmp_path / placeholders("weather", kind)["distribution"]
    assert files_under(folder) == EXPECTED_FILES[kind]
    for path in folder.rglob("*"):
        assert "{{" not in path.name
        if path.is_file():
            assert "{{" not in path.read_text(encoding="utf-8"), path
    pyproject = (folder / "pyproject.toml").read_text()
    package = placeholders("weather", kind)["package"]
    assert f'"weather" = "{package}.plugin"' in pyproject
    assert '[project.entry-points."chatcli.plugins"]' in pyproject
    assert "chatcli-kernel>=" in pyproject
    assert "[project.optional-dependencies]" in pyproject
    assert not list(tmp_path.glob(".*")), "no staging folder is left behind"


#: Per kind: how many messages it marks at least, and one translation its pt_BR catalog holds.
CATALOGS = {
    "provider": (10, 'msgstr "confira a chave de API (`chatcli keys set {name}`)"'),
    "tool": (3, 'msgstr "nenhum arquivo \'{path}\' no espaço de trabalho"'),
    "command": (5, 'msgstr "Olá, {who}, do plugin Weather!"'),
    "skills": (2, 'msgstr "reinstale chatcli-skills-weather"'),
}


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_ships_a_complete_catalog_of_its_own(kind, tmp_path):
    """Every kind shows a plugin author translations: its messages are marked, its template
    (messages.pot) matches its sources once rendered, the pt_BR catalog translates every message
    keeping its placeholders, the wheel build compiles it (hatch-babel), and the compiled
    catalogs are not committed (.gitignore)."""
    catalogs = pytest.importorskip("chatcli_catalogs")
    folder = render_plugin("weather", kind, tmp_path)
    values = placeholders("weather", kind)
    package = values["package"]
    dist = catalogs.Distribution(values["distribution"], folder, folder / "src" / package)
    assert catalogs.problems(dist, "pt_BR") == []
    least, translated = CATALOGS[kind]
    assert len(catalogs.extract(dist)) >= least
    pyproject = (folder / "pyproject.toml").read_text()
    assert '"hatch-babel>=' in pyproject
    assert f'locale_dir = "src/{package}/locale"' in pyproject
    po = (folder / f"src/{package}/locale/pt_BR/LC_MESSAGES/messages.po").read_text()
    assert translated in po
    assert "*.mo" in (folder / ".gitignore").read_text().splitlines()
    assert "## Translations" in (folder / "README.md").read_text()


def test_placeholders_follow_the_naming_rules():
    assert placeholders("my-weather", "provider") == {
        "name": "my-weather",
        "ident": "my_weather",
        "title": "My Weather",
        "distribution": "chatcli-provider-my-weather",
        "package": "chatcli_provider_my_weather",
        "env": "MY_WEATHER",
        "kernel_version": chatcli.__version__,
        "kernel_range": f">={chatcli.__version__},<{int(chatcli.__version__.split('.')[0]) + 1}",
        "kind": "provider",
    }
    assert placeholders("my-weather", "tool")["distribution"] == "chatcli-my-weather"
    assert placeholders("my-weather", "skills")["package"] == "chatcli_skills_my_weather"


@pytest.mark.parametrize(
    ("given_name", "kind", "short"),
    [
        ("chatcli-weather", "tool", "weather"),
        ("chatcli-provider-weather", "provider", "weather"),
        ("skills-weather", "skills", "weather"),
        ("provider-x", "tool", "provider-x"),
    ],
)
def test_distribution_prefixes_in_the_name_are_dropped(given_name, kind, short):
    assert validate_name(given_name, kind) == short


@pytest.mark.parametrize(
    "bad", ["", "Weather", "my_tool", "my tool", "-x", "x-", "a--b", "9lives", "wéather",
            "a" * 31, "../evil", "x/y", "chatcli-"]
)
def test_bad_names_are_refused_in_one_line(bad, tmp_path):
    with pytest.raises(UsageError) as caught:
        render_plugin(bad, "tool", tmp_path)
    message = str(caught.value)
    assert "\n" not in message
    assert "invalid plugin name" in message
    assert "lowercase letters, digits and dashes" in message
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_kind_is_refused(tmp_path):
    with pytest.raises(UsageError, match=r"unknown plugin kind 'widget'.*provider, tool"):
        render_plugin("weather", "widget", tmp_path)


@given(st.from_regex(r"[a-z][a-z0-9]{0,8}(-[a-z0-9]{1,6}){0,3}", fullmatch=True))
@settings(max_examples=60, deadline=None)
def test_every_valid_name_gives_importable_identifiers(name):
    for kind in KINDS:
        values = placeholders(name, kind)
        assert values["package"].isidentifier()
        assert values["ident"].isidentifier()
        assert values["env"].replace("_", "").isalnum()
        assert values["distribution"].endswith(values["name"])


@given(st.text(max_size=20))
@settings(max_examples=200, deadline=None)
def test_any_other_text_is_refused_or_valid(text):
    try:
        short = validate_name(text, "command")
    except UsageError as err:
        assert "\n" not in str(err)
    else:
        assert short and short == short.lower() and " " not in short and "_" not in short


def test_an_existing_non_empty_package_folder_is_not_touched(tmp_path):
    existing = tmp_path / "chatcli-weather"
    existing.mkdir()
    (existing / "mine.txt").write_text("keep me")

    with pytest.raises(UsageError) as caught:
        render_plugin("weather", "tool", tmp_path)

    assert "already exists and is not empty" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert files_under(existing) == {"mine.txt"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chatcli-weather"]


def test_dest_follows_cp_semantics(tmp_path, monkeypatch):
    # an existing folder receives a sub-folder named after the distribution
    assert render_plugin("a", "tool", tmp_path) == tmp_path / "chatcli-a"
    # a path that does not exist yet becomes the package folder (parents created)
    new = tmp_path / "deep" / "plugins" / "mine"
    assert render_plugin("b", "tool", new) == new
    assert (new / "src" / "chatcli_b" / "plugin.py").is_file()
    # no dest: the current directory
    monkeypatch.chdir(tmp_path / "deep")
    assert render_plugin("c", "skills") == tmp_path / "deep" / "chatcli-skills-c"
    # an empty package folder is filled
    (tmp_path / "chatcli-d").mkdir()
    assert render_plugin("d", "command", tmp_path) == tmp_path / "chatcli-d"
    assert (tmp_path / "chatcli-d" / "pyproject.toml").is_file()


def test_a_file_in_the_way_is_refused(tmp_path):
    (tmp_path / "blocker").write_text("")
    with pytest.raises(UsageError, match="is a file"):
        render_plugin("weather", "tool", tmp_path / "blocker" / "inside")
    with pytest.raises(UsageError, match="already exists and is a file"):
        render_plugin("weather", "tool", tmp_path / "blocker")


def test_build_leftovers_in_the_template_are_not_copied(tmp_path, monkeypatch):
    fake = tmp_path / "template"
    (fake / "tool" / "src" / "{{package}}" / "__pycache__").mkdir(parents=True)
    (fake / "tool" / "src" / "{{package}}" / "__pycache__" / "plugin.cpython-311.pyc").write_bytes(
        b"\x00\x01"
    )
    (fake / "tool" / "src" / "{{package}}" / "icon.bin").write_bytes(b"\xff\xfe{{name}}")
    (fake / "tool" / "run.sh").write_text("#!/bin/sh\necho {{name}}\n")
    (fake / "tool" / "run.sh").chmod(0o755)
    monkeypatch.setattr("chatcli_admin.scaffold.find_template", lambda: fake)

    folder = render_plugin("weather", "tool", tmp_path / "out")

    assert files_under(folder) == {"src/chatcli_weather/icon.bin", "run.sh"}
    assert (folder / "src/chatcli_weather/icon.bin").read_bytes() == b"\xff\xfe{{name}}"
    assert (folder / "run.sh").read_text() == "#!/bin/sh\necho weather\n"
    assert os.access(folder / "run.sh", os.X_OK)


@pytest.mark.parametrize("kind", KINDS)
def test_rendered_packages_pass_ruff(kind, tmp_path):
    """The template is excluded from the repository's ruff run; its output is checked here.

    The rendered package is linted on its own (chatcli is a third-party import there), with the
    repository's rules and a long name to catch lines that grow past the limit.
    """
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed in this environment")
    folder = render_plugin("abcdefghij-klmnopqrst-uvwxyz12", kind, tmp_path)
    result = subprocess.run(
        [str(ruff), "check", "--isolated", "--no-cache", "--select", "E,F,W,I,UP,B,SIM,RUF",
         "--ignore", "RUF001,RUF002,RUF003", "--line-length", "100", "--target-version", "py311",
         "--output-format", "concise", "."],
        cwd=folder, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_repository_ruff_run_skips_the_raw_template():
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed in this environment")
    result = subprocess.run(
        [str(ruff), "check", "--no-cache", "--output-format", "concise", "plugin-template"],
        cwd=REPO, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


# ------------------------------------------------------------------------------------------------
# chatcli plugins new (the CLI wiring)
# ------------------------------------------------------------------------------------------------


def run_chatcli(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATCLI_")}
    env |= {"CHATCLI_CONFIG_DIR": str(home / "config"), "CHATCLI_DATA_DIR": str(home / "data"),
            "NO_COLOR": "1"}
    return subprocess.run([str(CHATCLI), *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def cli() -> Path:
    if not CHATCLI.exists():
        pytest.skip("the chatcli console script is not installed in this environment")
    return CHATCLI


def test_plugins_new_creates_the_package_in_the_current_directory(cli, tmp_path):
    result = run_chatcli("plugins", "new", "weather", "--kind", "provider", cwd=tmp_path,
                         home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "chatcli-provider-weather"
    assert str(folder) in result.stdout
    assert files_under(folder) == EXPECTED_FILES["provider"]


def test_plugins_new_honours_dir(cli, tmp_path):
    result = run_chatcli("plugins", "new", "weather", "--kind", "skills", "--dir",
                         str(tmp_path / "out"), cwd=tmp_path, home=tmp_path / "home")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "src" / "chatcli_skills_weather" / "skills" / "weather"
            / "SKILL.md").is_file()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["Bad Name", "--kind", "tool"], "invalid plugin name 'Bad Name'"),
        (["weather", "--kind", "tool"], "already exists and is not empty"),
    ],
)
def test_plugins_new_errors_are_one_line(cli, tmp_path, args, expected):
    (tmp_path / "chatcli-weather").mkdir()
    (tmp_path / "chatcli-weather" / "keep.txt").write_text("mine")
    result = run_chatcli("plugins", "new", *args, cwd=tmp_path, home=tmp_path / "home")
    assert result.returncode == 2
    assert expected in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "chatcli-weather" / "keep.txt").read_text() == "mine"
