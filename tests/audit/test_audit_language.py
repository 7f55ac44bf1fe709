"""``chatcli audit`` in Brazilian Portuguese (CHATCLI_LANG=pt_BR): its help, its table's
headers, the warning about lines that are not records and a wrong time — and the same run in
English as before. The records themselves are data: the same in both languages."""

from __future__ import annotations

import json
from pathlib import Path

from audit_support import chatcli, environment, log_file

RECORDS = [
    {"time": "2026-12-07T11:00:00.000Z", "kind": "tool_call", "session": "s_bbb", "call": "c2",
     "tool": "edit", "risk": "write", "decision": "deny", "verdict": "deny",
     "decided_by": "rule", "rule": "edit(secrets/**)"},
    {"time": "2026-12-07T12:00:00.000Z", "kind": "model_call", "session": "s_bbb",
     "provider": "openai", "model": "gpt-4o", "purpose": "chat", "input_tokens": 10,
     "output_tokens": 2},
]


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    file = log_file(home)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("".join(json.dumps(r) + "\n" for r in RECORDS) + "not json\n")
    return home


def test_audit_speaks_portuguese(tmp_path: Path) -> None:
    home = _home(tmp_path)
    env = environment(home, "http://127.0.0.1:9", COLUMNS="200", CHATCLI_LANG="pt_BR")
    helped = chatcli(tmp_path, env, "audit", "--help")
    assert helped.returncode == 0, helped.stderr
    assert "O registro de auditoria: chamadas de ferramenta e quem as decidiu" in helped.stdout
    assert "Os registros como um array JSON." in helped.stdout
    table = chatcli(tmp_path, env, "audit")
    assert table.returncode == 0, table.stderr
    assert "hora (UTC)" in table.stdout and "decisão" in table.stdout
    assert "10 de entrada, 2 de saída" in table.stdout
    assert "edit(secrets/**)" in table.stdout and "deny (rule)" in table.stdout  # data
    assert ("chatcli: aviso: 1 linha do registro de auditoria não é um registro válido e foi "
            "ignorada") in table.stderr
    wrong = chatcli(tmp_path, env, "audit", "--since", "yesterday-ish")
    assert wrong.returncode == 2
    assert "--since: não é um horário: 'yesterday-ish'" in wrong.stderr, wrong.stderr
    assert "informe um horário ISO" in wrong.stderr
    assert "'3 dias atrás', 'há 2 horas', agora" in wrong.stderr  # forms it takes in Portuguese
    ago = chatcli(tmp_path, env, "audit", "--json", "--since", "há 99999 dias",
                  "--until", "2026-12-07T11:30")
    assert ago.returncode == 0, ago.stderr
    assert json.loads(ago.stdout) == RECORDS[:1]
    as_json = chatcli(tmp_path, env, "audit", "--json")
    assert json.loads(as_json.stdout) == RECORDS  # the records keep their English keys


def test_audit_in_english_is_unchanged(tmp_path: Path) -> None:
    home = _home(tmp_path)
    env = environment(home, "http://127.0.0.1:9", COLUMNS="200", CHATCLI_LANG="en")
    table = chatcli(tmp_path, env, "audit")
    assert "time (UTC)" in table.stdout and "10 in, 2 out" in table.stdout
    assert "chatcli: warning: 1 line(s) of the audit log are not records" in table.stderr
    wrong = chatcli(tmp_path, env, "audit", "--since", "yesterday-ish")
    assert "--since: not a time: 'yesterday-ish'" in wrong.stderr, wrong.stderr
