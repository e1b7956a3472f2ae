"""Encrypting private reports to a player's X25519 key.

Format (``PBEM-SEALED-1``, armoured as text so it survives any mail client)::

    -----BEGIN PBEM SEALED REPORT-----
    <base64 of: ephemeral X25519 public key (32) || nonce (12) || ChaCha20-Poly1305 ciphertext>
    -----END PBEM SEALED REPORT-----

The key is HKDF-SHA256 over the X25519 shared secret, with the ephemeral and recipient public
keys as salt and ``pbem sealed report v1`` as info. A report may be sealed gzip-compressed
(``compress=True``, as report mails do: the map makes it six times smaller); the opener sees the
gzip magic (``1f 8b``, which no HTML starts with) and inflates it, up to :data:`MAX_OPENED` bytes. The ephemeral key and nonce are derived from
the sender's deterministic seed when one is given, so re-rendering a phase after a crash writes
the same bytes; each (report, recipient) pair gets its own ephemeral key.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import hmac
import os
import re
import zlib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pbem.core.keys import PrivateKey, PublicKey
from pbem.errors import KeyFileError, PbemError

BEGIN = "-----BEGIN PBEM SEALED REPORT-----"
END = "-----END PBEM SEALED REPORT-----"
_INFO = b"pbem sealed report v1"
_ARMOUR = re.compile(re.escape(BEGIN) + r"\s*(.*?)\s*" + re.escape(END), re.DOTALL)


def _key(shared: bytes, eph_pub: bytes, rcpt_pub: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=eph_pub + rcpt_pub, info=_INFO).derive(shared)


MAX_OPENED = 64 * 1024 * 1024


def seal(plaintext: bytes, recipient: PublicKey, seed: bytes | None = None, compress: bool = False) -> str:
    """Encrypt ``plaintext`` to ``recipient`` (gzip-compressed first with ``compress``);
    deterministic when ``seed`` is given."""
    if compress:
        plaintext = gzip.compress(plaintext, compresslevel=9, mtime=0)
    if recipient.x25519 is None:
        raise KeyFileError(f"the roster key of {recipient.name or 'this player'} has no x25519 part; reports cannot be encrypted to it")
    material = hmac.new(seed, recipient.x25519 + hashlib.sha256(plaintext).digest(), hashlib.sha256).digest() if seed else os.urandom(32)
    eph = X25519PrivateKey.from_private_bytes(material)
    eph_pub = eph.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = eph.exchange(X25519PublicKey.from_public_bytes(recipient.x25519))
    nonce = hashlib.sha256(b"nonce" + material).digest()[:12]
    ciphertext = ChaCha20Poly1305(_key(shared, eph_pub, recipient.x25519)).encrypt(nonce, plaintext, _INFO)
    body = base64.encodebytes(eph_pub + nonce + ciphertext).decode("ascii")
    return f"{BEGIN}\n{body}{END}\n"


def unseal(text: str, key: PrivateKey) -> bytes:
    """Decrypt a sealed report with the player's private key."""
    m = _ARMOUR.search(text)
    if not m:
        raise PbemError("no sealed report found (it starts with '" + BEGIN + "')")
    try:
        blob = base64.b64decode(m.group(1))
    except ValueError:
        raise PbemError("the sealed report is damaged (not base64)") from None
    if len(blob) < 32 + 12 + 16:
        raise PbemError("the sealed report is damaged (too short)")
    eph_pub, nonce, ciphertext = blob[:32], blob[32:44], blob[44:]
    rcpt_pub = key.x25519.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    shared = key.x25519.exchange(X25519PublicKey.from_public_bytes(eph_pub))
    try:
        plain = ChaCha20Poly1305(_key(shared, eph_pub, rcpt_pub)).decrypt(nonce, ciphertext, _INFO)
    except InvalidTag:
        raise PbemError("cannot decrypt: the report is not for this key, or it was changed") from None
    if plain[:2] != b"\x1f\x8b":
        return plain
    inflate = zlib.decompressobj(wbits=31)
    try:
        out = inflate.decompress(plain, MAX_OPENED)
    except zlib.error:
        raise PbemError("the sealed report is damaged (its compression)") from None
    if inflate.unconsumed_tail:
        raise PbemError(f"the sealed report opens to more than {MAX_OPENED:,} bytes; not opened")
    return out
