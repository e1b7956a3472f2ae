"""Views, secrets, the Game protocol and data checks of the revolution module (R1, R8.7)."""

from __future__ import annotations

import json

import pytest

from pbem.common.fair import PhaseRng, Rng
from pbem.errors import DataError
from pbem.games import get_game
from pbem.games.ror import GAME
from pbem.games.ror.model import resolve_options
from pbem.games.ror.setup import load_scenario, normalize_state


def _rng(label: str) -> PhaseRng:
    base = Rng(label.encode())
    return PhaseRng(base.fork("public"), base.fork("secret"))


def test_registry_and_scenarios() -> None:
    assert get_game("ror") is GAME
    assert GAME.scenarios() == ("early", "late", "middle")
    assert GAME.seats("middle") == ("aurelia", "brutus", "cassia")


def test_scenarios_use_real_cards_in_each_era() -> None:
    eras = {s: load_scenario(s)["era"] for s in GAME.scenarios()}
    assert eras == {"early": "early", "middle": "middle", "late": "late"}
    st = load_scenario("middle")
    assert st["senators"]["4"]["name"] == "Julius"
    assert (st["senators"]["4"]["mil"], st["senators"]["4"]["ora"]) == (4, 3)
    assert st["senators"]["19"]["name"] == "Aemilius"


def test_public_view_hides_hands_and_treasuries() -> None:
    """R8.7: hands and Faction Treasuries only in their owners' views until the end."""
    st = GAME.new_game("middle", {}, _rng("v"))
    pub = GAME.view(st, "public")
    assert all("hand" not in f and "faction_treasury" not in f for f in pub["factions"].values())
    assert pub["factions"]["A"]["hand_size"] == 2
    assert pub["senators"]["4"]["talents"] == 3  # every senator's Talents are public
    mine = GAME.view(st, "aurelia")
    assert mine["factions"]["A"]["hand"] == ["25A", "harbor_fees"]
    assert mine["factions"]["A"]["faction_treasury"] == 3
    assert "hand" not in mine["factions"]["B"]
    # B's hand (29A is nowhere else) leaks neither to the public nor to another seat
    assert "29A" not in json.dumps(pub) and "29A" not in json.dumps(mine)
    assert "29A" in json.dumps(GAME.view(st, "brutus"))
    # the end reveals everything
    st["game_result"] = {"outcome": "win", "condition": 5, "faction": "A"}
    over = GAME.view(st, "public")
    assert over["factions"]["B"]["hand"] == ["1A", "mining", "29A"]


def test_view_is_rich_enough_for_a_faction_table() -> None:
    st = GAME.new_game("middle", {}, _rng("v"))
    pub = GAME.view(st, "public")
    assert pub["round"] == "T6/revolution" and pub["hrao"] == "3" and pub["hrao_faction"] == "A"
    army = next(a for a in pub["armies"] if a["commander"] == "4")
    assert army["legions"] == ["1", "2", "3", "4", "5", "6"] and army["legion_strength"] == 7
    assert pub["factions"]["A"]["senators"] == ["3", "4", "5", "7"]
    assert pub["wars"]["W3"]["status"] == "active" and pub["active_wars"] == 1
    assert pub["offices"] == {"rome_consul": "3", "field_consul": "4", "censor": "5",
                              "proconsul": "14"}
    assert pub["step_rule"] == "R2.1a"


def test_secrets_are_hands_and_treasuries_per_seat() -> None:
    st = load_scenario("middle")
    secrets = {s.label: s for s in GAME.secrets(st)}
    assert secrets["hand:B"].owner == "brutus" and secrets["hand:B"].value == ["1A", "mining",
                                                                              "29A"]
    assert secrets["faction_treasury:C"].value == 2


def test_resolution_dice_are_events_and_logged() -> None:
    """R1.7, R8.1: every draw is a die event with its purpose and in dice_log by round."""
    st = GAME.new_game("middle", {}, _rng("d"))
    orders = {"A": {"declarations": [{"commander": "4", "decision": "revolt"}]}, "B": {},
              "C": {}}
    res = GAME.resolve(st, orders, _rng("d1"))
    dice = [e for e in res.events if e["type"] == "die"]
    assert dice and all(e["round"] == "T6/revolution" for e in dice)
    assert [e["index"] for e in dice] == list(range(len(dice)))
    assert dice[0]["purpose"] == "R4.1 legion 2"
    logged = [d for d in res.state["dice_log"] if d["round"] == "T6/revolution"]
    assert [d["result"] for d in logged] == [e["value"] for e in dice]
    view = GAME.view(res.state, "public")
    assert view["last_round"] == "T6/revolution" and view["dice"] == logged
    # same inputs, same bytes out
    again = GAME.resolve(st, orders, _rng("d1"))
    assert json.dumps(again.state, sort_keys=True) == json.dumps(res.state, sort_keys=True)
    assert again.events == res.events
    assert st["awaiting"]["round"] == "T6/revolution"  # resolve does not touch its input


def test_options_from_data() -> None:
    """R1.1: defaults, ruleset overrides (D6), explicit keys win; bad options in one error."""
    assert resolve_options({})["ror.cw_chit_basis"] == "both_sides"
    assert resolve_options({"ror.ruleset": "1.07A"})["ror.cw_chit_basis"] == "senate_only"
    assert resolve_options({"ror.ruleset": "1.07A", "ror.cw_chit_basis": "both_sides"})[
        "ror.cw_chit_basis"] == "both_sides"
    with pytest.raises(DataError) as err:
        resolve_options({"ror.rebel_tie": "coin", "ror.nothing": 1})
    assert len(err.value.problems) == 2


def test_broken_state_lists_every_problem() -> None:
    with pytest.raises(DataError) as err:
        normalize_state({"phase": "lunch", "factions": {"A": {}},
                         "senators": {"99": {}, "4": {"faction": "Q"}},
                         "legions": {"30": "pool", "2": {"allegiance": "4"}},
                         "script": [{"turn": 2, "phase": "forum", "effect": "plague"},
                                    {"turn": 2, "phase": "forum", "effect": "kill"}]})
    text = "\n".join(err.value.problems)
    for bit in ("phase: 'lunch'", "senators.99", "senators.4.faction", "legions.30",
                "legions.2: only a veteran", "script[0].effect: 'plague'",
                "script[1].args: 'kill' needs 'senator'"):
        assert bit in text


def test_hidden_cards_stay_out_of_public_events() -> None:
    """R8.7: a card drawn by the script or moved by a trade is named only to its owners."""
    st = GAME.new_game("middle", {}, _rng("h"))
    orders = {"A": {}, "B": {"trades": [{"give": ["29A"], "to": "C"}]}, "C": {}}
    res = GAME.resolve(st, orders, _rng("h1"))
    public = [e for e in res.events if "audience" not in e]
    assert any(e["type"] == "trade" and e["count"] == 1 for e in public)
    assert any(e["type"] == "script" and e["effect"] == "card_to_hand" for e in public)
    text = json.dumps(public)
    assert "egyptian_grain" not in text and "29A" not in text
    private = [e for e in res.events if e.get("audience") == "aurelia"]
    assert any(e["type"] == "card_drawn" and e["card"] == "egyptian_grain" for e in private)
