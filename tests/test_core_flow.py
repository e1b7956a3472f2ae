"""The core end to end with the mini game: keys, signing, intake, resolve, audit."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import NOW, run_cli
from orders_util import signed


def _play_round(tmp: Path, camp: Path, keys: dict[str, Path], round_no: int) -> None:
    phase = f"round-{round_no}"
    state = _state(camp)
    a = signed(tmp, keys["north"], "mini-1", "north", phase, {"N": {"bid": state["hands"]["N"][0]}})
    b = signed(tmp, keys["south"], "mini-1", "south", phase, {"S": {"bid": state["hands"]["S"][-1]}})
    out = run_cli("intake", str(camp), str(a), str(b), "--now", NOW).output
    assert out.count("accepted:") == 2, out
    assert "resolved round-" in run_cli("resolve", str(camp), "--now", NOW).output


def _state(camp: Path) -> dict:
    last = sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1]
    return json.loads(last.read_bytes())


def test_full_game_resolves_and_audits(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    for r in (1, 2, 3):
        _play_round(tmp_path, mini_campaign, keys, r)
    kinds = [json.loads(p.read_bytes())["kind"] for p in sorted((mini_campaign / "archive").glob("*.json"))]
    assert kinds == ["create", "phase", "phase", "phase", "end"]
    out = run_cli("audit", str(mini_campaign)).output
    assert "3 phases replayed" in out and "audit passed" in out
    assert "game is over" in run_cli("status", str(mini_campaign)).output


def test_entropy_reveal_matches_previous_commit(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    _play_round(tmp_path, mini_campaign, keys, 1)
    _play_round(tmp_path, mini_campaign, keys, 2)
    rec2 = json.loads((mini_campaign / "archive" / "000002.json").read_bytes())
    assert {e["status"] for e in rec2["entropy"].values()} == {"ok"}


def test_receipt_echoes_orders_and_hash(tmp_path: Path, mini_campaign: Path, keys: dict[str, Path]) -> None:
    state = _state(mini_campaign)
    a = signed(tmp_path, keys["north"], "mini-1", "north", "round-1", {"N": {"bid": state["hands"]["N"][0]}})
    run_cli("intake", str(mini_campaign), str(a), "--now", NOW)
    receipts = list((mini_campaign / "outbox").glob("receipt-*.eml"))
    assert len(receipts) == 1
    text = receipts[0].read_text()
    assert "To: north@example.org" in text and "bid:" in text and "Hash of the signed content" in text
    assert "Date:" not in text
