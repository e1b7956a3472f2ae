"""Salted SHA-256 commitments.

A commitment to a value is ``SHA-256(label | canonical value | salt)`` in hex, where ``|`` is a
literal bar, the value is in canonical JSON (see :mod:`pbem.common.canonical`) and the salt is 32
hex digits or more. Publishing the commitment binds the committer to the value without showing
it; publishing value and salt later lets anyone check it with one ``sha256sum``.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from pbem.common.canonical import canonical, sha256_hex


def commit_text(parts: list[str]) -> str:
    """Hex SHA-256 of ``parts`` joined by ``|``: the general commitment form (M11.4 uses it)."""
    return sha256_hex("|".join(parts).encode("utf-8"))


def commit(label: str, value: Any, salt: str) -> str:
    """Commitment to ``value`` under ``label`` with ``salt``."""
    return commit_text([label, canonical(value).decode("utf-8"), salt])


def opens(commitment: str, label: str, value: Any, salt: str) -> bool:
    """True if ``value`` and ``salt`` open ``commitment``."""
    return hmac.compare_digest(commitment, commit(label, value, salt))


def derive_salt(secret_key: bytes, label: str) -> str:
    """A salt derived from the campaign's secret key, so replays reproduce it bit for bit and the
    end-of-game reveal of the key lets anyone recompute every salt."""
    return hmac.new(secret_key, b"salt|" + label.encode("utf-8"), hashlib.sha256).hexdigest()
