"""chatcli-mcp in Brazilian Portuguese: ``chatcli mcp`` under ``CHATCLI_LANG=pt_BR`` — its help,
its table, its warnings and what ``mcp test`` says of a server — while what the server itself
sends (its tools' names and descriptions) is shown as it came; English is unchanged."""

from __future__ import annotations

from pathlib import Path

from mcp_support import chatcli, demo, environment, servers_toml, write_config


def test_mcp_commands_speak_portuguese(home: Path, workspace: Path) -> None:
    pt = environment(home, CHATCLI_LANG="pt_BR")
    shown = chatcli(workspace, pt, "mcp", "--help")
    assert shown.returncode == 0, shown.stderr
    assert "Servidores MCP: listar, adicionar, remover e testar" in shown.stdout
    assert "nenhum servidor MCP configurado" in chatcli(workspace, pt, "mcp", "list").stdout

    chatcli(workspace, pt, "mcp", "add", "docs", "--url", "https://example.com/mcp",
            "--header", "Authorization: Bearer ${DOCS_TOKEN}")
    listed = chatcli(workspace, pt, "mcp", "list")
    assert listed.stderr.strip() == (
        "chatcli: aviso: mcp: mcp.servers.docs.headers.Authorization: ${DOCS_TOKEN} não está "
        "definida; defina DOCS_TOKEN no ambiente ou escreva ${DOCS_TOKEN:-default}")
    missing = chatcli(workspace, pt, "mcp", "test", "nosuch")
    assert missing.returncode == 2 and "nenhum servidor MCP chamado nosuch" in missing.stderr

    english = chatcli(workspace, environment(home), "mcp", "test", "nosuch")
    assert "no MCP server named nosuch" in english.stderr


def test_mcp_test_in_portuguese_keeps_the_server_s_words(home: Path, workspace: Path) -> None:
    write_config(home, servers_toml({"demo": demo()}))
    english = chatcli(workspace, environment(home), "mcp", "test", "demo")
    assert english.returncode == 0, english.stderr
    tested = chatcli(workspace, environment(home, CHATCLI_LANG="pt_BR"), "mcp", "test", "demo")
    assert tested.returncode == 0, tested.stderr
    assert tested.stdout.startswith("demo: conectado em ") and "ferramentas: " in tested.stdout
    # the tools' lines (names and descriptions from the server) are the same in both languages
    tools = [line for line in english.stdout.splitlines() if line.startswith("  ")]
    assert tools and tools == [line for line in tested.stdout.splitlines()
                               if line.startswith("  ")]
