"""chatcli-memory in Brazilian Portuguese: ``chatcli memory`` and ``/memory`` under
``CHATCLI_LANG=pt_BR`` print their own text in Portuguese; what was remembered (the user's
data) is shown as it was written; English is unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory_support import cli


def test_memory_commands_speak_portuguese(home: Path, workspace: Path,
                                          openai_server: Any) -> None:
    def run(*args: str, lang: str = "pt_BR") -> Any:
        return cli(home, workspace, None, "memory", *args, model_flags=False,
                   CHATCLI_LANG=lang)

    shown = run("--help")
    assert shown.returncode == 0, shown.stderr
    assert "Memória de longo prazo: listar, buscar, adicionar, esquecer, editar" in shown.stdout
    assert "Guarda TEXT na memória" in run("add", "--help").stdout

    done = run("add", "we use postgres 16")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("guardado como ") and "(este projeto)" in done.stdout
    listed = run("list").stdout
    assert "we use postgres 16" in listed and "força" in listed  # the item itself: as written
    assert run("search", "mysql").stdout == "nada na memória corresponde a 'mysql'\n"
    status = run("status").stdout
    assert "itens: 1 fact" in status and "; 0 arquivado" in status
    missing = run("forget", "nosuch")
    assert missing.returncode == 1
    assert missing.stderr.startswith("Erro: nenhum item da memória corresponde a 'nosuch'")
    refused = run("add", "the key is sk-proj-abcdefghijklmnopqrstuvwxyz0123456789")
    assert "a memória nunca guarda segredos" in refused.stderr

    english = run("search", "mysql", lang="en")
    assert english.stdout == "nothing in memory matches 'mysql'\n"

    openai_server.script("olá")  # /memory in a one-shot run
    slash = cli(home, workspace, openai_server, "-p", "/memory search mysql",
                CHATCLI_LANG="pt_BR")
    assert slash.returncode == 0, slash.stderr
    assert "nada na memória corresponde a 'mysql'" in slash.stdout
