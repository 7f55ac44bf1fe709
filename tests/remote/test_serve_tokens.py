"""The server's token file and limits in-process (fast): hashing, reloading when another
process changes the file, expiry, durations, and the rate limiter's bucket."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from chatcli import UsageError
from chatcli_remote.serve.limits import RateLimiter
from chatcli_remote.serve.tokens import PREFIX, TokenStore, parse_duration


def test_a_created_token_is_found_by_its_secret_only(home: Path, tmp_path: Path) -> None:
    store = TokenStore()
    record, secret = store.create("laptop", tmp_path)
    assert secret.startswith(PREFIX)
    assert store.lookup(secret) == record
    assert store.lookup(secret + "x") is None
    assert store.lookup(secret[:-1]) is None
    assert store.lookup(record.sha256) is None  # the stored hash is no secret
    text = store.path.read_text()
    assert secret not in text and stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_a_change_by_another_process_applies_to_the_next_lookup(home: Path,
                                                                tmp_path: Path) -> None:
    server = TokenStore()
    record, secret = TokenStore().create("phone", tmp_path)
    assert server.lookup(secret) == record
    TokenStore().revoke("phone")  # another process, as far as `server` knows
    assert server.lookup(secret) is None
    _, second = TokenStore().create("phone", tmp_path)
    assert server.lookup(second) is not None and server.lookup(secret) is None


def test_an_expired_token_is_refused(home: Path, tmp_path: Path) -> None:
    store = TokenStore()
    record, secret = store.create("short", tmp_path, expires_in=3600)
    data = json.loads(store.path.read_text())
    data["tokens"][0]["expires"] = record.created - 1
    store.path.write_text(json.dumps(data))
    os.utime(store.path, ns=(1, 1))  # whatever the clock's resolution: the file changed
    assert store.lookup(secret) is None
    assert store.records()[0].state() == "expired"


def test_a_damaged_entry_grants_nothing(home: Path, tmp_path: Path) -> None:
    store = TokenStore()
    _, secret = store.create("ok", tmp_path)
    data = json.loads(store.path.read_text())
    data["tokens"].append({"id": "tok_bad", "sha256": "00"})
    store.path.write_text(json.dumps(data))
    assert [r.name for r in store.records()] == ["ok"] and store.lookup(secret) is not None


@pytest.mark.parametrize(("text", "seconds"), [("30d", 30 * 86400), ("12h", 43200),
                                                ("90m", 5400), ("2w", 14 * 86400), ("45s", 45)])
def test_durations(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "30", "d", "0d", "-1d", "1y", "1.5h"])
def test_bad_durations_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError, match="30d"):
        parse_duration(text)


def test_the_bucket_allows_its_burst_then_says_how_long_to_wait() -> None:
    limiter = RateLimiter(per_minute=60, burst=3)
    assert [limiter.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    wait = limiter.take("a")
    assert 0 < wait <= 1.0
    assert limiter.take("b") == 0.0  # each token has its own bucket
