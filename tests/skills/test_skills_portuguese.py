"""``chatcli skills`` in Brazilian Portuguese (CHATCLI_LANG=pt_BR) through the real command line:
its help, the problems ``validate`` finds and its summary; English stays as it was."""

from __future__ import annotations

from skills_support import FIXTURES, run_cli

PT = {"CHATCLI_LANG": "pt_BR"}
EN = {"CHATCLI_LANG": "en"}


def test_validate_speaks_portuguese(workspace):
    done = run_cli("skills", "validate", str(FIXTURES), cwd=workspace, env=PT)
    assert done.returncode == 1, done.stderr
    problems = done.stdout.replace(f"{FIXTURES}/", "").splitlines()
    assert "brand-guidelines/SKILL.md: falta 'description' (obrigatório)" in problems
    assert ("explain-code/SKILL.md: o valor de 'version' em 'metadata' precisa ser texto, não "
            "um número (1.0) (ponha entre aspas)") in problems
    assert done.stderr.strip() == "7 habilidades conferidas: 7 problemas"
    english = run_cli("skills", "validate", str(FIXTURES), cwd=workspace, env=EN)
    assert english.stderr.strip() == "7 skills checked: 7 problems"


def test_help_and_errors_speak_portuguese(workspace):
    done = run_cli("skills", "--help", cwd=workspace, env=PT)
    assert done.returncode == 0, done.stderr
    assert "Mostra os campos, os arquivos e as instruções de uma habilidade." in done.stdout
    done = run_cli("skills", "show", "no-such-skill", cwd=workspace, env=PT)
    assert done.returncode != 0
    assert "nenhuma habilidade chamada 'no-such-skill'" in done.stderr
    assert "veja `chatcli skills list`" in done.stderr
    english = run_cli("skills", "show", "no-such-skill", cwd=workspace, env=EN)
    assert "no skill named 'no-such-skill'" in english.stderr
