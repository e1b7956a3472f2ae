"""The revolution module through the real campaign pipeline: new, sign, check, intake,
resolve until the end, audit (the deterministic replay of every phase)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml
from conftest import make_keys, player_args, run_cli


def test_a_campaign_from_first_order_to_the_end(tmp_path: Path) -> None:
    keys = make_keys(tmp_path / "keys", ("aurelia", "brutus", "cassia"))
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "ror", "--scenario", "middle", "--id", "ror-1", *player_args(keys),
            "--now", "2026-01-01T00:00:00Z")
    assert "T6/revolution" in run_cli("status", str(camp)).output
    doc = {"pbem": 1, "campaign": "ror-1", "player": "aurelia", "phase": "T6/revolution",
           "orders": {"A": {"plays": [{"statesman": "25A"},
                                      {"concession": "harbor_fees", "senator": "99"}],
                            "declarations": [{"commander": "4", "decision": "revolt",
                                              "bribes": [2, 3]}]}}}
    src = tmp_path / "a.yaml"
    src.write_text(yaml.safe_dump(doc, sort_keys=False))
    signed = tmp_path / "a.signed.yaml"
    run_cli("sign", str(src), "--key", str(keys["aurelia"]), "-o", str(signed))
    bad = run_cli("check", str(signed), "--campaign", str(camp), ok=False)
    assert bad.exit_code == 1
    assert "orders.A.plays[1].senator: senator 99 is not in your faction" in bad.output
    doc["orders"]["A"]["plays"][1]["senator"] = "5"
    src.write_text(yaml.safe_dump(doc, sort_keys=False))
    run_cli("sign", str(src), "--key", str(keys["aurelia"]), "-o", str(signed))
    run_cli("check", str(signed), "--campaign", str(camp))
    run_cli("intake", str(camp), str(signed), "--now", "2026-01-01T01:00:00Z")
    # the campaign's seed is fresh randomness, so the length of the game varies
    when = datetime(2026, 2, 1, tzinfo=UTC)
    outputs = []
    for _ in range(200):
        when += timedelta(days=3)
        res = run_cli("resolve", str(camp), "--force", "--confirm-missing", "--now",
                      when.strftime("%Y-%m-%dT%H:%M:%SZ"), ok=False)
        outputs.append(res.output)
        if "game is over" in res.output:
            break
    status = run_cli("status", str(camp)).output
    assert "the game is over" in status, outputs[-3:]
    audit = run_cli("audit", str(camp)).output
    assert "audit passed" in audit
