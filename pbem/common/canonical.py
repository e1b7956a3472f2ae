"""Canonical bytes and hashes of plain data.

The canonical form is JSON with sorted keys, no spaces, UTF-8 (non-ASCII kept as is). Signatures,
commitments and state hashes are all taken over this form, so re-indenting a YAML file, changing
its line endings or reordering its keys never changes them, and any change of meaning does.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def canonical(data: Any) -> bytes:
    """The canonical bytes of ``data`` (plain dicts, lists, str, int, float, bool, None)."""
    return json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def digest(data: Any) -> str:
    """Hex SHA-256 of the canonical form of ``data``: the hash used for states and records."""
    return sha256_hex(canonical(data))


def content_name(stem: str, data: bytes | str, ext: str) -> str:
    """``stem.<hash>.ext``: a file named by its content (the first 16 hex digits of the SHA-256
    of its bytes, UTF-8 for text), so pages that share it link one copy whatever wrote it."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return f"{stem}.{hashlib.sha256(raw).hexdigest()[:16]}.{ext}"
