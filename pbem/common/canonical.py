"""Canonical bytes and hashes of plain data.

The canonical form is JSON with sorted keys, no spaces, UTF-8 (non-ASCII kept as is). Signatures,
commitments and state hashes are all taken over this form, so re-indenting a YAML file, changing
its line endings or reordering its keys never changes them, and any change of meaning does.
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from typing import Any


def _not_plain(value: Any) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


# Canonical JSON is what ``json.dumps(data, sort_keys=True, separators=(",", ":"),
# ensure_ascii=False, allow_nan=False)`` writes; its C encoder is built here once rather than on
# every call (states and records are hashed everywhere, most of them small, so building it was
# a good part of the cost). Plain data has no cycles: none are looked for.
_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_encode = (_make_encoder(None, _not_plain, json.encoder.encode_basestring, None, ":", ",", True, False, False)
           if _make_encoder is not None else None)


def canonical(data: Any) -> bytes:
    """The canonical bytes of ``data`` (plain dicts, lists, str, int, float, bool, None)."""
    if _encode is None:
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False).encode("utf-8")
    return "".join(_encode(data, 0)).encode("utf-8")


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
