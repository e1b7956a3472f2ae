"""Player keys: an Ed25519 signing key and an X25519 key for encrypted private reports.

A private key file (``NAME.key``, mode 0600) holds both secret keys as hex in a small YAML file;
the public key line (``NAME.pub``) reads ``ed25519:<hex> x25519:<hex> NAME`` and is what the GM
puts on the campaign roster. Loading a private key that others can read is refused, as ssh does.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pbem.common.keyname import check_key_name
from pbem.common.safeyaml import load_yaml
from pbem.errors import KeyFileError

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _raw_public(key: Ed25519PublicKey | X25519PublicKey) -> bytes:
    return key.public_bytes(Encoding.Raw, PublicFormat.Raw)


@lru_cache(maxsize=4096)
def _verifier(raw: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(raw)


@dataclass(frozen=True, init=False)
class PublicKey:
    """A player's public keys, as on the roster."""

    ed25519: bytes
    x25519: bytes | None = None
    name: str = ""

    def __init__(self, ed25519: bytes, x25519: bytes | None = None, name: str = "") -> None:
        # the fields set at once (a frozen dataclass's own __init__ sets each through
        # object.__setattr__: a roster of many seats is read for every intake)
        self.__dict__.update(ed25519=ed25519, x25519=x25519, name=name)

    @property
    def sign_id(self) -> str:
        """``ed25519:<hex>``: how order files name the key that signed them (made once: intake
        compares it with every file's)."""
        found: str | None = self.__dict__.get("_sign_id")
        if found is None:
            found = self.__dict__["_sign_id"] = "ed25519:" + self.ed25519.hex()
        return found

    def line(self) -> str:
        """The one-line text form (``NAME.pub``)."""
        parts = [self.sign_id]
        if self.x25519 is not None:
            parts.append("x25519:" + self.x25519.hex())
        if self.name:
            parts.append(self.name)
        return " ".join(parts)

    def verifier(self) -> Ed25519PublicKey:
        """The key that checks signatures (made once per key: intake checks many files)."""
        return _verifier(self.ed25519)


@dataclass(frozen=True)
class PrivateKey:
    """A player's secret keys."""

    name: str
    ed25519: Ed25519PrivateKey
    x25519: X25519PrivateKey

    def public(self) -> PublicKey:
        return PublicKey(
            _raw_public(self.ed25519.public_key()), _raw_public(self.x25519.public_key()), self.name
        )

    def sign(self, message: bytes) -> bytes:
        return self.ed25519.sign(message)


# the usual line, as PublicKey.line writes it for a named key (a roster holds one per seat)
_USUAL = re.compile(r"ed25519:([0-9a-f]{64}) x25519:([0-9a-f]{64}) ([^\s:]+)")


def parse_public_key(text: str, source: str = "public key") -> PublicKey:
    """Parse a public key line: ``ed25519:<hex> [x25519:<hex>] [NAME]``."""
    usual = _USUAL.fullmatch(text)
    ed, x, name = (bytes.fromhex(usual[1]), bytes.fromhex(usual[2]), usual[3]) if usual else _parts(text, source)
    try:
        _verifier(ed)  # (the key that checks its signatures, made now and kept)
    except ValueError:
        raise KeyFileError("the ed25519 key is not a valid public key", source=source) from None
    return PublicKey(ed, x, name)


def _parts(text: str, source: str) -> tuple[bytes, bytes | None, str]:
    """The keys and the name of a public key line, token by token."""
    ed = x = None
    name_parts: list[str] = []
    for token in text.strip().split():
        kind, _, value = token.partition(":")
        if kind in ("ed25519", "x25519") and value:
            if not _HEX64.fullmatch(value):
                raise KeyFileError(f"the {kind} key is not 64 hex digits", source=source)
            if kind == "ed25519":
                ed = bytes.fromhex(value)
            else:
                x = bytes.fromhex(value)
        else:
            name_parts.append(token)
    if ed is None:
        raise KeyFileError(
            "no 'ed25519:<hex>' key found; give the .pub file written by 'pbem keygen'",
            source=source,
        )
    return ed, x, " ".join(name_parts)


def load_public_key(ref: str) -> PublicKey:
    """A public key from a ``.pub`` file path or from the key text itself."""
    if ref.strip().startswith("ed25519:"):
        return parse_public_key(ref)
    path = Path(ref)
    if not path.is_file():
        raise KeyFileError("no such public key file", source=ref)
    return parse_public_key(path.read_text(encoding="utf-8"), source=ref)


def generate(name: str) -> PrivateKey:
    """Fresh keys for ``name``."""
    check_key_name(name)
    return PrivateKey(name, Ed25519PrivateKey.generate(), X25519PrivateKey.generate())


def format_private_key(key: PrivateKey) -> str:
    """The private key file's text."""
    from cryptography.hazmat.primitives.serialization import NoEncryption, PrivateFormat

    def raw(k: Ed25519PrivateKey | X25519PrivateKey) -> str:
        return k.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex()

    return (
        f"# pbem private key of {key.name}. Keep it secret: whoever has it can sign your orders.\n"
        f"# Public key: {key.public().line()}\n"
        "pbem-key: 1\n"
        f"name: \"{key.name}\"\n"  # quoted: a name such as on or 123 stays text
        f"ed25519: {raw(key.ed25519)}\n"
        f"x25519: {raw(key.x25519)}\n"
    )


def write_private_key(key: PrivateKey, path: Path) -> None:
    """Write the private key with mode 0600; refuse to overwrite or to leave it readable by others."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError("a key file is already there; not overwriting it", source=str(path)) from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(format_private_key(key))
        fh.flush()
        os.fsync(fh.fileno())
    if os.stat(path).st_mode & 0o077:
        os.unlink(path)
        raise KeyFileError(
            "the file system would leave the private key readable by others; write it elsewhere",
            source=str(path),
        )


def load_private_key(path: str | Path) -> PrivateKey:
    """Load a private key file written by ``pbem keygen``."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise KeyFileError("no such key file", source=str(p)) from None
    if st.st_mode & 0o077:
        raise KeyFileError(
            f"the private key is readable by others (mode {stat.filemode(st.st_mode)}); "
            f"run: chmod 600 {p}",
            source=str(p),
        )
    data = load_yaml(p.read_bytes(), str(p))
    if not isinstance(data, dict) or data.get("pbem-key") != 1:
        raise KeyFileError("not a pbem private key file (made by 'pbem keygen')", source=str(p))
    try:
        ed = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(str(data["ed25519"])))
        x = X25519PrivateKey.from_private_bytes(bytes.fromhex(str(data["x25519"])))
    except (KeyError, ValueError):
        raise KeyFileError("the key file is damaged (ed25519/x25519 fields)", source=str(p)) from None
    return PrivateKey(str(data.get("name", p.stem)), ed, x)
