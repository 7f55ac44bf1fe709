"""Every SDK client of a process shares one TLS context (chatcli_provider_kit.shared_tls_context):
loading the CA bundle per provider cost ``chatcli serve`` ~40 ms of CPU and most of an idle
session's memory. The certificates trusted still follow ``SSL_CERT_FILE``."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import pytest
from chatcli import ProviderConfig
from chatcli_provider_anthropic.provider import AnthropicProvider
from chatcli_provider_kit import shared_tls_context
from chatcli_provider_openai.presets import PRESETS
from chatcli_provider_openai.provider import OpenAIProvider


def _context(client: Any) -> ssl.SSLContext:
    """The TLS context the SDK client's HTTP transport will connect with."""
    pool = client._client._transport._pool
    return pool._ssl_context  # type: ignore[no-any-return]


def _openai() -> OpenAIProvider:
    config = ProviderConfig(name="openai", model="gpt-test", api_key="sk-test-000000",
                            base_url="https://api.example.invalid/v1", timeout=5.0)
    return OpenAIProvider(config, preset=next(p for p in PRESETS if p.name == "openai"))


def _anthropic() -> AnthropicProvider:
    return AnthropicProvider(ProviderConfig(
        name="anthropic", model="claude-test", api_key="sk-ant-test-000000",
        base_url="https://api.example.invalid", timeout=5.0))


def _self_signed_pem(folder: Path) -> tuple[Path, str]:
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "chatcli test CA")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    path = folder / "ca.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path, "chatcli test CA"


def _subjects(context: ssl.SSLContext) -> set[str]:
    return {value for cert in context.get_ca_certs() for rdn in cert["subject"]
            for key, value in rdn if key == "commonName"}


def test_providers_of_one_process_share_one_tls_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first, second = _openai(), _openai()
    assert _context(first.client) is _context(second.client)
    claude, claude_again = _anthropic(), _anthropic()
    assert _context(claude.client) is _context(claude_again.client)
    assert _context(first.client).verify_mode == ssl.CERT_REQUIRED  # still verifying
    assert _context(first.client).check_hostname


def test_ssl_cert_file_still_decides_what_is_trusted(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    default = _context(_openai().client)
    ca, subject = _self_signed_pem(tmp_path)
    assert subject not in _subjects(default)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca))
    custom = _context(_openai().client)
    assert custom is not default
    assert subject in _subjects(custom)
    assert _context(_anthropic().client) is not default
    assert subject in _subjects(_context(_anthropic().client))


def test_one_context_per_maker_and_environment(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[ssl.SSLContext] = []

    def make() -> ssl.SSLContext:
        made.append(ssl.create_default_context())
        return made[-1]

    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    assert shared_tls_context(make) is shared_tls_context(make)
    assert len(made) == 1
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "other.pem"))
    assert shared_tls_context(make) is made[-1] and len(made) == 2
