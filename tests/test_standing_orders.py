"""M12.3 through the core: a player may send standing-order updates in any round, also one in
which none of its powers acts, and they take effect when that round resolves."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import NOW, make_keys, player_args, run_cli
from orders_util import signed


def test_standing_orders_of_a_power_that_does_not_act_reach_the_game(tmp_path: Path) -> None:
    keys = make_keys(tmp_path / "keys", ("maria_theresa", "louis", "frederick"))
    camp = tmp_path / "m"
    run_cli("new", str(camp), "--deal-now", "--game", "maria", "--scenario", "intro", "--id", "m-1", "--outage-share", "0",
            *player_args(keys), "--now", NOW)
    assert "resolved setup" in run_cli("resolve", str(camp), "--force", "--now", NOW).output
    status = run_cli("status", str(camp), "--now", NOW).output
    assert "phase 1741-1/hussars" in status and "AU" in status and "FR " not in status
    update = {"FR": {"standing": {"loss_order": ["broglie", "belle_isle"], "hussar_policy": "refuse"}}}
    louis = signed(tmp_path, keys["louis"], "m-1", "louis", "1741-1/hussars", update)
    mt = signed(tmp_path, keys["maria_theresa"], "m-1", "maria_theresa", "1741-1/hussars", {"AU": {"hussars": []}})
    out = run_cli("intake", str(camp), str(louis), str(mt), "--now", NOW).output
    assert out.count("accepted:") == 2, out
    assert "resolved 1741-1/hussars" in run_cli("resolve", str(camp), "--now", NOW).output
    record = json.loads((camp / "archive" / "000002.json").read_bytes())
    assert sorted(record["orders"]) == ["louis", "maria_theresa"]
    state = json.loads((camp / "states" / "000002.json").read_bytes())
    assert state["standing"]["FR"]["loss_order"] == ["broglie", "belle_isle"]
    assert state["standing"]["FR"]["hussar_policy"] == "refuse"
    assert "audit passed" in run_cli("audit", str(camp)).output
