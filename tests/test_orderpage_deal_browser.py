"""The rounds before the deal in the offline order page, in a real headless Chromium: a player
who has only a browser loads the key, signs the empty form of ``deal/commit`` and then of
``deal/reveal``, and the second file reveals the value the first committed (the page keeps it),
so the deal mixes that player's value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import NOW, mailed_order_page, make_keys, run_cli
from test_orderpage_browser import driver, load_key, sign  # noqa: F401 - the module's browser fixture

from pbem.core.campaign import Campaign


def _browser_round(drv: Any, camp: Path, key: Path, report: str, tmp_path: Path) -> Path:
    from selenium.webdriver.common.by import By

    page = mailed_order_page(camp, report, "north")
    assert page is not None, f"{report} has no order page for north"
    drv.get(page.as_uri())
    assert "This round takes no orders" in drv.find_element(By.ID, "form").text
    load_key(drv, key)
    out = tmp_path / f"north-{report}.yaml"
    out.write_text(sign(drv), encoding="utf-8")
    return out


def test_a_browser_player_commits_and_reveals_before_the_deal(driver: Any, tmp_path: Path) -> None:  # noqa: F811
    keys = make_keys(tmp_path / "keys", ("north", "south"))
    camp = tmp_path / "camp"
    run_cli("new", str(camp), "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    run_cli("report", str(camp), "--all")
    start = mailed_order_page(camp, "0000-start", "north")
    assert start is not None
    driver.get(start.as_uri())
    driver.execute_script("window.localStorage.clear();")
    nonce = Campaign(camp).nonce
    for phase, report in (("deal/commit", "0000-start"), ("deal/reveal", "0001-deal_commit")):
        north = _browser_round(driver, camp, keys["north"], report, tmp_path)
        text = north.read_text()
        assert f"phase: \"{phase}\"" in text and f"nonce: \"{nonce}\"" in text
        assert ("entropy_reveal" in text) == (phase == "deal/reveal")
        src = tmp_path / f"south-{report}-src.yaml"
        src.write_text(f"pbem: 1\ncampaign: mini-1\nnonce: {nonce}\nplayer: south\nphase: {phase}\norders:\n  south: {{}}\n")
        south = tmp_path / f"south-{report}.yaml"
        run_cli("sign", str(src), "--key", str(keys["south"]), "-o", str(south))
        out = run_cli("intake", str(camp), str(north), str(south), "--now", NOW).output
        assert "2 accepted, 0 refused" in out, out
        run_cli("resolve", str(camp), "--now", NOW)
        run_cli("report", str(camp), "--all")
    deal = Campaign(camp).records()[2]
    assert {s: e["status"] for s, e in deal["entropy"].items()} == {"north": "ok", "south": "ok"}
    assert "audit passed" in run_cli("audit", str(camp)).output
    # the GM rolls the deal back: the page mailed again names the rollback record, and signing
    # it reveals the value committed in the superseded file, not the one the deal published
    run_cli("rollback", str(camp), "--to", "deal/reveal", "--now", NOW)
    north = _browser_round(driver, camp, keys["north"], "0001-deal_commit", tmp_path)
    assert 'opened: 3' in north.read_text()
    south = tmp_path / "south-again.yaml"
    run_cli("sign", str(camp / "reports" / "0001-deal_commit" / "forms" / "south.yaml"), "--key", str(keys["south"]), "-o", str(south))
    assert "2 accepted, 0 refused" in run_cli("intake", str(camp), str(north), str(south), "--now", NOW).output
    run_cli("resolve", str(camp), "--now", NOW)
    again = Campaign(camp).records()[4]
    assert {s: e["status"] for s, e in again["entropy"].items()} == {"north": "ok", "south": "ok"}
    assert again["entropy"]["north"]["reveal"] != deal["entropy"]["north"]["reveal"]
    assert "audit passed" in run_cli("audit", str(camp)).output
