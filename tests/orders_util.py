"""Writing and signing order files in tests, the way a player does with pbem sign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from conftest import run_cli


def write_orders(path: Path, campaign: str, player: str, phase: str, orders: dict[str, Any], seq: int | None = None,
                 nonce: str | None = None, opened: int | None = None) -> Path:
    data: dict[str, Any] = {"pbem": 1, "campaign": campaign}
    if nonce is not None:  # the campaign nonce, as the order form gives it
        data["nonce"] = nonce
    data.update(player=player, phase=phase)
    if opened is not None:  # after a rollback: the record that reopened the phase, as the form gives it
        data["opened"] = opened
    if seq is not None:
        data["seq"] = seq
    data["orders"] = orders
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def signed(tmp: Path, key: Path, campaign: str, player: str, phase: str, orders: dict[str, Any], seq: int | None = None, name: str | None = None,
           nonce: str | None = None, opened: int | None = None) -> Path:
    stem = f"{name or player}-{phase}".replace("/", "_")
    src = write_orders(tmp / f"{stem}-src.yaml", campaign, player, phase, orders, seq, nonce, opened)
    out = tmp / f"{stem}.yaml"
    run_cli("sign", str(src), "--key", str(key), "-o", str(out))
    return out
