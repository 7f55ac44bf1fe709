"""What the chatcli-remote tests share: a real ``chatcli serve`` process (``ServeProcess``),
tokens made through the real command line, httpx clients that record every body they read (to
check no secret ever leaves the server) and a reader of SSE streams.

(Imported by its bare name: pytest puts this folder on ``sys.path``.)
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from process_support import CHATCLI, openai_env, process_env

__all__ = ["FAKE_KEY", "Frame", "RecordingTransport", "ServeProcess", "create_token", "frames",
           "serve_env", "until"]

#: The provider key the served chatcli gets: it must never appear in a response.
FAKE_KEY = "sk-test-serve-7f3a9c1e5b"


def serve_env(home: Path, wire: Any, **extra: str) -> dict[str, str]:
    """The environment of a ``chatcli serve`` (or ``chatcli serve token …``) process: the
    test's chatcli folders, the wire server as OpenAI with :data:`FAKE_KEY`."""
    return process_env(home, **openai_env(wire, FAKE_KEY), CHATCLI_CACHE_DIR=str(home / "cache"),
                       CHATCLI_PROVIDER="openai", CHATCLI_MODEL="gpt-test", **extra)


def create_token(env: dict[str, str], name: str, root: Path, *extra: str
                 ) -> tuple[str, subprocess.CompletedProcess[str]]:
    """``chatcli serve token create --name NAME --root ROOT``: (the secret, the run)."""
    done = subprocess.run([str(CHATCLI), "serve", "token", "create", "--name", name,
                           "--root", str(root), *extra], env=env, capture_output=True,
                          text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip(), done


@dataclass
class Frame:
    """One SSE event: its id, kind and JSON data."""

    id: str | None
    event: str
    data: dict[str, Any]


def frames(lines: Iterable[str]) -> Iterator[Frame]:
    """The events of an SSE stream's lines (comments and pings skipped)."""
    ident: str | None = None
    kind = "message"
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield Frame(ident, kind, json.loads("\n".join(data)))
            ident, kind, data = None, "message", []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "id":
                ident = value
            elif name == "event":
                kind = value
            elif name == "data":
                data.append(value)


def until(stream: Iterable[Frame], kind: str = "done") -> list[Frame]:
    """The frames up to and including the first of ``kind``."""
    seen: list[Frame] = []
    for frame in stream:
        seen.append(frame)
        if frame.event == kind:
            return seen
    raise AssertionError(f"the stream ended before '{kind}': {[f.event for f in seen]}")


class _Tee(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, sink: list[bytes]) -> None:
        self.inner = inner
        self.sink = sink

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.inner:
            self.sink.append(chunk)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class RecordingTransport(httpx.HTTPTransport):
    """httpx's transport, keeping every response body's bytes (and headers) in ``sink``."""

    def __init__(self, sink: list[bytes], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sink = sink

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        self.sink.append(str(response.headers).encode())
        assert isinstance(response.stream, httpx.SyncByteStream)
        response.stream = _Tee(response.stream, self.sink)
        return response


@dataclass
class ServeProcess:
    """A real ``chatcli serve --port 0 --port-file F`` in ``cwd`` with ``env``."""

    home: Path
    env: dict[str, str]
    cwd: Path
    args: tuple[str, ...] = ()
    scheme: str = "http"
    port: int = 0
    bodies: list[bytes] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def port_file(self) -> Path:
        return self.home / "serve.port"

    @property
    def url(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def log(self, name: str = "stderr") -> str:
        """What the process wrote on ``stdout`` or ``stderr`` (of its latest start)."""
        path = self.home / f"serve-{self.starts}.{name}"
        return path.read_text(errors="replace") if path.exists() else ""

    def start(self, timeout: float = 60) -> ServeProcess:
        """Start it and wait for its port file."""
        self.port_file.unlink(missing_ok=True)
        self.starts += 1
        out = (self.home / f"serve-{self.starts}.stdout").open("wb")
        err = (self.home / f"serve-{self.starts}.stderr").open("wb")
        self.process = subprocess.Popen(
            [str(CHATCLI), "serve", "--port", "0", "--port-file", str(self.port_file),
             *self.args], env=self.env, cwd=self.cwd, stdout=out, stderr=err,
            stdin=subprocess.DEVNULL)
        out.close()
        err.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.port_file.exists() and self.port_file.read_text().strip():
                self.port = int(self.port_file.read_text())
                return self
            if self.process.poll() is not None:
                raise AssertionError(f"chatcli serve ended ({self.process.returncode}): "
                                     f"{self.log()}")
            time.sleep(0.05)
        raise AssertionError(f"chatcli serve did not start: {self.log()}")

    def client(self, token: str | None = None, **kwargs: Any) -> httpx.Client:
        """An httpx client of the server (``token`` as the bearer), recording bodies."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        verify = kwargs.pop("verify", True)
        return httpx.Client(base_url=self.url, headers=headers, timeout=60,
                            transport=RecordingTransport(self.bodies, verify=verify), **kwargs)

    def stop(self) -> int | None:
        """SIGTERM, then wait (SIGKILL after 20 s); the exit code."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
            raise AssertionError("chatcli serve did not stop on SIGTERM") from None

    def kill(self) -> None:
        """``kill -9``."""
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(10)

    def all_bodies(self) -> bytes:
        """Every response body (and header block) read so far."""
        return b"".join(self.bodies)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key (PEM files in ``folder``)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path
