"""chatcli-admin in Brazilian Portuguese: the real CLI's help, errors and output under
CHATCLI_LANG=pt_BR (English unchanged), and `chatcli config set language`, which says so when a
variable decides the language instead of the setting."""

from __future__ import annotations

from process_support import CHATCLI, run_process

#: No variable names a language: the setting decides.
NO_LOCALE = {"CHATCLI_LANG": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}


def test_keys_help_and_error_in_portuguese(tmp_path):
    shown = run_process([CHATCLI, "keys", "--help"], tmp_path, CHATCLI_LANG="pt_BR")
    assert shown.returncode == 0, shown.stderr
    assert "Guarda chaves de API (num arquivo 0600 na pasta de configuração)." in shown.stdout
    assert "Esquece a chave guardada do provedor NAME." in shown.stdout

    failed = run_process([CHATCLI, "keys", "remove", "nada"], tmp_path, CHATCLI_LANG="pt_BR")
    assert failed.returncode == 2
    assert "nenhuma chave guardada para 'nada'" in failed.stderr
    assert "veja `chatcli keys list`" in failed.stderr

    english = run_process([CHATCLI, "keys", "remove", "nada"], tmp_path)
    assert "no stored key for 'nada'" in english.stderr
    assert "see `chatcli keys list`" in english.stderr


def test_root_help_lists_the_admin_commands_in_portuguese(tmp_path):
    shown = run_process([CHATCLI, "--help"], tmp_path, CHATCLI_LANG="pt_BR")
    assert "Lista, instala, remove e cria plugins do chatcli." in shown.stdout
    assert "Deixa os arquivos de um projeto mudarem o chatcli." in shown.stdout
    english = run_process([CHATCLI, "--help"], tmp_path)
    assert "List, install, remove and create chatcli plugins." in english.stdout


def test_config_set_language_names_the_variable_that_decides(tmp_path):
    env = {**NO_LOCALE, "LANG": "en_US.UTF-8"}
    done = run_process([CHATCLI, "config", "set", "language", "pt_BR"], tmp_path, **env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("language = pt_BR  (")
    assert lines[1] == ("note: LANG=en_US.UTF-8 decides chatcli's language; unset it or set "
                        "CHATCLI_LANG=pt_BR")
    # LANG still decides: English
    listed = run_process([CHATCLI, "trust", "--list"], tmp_path, **env)
    assert listed.stdout.startswith("no trusted projects")


def test_config_set_language_takes_effect_when_no_variable_decides(tmp_path):
    done = run_process([CHATCLI, "config", "set", "language", "pt_BR"], tmp_path, **NO_LOCALE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"language = pt_BR  ({tmp_path / 'config' / 'config.toml'})"]
    listed = run_process([CHATCLI, "trust", "--list"], tmp_path, **NO_LOCALE)
    assert listed.stdout.startswith("nenhum projeto confiável")
    # a C locale names no language: the setting still decides
    c_locale = run_process([CHATCLI, "trust", "--list"], tmp_path, **{**NO_LOCALE, "LC_ALL": "C"})
    assert c_locale.stdout.startswith("nenhum projeto confiável")


def test_config_set_language_note_in_portuguese(tmp_path):
    done = run_process([CHATCLI, "config", "set", "language", "en"], tmp_path,
                       **{**NO_LOCALE, "CHATCLI_LANG": "pt_BR"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == ("nota: CHATCLI_LANG=pt_BR decide o idioma do chatcli; "
                                           "remova essa variável para usar a configuração")
    same = run_process([CHATCLI, "config", "set", "language", "pt_BR"], tmp_path,
                       **{**NO_LOCALE, "LANG": "pt_BR.UTF-8"})
    assert len(same.stdout.splitlines()) == 1  # the variable agrees: nothing to say


def test_trust_list_and_plugins_new_error_in_portuguese(tmp_path):
    listed = run_process([CHATCLI, "trust", "--list"], tmp_path, CHATCLI_LANG="pt_BR")
    assert listed.stdout.strip() == ("nenhum projeto confiável; confie em um com `chatcli trust` "
                                     "na pasta dele")
    bad = run_process([CHATCLI, "plugins", "new", "Bad Name", "--kind", "tool"], tmp_path,
                      CHATCLI_LANG="pt_BR")
    assert bad.returncode == 2
    assert "nome de plugin inválido 'Bad Name'" in bad.stderr


def test_config_set_language_in_a_project_says_it_has_no_effect(tmp_path):
    (tmp_path / ".chatcli").mkdir()
    done = run_process([CHATCLI, "config", "set", "language", "pt_BR", "--project"], tmp_path,
                       **NO_LOCALE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1] == (
        "note: chatcli reads its language from the user settings only; run `chatcli config set "
        "language pt_BR` without --project")
