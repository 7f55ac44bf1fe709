"""The command line in Brazilian Portuguese (CHATCLI_LANG=pt_BR, or the locale): the root
group's help page, click's own words on it, and the errors of a one-shot run; English as it was."""

from __future__ import annotations

from pathlib import Path

from cli_support import CHATCLI, run_process


def test_the_root_help_page_is_portuguese(home: Path) -> None:
    page = run_process([CHATCLI, "--help"], home, CHATCLI_LANG="pt_BR").stdout
    assert page.startswith("Uso: chatcli [OPÇÕES] [COMANDO] [ARGS]...")
    for line in ("chatcli: um assistente de IA no seu terminal.", "Opções:", "Comandos:",
                 "Mostra esta mensagem e sai.", "Mostra a versão e sai.",
                 "Continua a sessão mais recente deste projeto.",
                 "Códigos de saída: 0 ok, 1 erro do provedor,"):
        assert line in " ".join(page.split()), line
    english = run_process([CHATCLI, "--help"], home).stdout
    assert english.startswith("Usage: chatcli [OPTIONS]") and "Opções" not in english
    assert "Continue this project's most recent session." in english


def test_a_locale_in_portuguese_is_enough(home: Path) -> None:
    page = run_process([CHATCLI, "--help"], home, CHATCLI_LANG="", LC_ALL="",
                       LC_MESSAGES="", LANG="pt_BR.UTF-8").stdout
    assert page.startswith("Uso: chatcli")


def test_one_shot_errors_are_portuguese(home: Path) -> None:
    done = run_process([CHATCLI, "-c", "--resume", "abc", "-p", "oi"], home,
                       CHATCLI_LANG="pt_BR")
    assert done.returncode == 2
    assert "-c e --resume escolhem, os dois, a sessão a continuar" in done.stderr
    assert "use só um: -c para a sessão mais recente" in done.stderr
    done = run_process([CHATCLI, "--frob"], home, CHATCLI_LANG="pt_BR")
    assert done.stderr == "chatcli: erro: A opção '--frob' não existe. (veja `chatcli --help`)\n"
    done = run_process([CHATCLI, "--frob"], home)
    assert done.stderr == "chatcli: error: No such option '--frob'. (see `chatcli --help`)\n"


def test_a_kernel_error_through_the_real_command_line(home: Path) -> None:
    done = run_process([CHATCLI, "--provider", "nope", "-p", "oi"], home, CHATCLI_LANG="pt_BR")
    assert done.returncode == 2 and "provedor desconhecido 'nope'" in done.stderr
    done = run_process([CHATCLI, "--provider", "nope", "-p", "hi"], home)
    assert "unknown provider 'nope'" in done.stderr
