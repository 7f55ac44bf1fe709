"""chatcli-fallback in Brazilian Portuguese: ``chatcli providers`` under ``CHATCLI_LANG=pt_BR``
(its help, the table's headers, its notices and errors), and English unchanged."""

from __future__ import annotations

from fallback_support import run_chatcli, write_config

PT = {"CHATCLI_LANG": "pt_BR"}


def test_providers_help_and_status_speak_portuguese(fb_home):
    shown = run_chatcli(fb_home, "providers", "--help", env=PT)
    assert shown.returncode == 0, shown.stderr
    assert "Saúde da cadeia de fallback e dos pools de provedores." in shown.stdout
    assert "Imprime a tabela como um único objeto JSON." in run_chatcli(
        fb_home, "providers", "status", "--help", env=PT).stdout
    empty = run_chatcli(fb_home, "providers", "status", env=PT)
    assert "nenhuma cadeia de fallback ou pool configurado" in empty.stdout
    english = run_chatcli(fb_home, "providers", "status")
    assert "no fallback chain or pool is configured" in english.stdout


def test_a_bad_fallback_table_is_reported_in_portuguese(fb_home):
    write_config(fb_home, 'provider = "fallback"\n\n[fallback]\nchain = []\n')
    failed = run_chatcli(fb_home, "providers", "status", env=PT)
    assert failed.returncode != 0
    assert "[fallback] chain precisa ser uma lista não vazia de entradas provider/model" in (
        failed.stderr)
    english = run_chatcli(fb_home, "providers", "status")
    assert "[fallback] chain must be a non-empty list of provider/model entries" in english.stderr


def test_reset_counts_entries_in_portuguese(fb_home):
    done = run_chatcli(fb_home, "providers", "reset", env=PT)
    assert done.returncode == 0, done.stderr
    assert "a saúde de 0 entrada foi esquecida" in done.stdout
    assert "forgot the health of 0 entries" in run_chatcli(fb_home, "providers", "reset").stdout
