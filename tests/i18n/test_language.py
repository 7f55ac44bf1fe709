"""The language chatcli speaks and asks the model to answer in: CHATCLI_LANG, then the locale
(LC_ALL, LC_MESSAGES, LANG), then the ``language`` setting, English when no catalog has it;
each distribution's own catalog, plural forms, a damaged catalog read as English; and the
prompt section naming the user's language, in full and lean requests, unless settings say
otherwise."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from chatcli import answer_instruction, forget_language, language, translation
from chatcli_testing import Reply
from hypothesis import given
from hypothesis import strategies as st
from process_support import CHATCLI, run_process

_LOCALE_VARIABLES = ("CHATCLI_LANG", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def environment(home: Path, monkeypatch: pytest.MonkeyPatch):
    """A clean slate: no language variable, the language resolved again on first use."""
    for name in _LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    forget_language()
    yield monkeypatch
    forget_language()


@pytest.mark.parametrize(("variables", "expected"), [
    ({"CHATCLI_LANG": "pt_BR", "LC_ALL": "de_DE.UTF-8", "LANG": "fr_FR.UTF-8"}, "pt_BR"),
    ({"LC_ALL": "pt_BR.UTF-8", "LC_MESSAGES": "de_DE", "LANG": "fr_FR"}, "pt_BR"),
    ({"LC_MESSAGES": "pt_BR.utf8", "LANG": "fr_FR"}, "pt_BR"),
    ({"LANG": "pt_BR.UTF-8"}, "pt_BR"),
    ({"LANG": "pt-br"}, "pt_BR"),
    ({"CHATCLI_LANG": "", "LANG": "de_DE.UTF-8@euro"}, "de_DE"),
    ({"LC_ALL": "C.UTF-8", "LANG": "pt_BR.UTF-8"}, "pt_BR"),  # C names no language
    ({"LANG": "POSIX"}, "en"),
    ({}, "en"),
])
def test_the_first_variable_naming_a_language_decides(environment, variables, expected):
    for name, value in variables.items():
        environment.setenv(name, value)
    assert language() == expected


def test_the_setting_decides_when_no_variable_names_a_language(environment, home):
    (home / "config" / "config.toml").write_text('language = "pt_BR"\n')
    environment.setenv("LANG", "C.UTF-8")
    assert language() == "pt_BR"
    forget_language()
    environment.setenv("LANG", "en_US.UTF-8")
    assert language() == "en_US"


def test_a_broken_settings_file_leaves_english(environment, home):
    (home / "config" / "config.toml").write_text("language = [unclosed\n")
    assert language() == "en"


@given(st.text(max_size=40))
def test_any_variable_value_gives_a_language_code_or_english(value):
    with pytest.MonkeyPatch.context() as patch:
        for name in _LOCALE_VARIABLES:
            patch.delenv(name, raising=False)
        patch.setenv("CHATCLI_CONFIG_DIR", "/nonexistent-chatcli-config")
        if "\0" not in value:
            patch.setenv("CHATCLI_LANG", value)
        forget_language()
        code = language()
        forget_language()
    assert code == "en" or code.replace("_", "").isalnum()


def _package(root: Path, name: str, translations: dict[object, object],
             data: bytes | None = None) -> None:
    """A package ``name`` under ``root`` with a pt_BR catalog of ``translations``."""
    folder = root / name / "locale" / "pt_BR" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (root / name / "__init__.py").write_text("")
    catalog = Catalog(locale="pt_BR")
    catalog.mime_headers = [("Plural-Forms", "nplurals=2; plural=(n > 1);")]
    for message, string in translations.items():
        catalog.add(message, string)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    (folder / "messages.mo").write_bytes(buffer.getvalue() if data is None else data)


@pytest.fixture
def packages(tmp_path: Path, environment):
    environment.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("i18n_demo")]:
        del sys.modules[name]


def test_each_distribution_reads_its_own_catalog(packages, environment):
    _package(packages, "i18n_demo_one", {"session": "sessão"})
    _package(packages, "i18n_demo_two", {"session": "sessão (dois)"})
    import i18n_demo_one  # noqa: F401
    import i18n_demo_two  # noqa: F401

    environment.setenv("CHATCLI_LANG", "pt_BR")
    one, _ = translation("i18n_demo_one.module")
    two, _ = translation("i18n_demo_two")
    assert (one("session"), two("session"), one("not in the catalog")) == (
        "sessão", "sessão (dois)", "not in the catalog")


def test_english_and_languages_without_a_catalog_keep_the_message(packages, environment):
    _package(packages, "i18n_demo_en", {"session": "sessão"})
    import i18n_demo_en  # noqa: F401

    for code in ("en", "en_GB", "de_DE", "ja"):
        environment.setenv("CHATCLI_LANG", code)
        forget_language()
        gettext, ngettext = translation("i18n_demo_en")
        assert (gettext("session"), ngettext("a file", "files", 2)) == ("session", "files")


def test_portuguese_plurals_count_zero_and_one_as_singular(packages, environment):
    _package(packages, "i18n_demo_plural", {
        ("{n} file changed", "{n} files changed"): ("{n} arquivo alterado",
                                                    "{n} arquivos alterados")})
    import i18n_demo_plural  # noqa: F401

    environment.setenv("CHATCLI_LANG", "pt_BR")
    _, ngettext = translation("i18n_demo_plural")
    forms = [ngettext("{n} file changed", "{n} files changed", n).format(n=n) for n in (0, 1, 2)]
    assert forms == ["0 arquivo alterado", "1 arquivo alterado", "2 arquivos alterados"]


def test_portuguese_of_portugal_falls_back_to_brazilian(packages, environment):
    _package(packages, "i18n_demo_pt", {"session": "sessão"})
    import i18n_demo_pt  # noqa: F401

    environment.setenv("LANG", "pt_PT.UTF-8")
    gettext, _ = translation("i18n_demo_pt")
    assert gettext("session") == "sessão"


def test_a_damaged_catalog_is_read_as_english(packages, environment):
    _package(packages, "i18n_demo_broken", {}, data=b"\xde\x12\x04\x95 not a catalog")
    import i18n_demo_broken  # noqa: F401

    environment.setenv("CHATCLI_LANG", "pt_BR")
    gettext, ngettext = translation("i18n_demo_broken")
    assert (gettext("session"), ngettext("one", "many", 3)) == ("session", "many")


@pytest.mark.parametrize(("code", "setting", "name"), [
    ("pt_BR", "auto", "Brazilian Portuguese"),
    ("de_DE", "auto", "German"),
    ("en_US", "pt_BR", "Brazilian Portuguese"),
    ("en_US", "auto", None),
    ("pt_BR", "off", None),
    ("pt_BR", "en", None),
    ("xx_YY", "auto", None),
])
def test_the_answer_language_sentence(environment, code, setting, name):
    environment.setenv("CHATCLI_LANG", code)
    sentence = answer_instruction(setting)
    if name is None:
        assert sentence is None
    else:
        assert sentence is not None and f"answer in {name}" in sentence


def _system_prompt(server) -> str:
    messages = server.requests[-1].json["messages"]
    return "\n".join(m["content"] for m in messages if m["role"] in ("system", "developer"))


@pytest.mark.parametrize("tools", ['"auto"', "false"])
def test_the_model_is_asked_to_answer_in_the_users_language(home, openai_server, tools):
    (home / "config" / "config.toml").write_text(f"[providers.openai]\ntools = {tools}\n")
    openai_server.script(Reply(text="olá"), Reply(text="hello"), Reply(text="hi"))
    key = {"OPENAI_API_KEY": "sk-test-key-123456", "OPENAI_BASE_URL": openai_server.url}
    run = [CHATCLI, "-p", "oi", "--provider", "openai"]
    done = run_process(run, home, CHATCLI_LANG="", LANG="pt_BR.UTF-8", **key)
    assert done.returncode == 0, done.stderr
    assert "answer in Brazilian Portuguese" in _system_prompt(openai_server)
    done = run_process(run, home, **key)  # English: nothing said
    assert done.returncode == 0, done.stderr
    assert "answer in" not in _system_prompt(openai_server)
    done = run_process(run, home, CHATCLI_LANG="pt_BR", CHATCLI_ANSWER_LANGUAGE="off", **key)
    assert done.returncode == 0, done.stderr
    assert "answer in" not in _system_prompt(openai_server)


def test_a_project_cannot_choose_the_users_language(home, openai_server, tmp_path):
    work = home / "work"
    (work / ".chatcli").mkdir(parents=True)
    (work / ".git").mkdir()
    (work / ".chatcli" / "config.toml").write_text('language = "pt_BR"\n')
    done = run_process([CHATCLI, "config", "get", "language"], home, CHATCLI_LANG="",
                       LANG="C.UTF-8")
    assert "pt_BR" not in done.stdout
