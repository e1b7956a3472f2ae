"""What ``pbem sign`` does besides signing: fill ``seq`` and the player's entropy fields (an
order file's; a request carries none).

The pending entropy is kept beside the key in ``KEY.state.json`` (mode 0600): per campaign and
seat, the phase last signed for, the value revealed in it and the value committed in it. Signing
again for the same phase (a correction with a higher seq) reveals the same value and keeps the
same commitment; signing for a new phase, or for a phase reopened by a rollback (the form's
``opened``), reveals the value committed last time and commits a fresh one.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pbem.common.canonical import sha256_hex
from pbem.core import atomic
from pbem.core.envelope import sign_data
from pbem.core.keys import PrivateKey
from pbem.errors import OrderFileError


def state_path(key_path: Path) -> Path:
    return key_path.with_name(key_path.name + ".state.json")


def load_state(key_path: Path) -> dict[str, Any]:
    p = state_path(key_path)
    try:
        found: dict[str, Any] = json.loads(p.read_bytes())
        return found
    except FileNotFoundError:
        return {}


def prepare(data: dict[str, Any], store: dict[str, Any], fresh: bytes | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fill ``seq``, ``entropy_reveal`` and ``entropy_commit``; return the document and the new store."""
    for name in ("campaign", "player", "phase"):
        if not data.get(name):
            raise OrderFileError(f"the field '{name}' is missing; fill it in from your order form", field=name)
    slot_name = f"{data['campaign']}/{data['player']}"
    if "request" in data:
        return _prepare_request(data, store, f"{slot_name}/requests")
    slot = dict(store.get(slot_name, {}))
    phase = str(data["phase"])
    # a phase reopened by a rollback (its order form names the record that reopened it) is a
    # new round: the superseded record published the old reveal, so this one reveals the value
    # committed last time, as for a new phase
    opened = data.get("opened")
    if slot.get("phase") == phase and (opened is None or opened == slot.get("opened")):
        reveal, value = slot.get("reveal"), slot["value"]
        seq = max(int(data.get("seq") or 0), int(slot.get("seq", 0)) + 1)
    else:
        reveal = slot.get("value")
        value = (fresh or os.urandom(32)).hex()
        # a reopened phase's files need a seq above those the rollback set aside
        seq = max(int(data.get("seq") or 0), int(slot.get("seq", 0)) + 1 if slot.get("phase") == phase else 1)
    out = dict(data)
    out["pbem"] = 1
    out["seq"] = seq
    if reveal:
        out["entropy_reveal"] = reveal
    else:
        out.pop("entropy_reveal", None)
    out["entropy_commit"] = sha256_hex(bytes.fromhex(value))
    new_store = dict(store)
    new_store[slot_name] = {"phase": phase, "reveal": reveal, "value": value, "seq": seq}
    kept = opened if opened is not None else (slot.get("opened") if slot.get("phase") == phase else None)
    if kept is not None:
        new_store[slot_name]["opened"] = kept
    return out, new_store


def _prepare_request(data: dict[str, Any], store: dict[str, Any], slot_name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A request (pause, resume, resend) with a seq of its own and no entropy field: the record
    it makes publishes it whole, so it must reveal nothing the seat's next order file reveals,
    and the order files' entropy goes on as if it had not been signed."""
    seq = max(int(data.get("seq") or 0), int(store.get(slot_name, {}).get("seq", 0)) + 1)
    out = {k: v for k, v in data.items() if k not in ("entropy_reveal", "entropy_commit")}
    out["pbem"] = 1
    out["seq"] = seq
    return out, {**store, slot_name: {"seq": seq}}


def sign_file_data(data: dict[str, Any], key: PrivateKey, key_path: Path, fresh: bytes | None = None) -> dict[str, Any]:
    """Prepare and sign ``data``, saving the pending entropy beside the key.

    ``fresh`` is the new entropy value to commit; by default 32 random bytes from the system."""
    prepared, store = prepare(data, load_state(key_path), fresh)
    signed = sign_data(prepared, key)
    atomic.write_bytes(state_path(key_path), json.dumps(store, sort_keys=True, indent=1).encode() + b"\n", mode=0o600)
    return signed
