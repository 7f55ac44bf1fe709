"""The server's bearer tokens: ``chatcli serve token create|list|revoke`` and their file.

A token is ``ccs_`` + 43 URL-safe characters (32 random bytes), printed once when created. The
file ``config_dir()/serve-tokens.json`` (mode 0600, written atomically) keeps for each token its
``id``, ``name``, the SHA-256 of the secret (hex; no salt is needed for 256 random bits: there is
nothing to guess faster), the ``root`` folder it may work in, ``created``, ``expires`` (or null)
and ``revoked``. The server reads the file again whenever its mtime, inode or size changes, so a
token revoked from another process is refused from the next request on.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import click
from chatcli import ChatcliError, UsageError, atomic_write, config_dir, translation
from chatcli_cli import one_line_errors

__all__ = ["PREFIX", "TokenRecord", "TokenStore", "parse_duration", "token", "tokens_path"]

_, ngettext = translation(__name__)

#: Every secret starts with this (so a leaked one is recognisable and greppable).
PREFIX = "ccs_"

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def tokens_path() -> Path:
    """Where the tokens are kept."""
    return config_dir() / "serve-tokens.json"


def parse_duration(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``2w``, ``45s`` -> seconds."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhdw])\s*", text.lower())
    if not match or int(match.group(1)) == 0:
        raise UsageError(_("--expires '{text}' is not a duration").format(text=text),
                         _("give a number and a unit: 30d, 12h, 90m, 2w"))
    return int(match.group(1)) * _UNITS[match.group(2)]


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class TokenRecord:
    """One token as stored (never its secret)."""

    id: str
    name: str
    sha256: str
    root: str
    created: float
    expires: float | None = None
    revoked: bool = False

    def usable(self, now: float | None = None) -> bool:
        """Neither revoked nor expired."""
        when = time.time() if now is None else now
        return not self.revoked and (self.expires is None or when < self.expires)

    def state(self) -> str:
        """``active``, ``revoked`` or ``expired``."""
        if self.revoked:
            return "revoked"
        return "active" if self.usable() else "expired"


class TokenStore:
    """The token file, read again when it changes on disk (thread-safe)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or tokens_path()
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._records: list[TokenRecord] = []

    # ------------------------------------------------------------------ reading

    def records(self) -> list[TokenRecord]:
        """Every token in the file (re-read when its mtime, inode or size changed)."""
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                self._stamp, self._records = None, []
                return []
            stamp = (st.st_mtime_ns, st.st_ino, st.st_size)
            if stamp != self._stamp:
                self._records = self._read()
                self._stamp = stamp
            return list(self._records)

    def _read(self) -> list[TokenRecord]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise ChatcliError(_("cannot read {path}: {reason}").format(path=self.path, reason=err),
                               _("fix or remove the file, then create the tokens again")
                               ) from None
        found: list[TokenRecord] = []
        for item in data.get("tokens", []) if isinstance(data, dict) else []:
            try:
                found.append(TokenRecord(
                    id=str(item["id"]), name=str(item["name"]), sha256=str(item["sha256"]),
                    root=str(item["root"]), created=float(item["created"]),
                    expires=None if item.get("expires") is None else float(item["expires"]),
                    revoked=bool(item.get("revoked", False))))
            except (KeyError, TypeError, ValueError):
                continue  # a damaged entry grants nothing
        return found

    def usable(self) -> list[TokenRecord]:
        """The tokens that may be used now."""
        now = time.time()
        return [r for r in self.records() if r.usable(now)]

    def lookup(self, secret: str) -> TokenRecord | None:
        """The usable token whose secret is ``secret`` (compared in constant time), or None."""
        digest = _hash(secret)
        match: TokenRecord | None = None
        for record in self.usable():
            if hmac.compare_digest(record.sha256, digest):
                match = record
        return match

    # ------------------------------------------------------------------ writing

    def _write(self, records: list[TokenRecord]) -> None:
        body = json.dumps({"tokens": [asdict(r) for r in records]}, indent=2) + "\n"
        atomic_write(self.path, body, mode=0o600)

    def create(self, name: str, root: Path, expires_in: float | None = None
               ) -> tuple[TokenRecord, str]:
        """A new token for ``root``: its record and its secret (shown once, never stored)."""
        name = name.strip()
        if not name:
            raise UsageError(_("--name is empty"), _("give the token a name: --name laptop"))
        if not root.is_dir():
            raise UsageError(_("--root {root} is not a folder").format(root=root),
                             _("give the folder the token may work in"))
        records = self.records()
        if any(r.name == name and r.usable() for r in records):
            raise UsageError(_("a token named '{name}' exists already").format(name=name),
                             _("pick another name or revoke it: chatcli serve token revoke {name}"
                               ).format(name=name))
        secret = PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        record = TokenRecord(id="tok_" + secrets.token_hex(4), name=name, sha256=_hash(secret),
                             root=str(root.resolve()), created=now,
                             expires=None if expires_in is None else now + expires_in)
        self._write([*records, record])
        return record, secret

    def revoke(self, which: str) -> list[TokenRecord]:
        """Revoke the tokens whose id or name is ``which``; the ones revoked."""
        records = self.records()
        hit = [r for r in records if (r.id == which or r.name == which) and not r.revoked]
        if not hit:
            raise UsageError(_("no active token '{which}'").format(which=which),
                             _("see the ids and names with `chatcli serve token list`"))
        ids = {r.id for r in hit}
        self._write([TokenRecord(**{**asdict(r), "revoked": True}) if r.id in ids else r
                     for r in records])
        return hit


# ---------------------------------------------------------------------- commands


def _when(stamp: float | None) -> str:
    if stamp is None:
        return _("never")
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def _state(record: TokenRecord) -> str:
    """The token's state as ``token list`` shows it."""
    state = record.state()
    if state == "revoked":
        return _("revoked")
    return _("active") if state == "active" else _("expired")


@click.group("token", help=_("Tokens for `chatcli serve`: create, list and revoke them."))
def token() -> None:
    """``chatcli serve token``."""


@token.command("create", help=_("Create a token; its secret is printed once and never stored."))
@click.option("--name", required=True,
              help=_("A name to recognise the token by (laptop, phone)."))
@click.option("--root", required=True, type=click.Path(file_okay=False, path_type=Path),
              help=_("The folder the token may work in: its sessions' projects must be inside."))
@click.option("--expires", default=None, metavar="DURATION",
              help=_("Expire after this long: 30d, 12h, 90m, 2w (default: never)."))
@one_line_errors
def create(name: str, root: Path, expires: str | None) -> None:
    """``chatcli serve token create``."""
    seconds = parse_duration(expires) if expires else None
    record, secret = TokenStore().create(name, root.expanduser(), seconds)
    click.echo(secret)
    click.echo(_("chatcli serve: token '{name}' ({id}) for {root}, expires {expires}; this is the "
                 "only time it is shown — keep it now").format(
                   name=record.name, id=record.id, root=record.root,
                   expires=_when(record.expires)), err=True)
    project = _project_above(Path(record.root))
    if project is not None:
        click.echo(_("chatcli serve: warning: {root} is inside the project {project}, and "
                     "sessions are filed under their project: this token will not see its own "
                     "sessions once they are saved — give --root {project} instead").format(
                       root=record.root, project=project), err=True)


def _project_above(root: Path) -> str | None:
    """The project root of ``root`` when it is above it (a folder inside a repository)."""
    from chatcli import project_root

    found = project_root(root)
    if found is None or Path(found).resolve() == root.resolve():
        return None
    return found


@token.command("list", help=_("The tokens (ids, names, roots, dates and states; never the "
                              "secrets)."))
@one_line_errors
def list_tokens() -> None:
    """``chatcli serve token list``."""
    records = TokenStore().records()
    if not records:
        click.echo(_("no tokens — create one: chatcli serve token create --name NAME --root DIR"))
        return
    # i18n: the headers of `chatcli serve token list`'s columns, in capitals
    headers = (_("ID"), _("NAME"), _("STATE"), _("CREATED"), _("EXPIRES"), _("ROOT"))
    click.echo(f"{headers[0]:<13} {headers[1]:<16} {headers[2]:<8} {headers[3]:<16} "
               f"{headers[4]:<16} {headers[5]}")
    for r in records:
        click.echo(f"{r.id:<13} {r.name:<16} {_state(r):<8} {_when(r.created):<16} "
                   f"{_when(r.expires):<16} {r.root}")


@token.command("revoke", help=_("Revoke a token by its id or name (a running server refuses it "
                                "from the next request)."))
@click.argument("which", metavar="ID|NAME")
@one_line_errors
def revoke(which: str) -> None:
    """``chatcli serve token revoke``."""
    for record in TokenStore().revoke(which):
        click.echo(_("revoked {id} ({name})").format(id=record.id, name=record.name))
