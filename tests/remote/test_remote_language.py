"""chatcli-remote in Brazilian Portuguese (CHATCLI_LANG=pt_BR): ``chatcli serve``'s help, its
tokens' command, its start-up line and its error bodies (in the server's language: its keys and
types stay the protocol's), the ``--remote`` client's errors (in the client's language), and
the ACP agent's words — with the English runs unchanged."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from chatcli_remote.acp.live import _said_mode
from process_support import CHATCLI, process_env
from remote_support import ServeProcess, create_token, serve_env


def _flat(text: str) -> str:
    """``text`` with its lines joined (help is wrapped to the terminal's width)."""
    return " ".join(text.split())


def _chatcli(env: dict[str, str], *args: str, cwd: Path | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(CHATCLI), *args], env=env, capture_output=True, text=True,
                          timeout=60, cwd=cwd, stdin=subprocess.DEVNULL)


def test_the_commands_help_in_portuguese(home: Path) -> None:
    env = process_env(home, CHATCLI_LANG="pt_BR")
    listed = _chatcli(env, "--help")
    assert listed.returncode == 0, listed.stderr
    assert "Serve o chatcli por HTTP: uma API com transmissões SSE" in _flat(listed.stdout)
    assert "Executa como agente do Agent Client Protocol" in _flat(listed.stdout)
    assert "Conversa com um servidor chatcli (chatcli serve)" in _flat(listed.stdout)
    serve = _chatcli(env, "serve", "--help")
    assert "Endereço em que escutar" in _flat(serve.stdout)
    create = _chatcli(env, "serve", "token", "create", "--help")
    assert "Cria um token; o segredo dele é impresso uma vez" in _flat(create.stdout)
    english = _chatcli(process_env(home), "serve", "--help")
    assert ("Address to listen on; anything but loopback needs --cert/--key."
            in _flat(english.stdout))


def test_tokens_and_their_errors_in_portuguese(home: Path, root: Path, wire) -> None:
    env = serve_env(home, wire, CHATCLI_LANG="pt_BR")
    _secret, made = create_token(env, "laptop", root)
    assert "esta é a única vez que ele aparece — guarde-o agora" in made.stderr
    listed = _chatcli(env, "serve", "token", "list")
    assert listed.stdout.split()[:6] == ["ID", "NOME", "ESTADO", "CRIADO", "EXPIRA", "RAIZ"]
    assert "ativo" in listed.stdout and "nunca" in listed.stdout
    again = _chatcli(env, "serve", "token", "create", "--name", "laptop", "--root", str(root))
    assert again.returncode == 2
    assert "já existe um token chamado 'laptop'" in again.stderr
    assert "chatcli serve token revoke laptop" in again.stderr
    english = _chatcli(serve_env(home, wire), "serve", "token", "revoke", "nobody")
    assert "no active token 'nobody'" in english.stderr


@pytest.mark.slow
def test_a_portuguese_server_says_its_lines_in_portuguese(home: Path, root: Path,
                                                          token: str, wire) -> None:
    server = ServeProcess(home, serve_env(home, wire, CHATCLI_LANG="pt_BR"), root).start()
    try:
        assert f"chatcli serve: escutando em http://127.0.0.1:{server.port}" in \
            server.log("stdout")
        with server.client() as client:
            refused = client.get("/api/sessions")
        assert refused.status_code == 401
        error = refused.json()["error"]  # the keys and the type are the protocol's
        assert error["type"] == "Unauthorized"
        assert error["message"].startswith("nenhum token na requisição — crie um com "
                                           "`chatcli serve token create")
        with server.client(token) as client:
            missing = client.get("/api/sessions/s_nosuchsession")
            bad = client.post("/api/sessions/s_nosuchsession/messages", content=b"[1]",
                              headers={"Content-Type": "application/json"})
        assert missing.json()["error"] == {
            "type": "NotFound",
            "message": "não há essa sessão sob a raiz deste token — liste-as com "
                       "GET /api/sessions"}
        assert bad.json()["error"]["message"] == "o corpo deve ser um objeto JSON"
    finally:
        assert server.stop() == 0, server.log()


@pytest.mark.slow
def test_the_remote_client_speaks_its_own_language(home: Path, server, token: str) -> None:
    folder = home / "client"
    folder.mkdir(exist_ok=True)

    def remote(language: str, url: str, *args: str) -> subprocess.CompletedProcess[str]:
        env = process_env(folder, CHATCLI_REMOTE_TOKEN=token, HOME=str(folder),
                          CHATCLI_LANG=language)
        return _chatcli(env, "--remote", url, *args, cwd=folder)

    unknown = remote("pt_BR", server.url, "--resume", "s_nosuchsession", "-p", "oi")
    assert unknown.returncode == 2
    assert f"o servidor chatcli em {server.url} não tem a sessão s_nosuchsession" in \
        unknown.stderr, unknown.stderr
    dead = remote("pt_BR", "http://127.0.0.1:9", "-p", "oi")
    assert "não foi possível alcançar o servidor chatcli em http://127.0.0.1:9" in dead.stderr
    assert "o `chatcli serve` está rodando lá?" in dead.stderr
    plain = remote("pt_BR", "http://chat.example.com", "-p", "oi")
    assert plain.returncode == 2
    assert "http simples enviaria o token sem criptografia para outra máquina" in plain.stderr
    english = remote("en", "http://127.0.0.1:9", "-p", "hi")
    assert "cannot reach the chatcli server at http://127.0.0.1:9" in english.stderr


def test_the_acp_mode_is_read_in_any_language() -> None:
    assert _said_mode("permission mode: plan (read only; from the config)\ndeny:\n") == "plan"
    assert _said_mode("modo de permissão: accept-edits (edições rodam)\n") == "accept-edits"
    assert _said_mode("unknown mode 'x'; permissions: /permissions (mode and rules)") != "x"
    assert _said_mode("") == ""


def test_hub_errors_in_portuguese(chatcli_language) -> None:
    from chatcli_remote.hub import TurnBusy

    chatcli_language("pt_BR")
    busy = TurnBusy()
    assert busy.message == "um turno já está em andamento nesta sessão"
    assert busy.hint == "acompanhe-o (GET …/events) ou cancele-o (POST …/cancel)"


@pytest.mark.slow
def test_the_web_pages_words_without_a_token(home: Path, root: Path, token: str, wire) -> None:
    from chatcli_remote.web_words import web_words

    english = web_words()
    assert english["Connect"] == "Connect" and all(k == v for k, v in english.items())
    server = ServeProcess(home, serve_env(home, wire, CHATCLI_LANG="pt_BR"), root).start()
    try:
        with server.client() as client:  # no token: fixed words of the page, no data
            words = client.get("/words.json")
    finally:
        assert server.stop() == 0, server.log()
    assert words.status_code == 200, words.text
    assert words.headers["content-type"].startswith("application/json")
    assert "default-src 'self'" in words.headers["content-security-policy"]
    data = words.json()
    assert set(data) == set(english)
    assert data["Connect"] == "Conectar"
    assert words.headers["content-language"] == "pt-BR"  # the page's <html lang>, its plurals
    assert (data["{count} message"], data["{count} messages"]) == (
        "{count} mensagem", "{count} mensagens")
    assert data["allow {tool}?"] == "permitir {tool}?"
    assert data["Message, or /command — Enter sends, Shift+Enter is a new line"] == (
        "Mensagem ou /comando — Enter envia, Shift+Enter quebra a linha")
