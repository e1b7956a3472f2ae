"""Record 0 names the pbem version that made the archive. Another version's rules may replay a
campaign otherwise: the audit then says which version made it and which one this is, rather
than only which hash differs; and an archive another version replays the same still passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from archive_util import rewrite_from
from conftest import NOW, make_keys, run_cli
from minigame import MiniGame
from orders_util import signed

import pbem
from pbem.core.campaign import Campaign
from pbem.games import get_game, register


def _campaign(root: Path) -> Path:
    keys = make_keys(root / "keys", ("north", "south"))
    camp = root / "camp"
    run_cli("new", str(camp), "--deal-now", "--game", "mini", "--scenario", "short", "--id", "mini-1",
            "--player", f"north=north@example.org:{keys['north'].with_suffix('.pub')}",
            "--player", f"south=south@example.org:{keys['south'].with_suffix('.pub')}", "--now", NOW)
    for rnd in (1, 2, 3):  # to the end, when the seed is revealed and anyone may replay
        hands = json.loads(sorted((camp / "states").glob("[0-9]*[0-9].json"))[-1].read_bytes())["hands"]
        docs = [signed(root, keys[s], "mini-1", s, f"round-{rnd}", {p: {"bid": hands[p][0]}}) for s, p in (("north", "N"), ("south", "S"))]
        run_cli("intake", str(camp), *map(str, docs), "--now", NOW)
        run_cli("resolve", str(camp), "--now", NOW)
    return camp


def _made_by(camp: Path, version: str | None) -> None:
    """Record 0 as another version would have written it (``None``: one from before record 0
    named its version), the later links recomputed."""
    def change(rec: dict[str, Any]) -> None:
        rec["pbem_version"] = version
        if version is None:
            del rec["pbem_version"]

    rewrite_from(camp, 0, change)


class _NewRules(MiniGame):
    """The mini game as a later version might play it: a point is worth two."""

    def resolve(self, state: dict[str, Any], orders: dict[str, Any], rng: Any) -> Any:
        res = super().resolve(state, orders, rng)
        res.state["score"] = {p: 2 * v for p, v in res.state["score"].items()}
        return res


def test_record_0_names_the_version_that_made_it(tmp_path: Path) -> None:
    camp = _campaign(tmp_path)
    assert Campaign(camp).create_record()["pbem_version"] == pbem.__version__
    assert "made by pbem version" not in run_cli("audit", str(camp)).output


def test_an_archive_of_another_version_names_both_versions(tmp_path: Path) -> None:
    camp = _campaign(tmp_path)
    _made_by(camp, "0.0.9")
    out = run_cli("audit", str(camp)).output  # the same rules: it still replays bit for bit
    assert f"the archive was made by pbem version 0.0.9; this is {pbem.__version__}, and its replay matches" in out
    old = get_game("mini")
    register("mini", _NewRules())
    try:
        result = run_cli("audit", str(camp), ok=False)
    finally:
        register("mini", old)
    assert result.exit_code == 1
    assert f"made by pbem version 0.0.9; this is {pbem.__version__}, whose replay differs from it (replaying phase round-1 gives a different" in result.output
    assert "audit it with pbem 0.0.9" in result.output


def test_an_archive_that_names_no_version_audits_as_before(tmp_path: Path) -> None:
    camp = _campaign(tmp_path)
    _made_by(camp, None)
    assert "pbem_version" not in Campaign(camp).create_record()
    out = run_cli("audit", str(camp)).output
    assert "audit passed" in out and "made by pbem version" not in out
