"""Unit tests of the Maria engine's interface: options, new game, rounds, validation messages,
views and secrets, legal orders, the order schemas (M1.2, M2.1, M11, M12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from maria_minimaps import board_and_forces

from pbem.common.fair import PhaseRng, Rng
from pbem.data import orders_dir
from pbem.errors import DataError
from pbem.games import get_game
from pbem.games.maria import adjudicate, bots, model, orders, views

KINDS = ("setup", "hussars", "stage", "winter", "commit", "politics")


def _rng(label: str = "t") -> PhaseRng:
    return PhaseRng(Rng(f"{label}-public".encode()), Rng(f"{label}-secret".encode()))


def _new(options: dict | None = None) -> dict:
    board, forces = board_and_forces()
    return adjudicate.new_game("intro", options or {}, _rng(), board, forces)


def test_registry_finds_the_game() -> None:
    game = get_game("maria")
    assert game.name == "maria"
    assert game.scenarios() == ("intro", "advanced")
    assert game.seats("intro") == ("maria_theresa", "louis", "frederick")
    assert game.seats("intro", {"game.players": "two"}) == ("habsburg", "coalition")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"no.such": 1}, "unknown rule option 'no.such'"),
        ({"combat.tie_rule": "coin_toss"}, "option combat.tie_rule: 'coin_toss' is not allowed"),
        ({"cards.piles": "per_side"}, "has no rule text yet and is refused"),
        ({"combat.retreat_chooser": "loser"}, "has no rule text yet and is refused"),
        ({"troops.max": 9}, "option troops.max: 9 is outside 1..8"),
        ({"cards.draws": {"XX": 3}}, "unknown power 'XX'"),
    ],
)
def test_bad_options_are_refused(options: dict, message: str) -> None:
    with pytest.raises(DataError) as err:
        model.resolve_options(options)
    assert message in str(err.value)


def test_every_problem_reported_at_once() -> None:
    with pytest.raises(DataError) as err:
        model.resolve_options({"a.b": 1, "troops.max": "x"})
    assert len(err.value.problems) == 2


def test_option_table_matches_the_rules() -> None:
    table = model.option_table()
    ids = (Path(__file__).parent / "rules" / "maria.ids").read_text("utf-8").splitlines()
    options = {line.split()[1] for line in ids if line.startswith("option ")}
    assert set(table) == options, sorted(set(table) ^ options)


def test_new_game_records_every_option_and_shuffles_secretly() -> None:
    state = _new({"supply.range": 5})
    assert state["options"] == {**model.default_options(), "game.variant": "intro",
                                "supply.range": 5}
    assert len(state["cards"]["draw"]) == 152
    assert state["cards"]["draw"] != sorted(state["cards"]["draw"])
    assert json.loads(json.dumps(state)) == state
    assert _new({"supply.range": 5}) == state  # same rng, same game
    assert state["troop_totals"]["FR"] == 11 and state["troop_totals"]["AU"] == 24
    assert "PA" not in state["powers"] and not any(
        g["power"] == "PA" for g in state["generals"].values())


def test_advanced_game_starts_with_politics_on_both_maps() -> None:
    """M2.1 (advanced): both maps, all six powers, the tracks at their starts, PR's 2 Silesian
    markers taken from its pool of 13, the political groups shuffled, a politics round first."""
    state = adjudicate.new_game("advanced", {}, _rng())
    assert state["powers"] == ["FR", "BA", "PR", "SX", "AU", "PA"]
    assert set(state["maps"]) == {"bohemia", "flanders"}
    assert state["tracks"] == {"saxony": "P2", "russia": 1, "italy": 0}
    assert state["pools"] == {"AU": 8, "FR": 11, "PR": 11, "PA": 8}
    groups = state["politics"]["groups"]
    assert [len(groups[g]) for g in "ABC"] == [9, 8, 8]
    assert groups["A"] != sorted(groups["A"]) or groups["B"] != sorted(groups["B"])
    assert state["troop_totals"]["FR"] == 26 and state["troop_totals"]["PA"] == 14
    state = adjudicate.resolve(state, {}, _rng("s")).state
    phase = adjudicate.current_phase(state)
    assert (phase.id, phase.kind, phase.powers) == ("1741-1/politics", "politics",
                                                     ("AU", "FR", "PR", "PA"))
    assert len(state["politics"]["revealed"]) == 2 and state["politics"]["trump"] in "SHDC"


def test_single_deck_mode_shuffles_every_political_card_into_one_pile() -> None:
    """M9.2 (``politics.deck_mode: single``): one pile of all 25 cards, shuffled, for every turn
    of the game, so turn 1 reveals the top two of it."""
    state = adjudicate.new_game("advanced", {"politics.deck_mode": "single"}, _rng())
    pol = state["politics"]
    assert list(pol["groups"]) == ["all"] and pol["ranges"] == {"all": [1, 99]}
    pile = list(pol["groups"]["all"])
    assert len(pile) == 25 and pile != sorted(pile)
    state = adjudicate.resolve(state, {}, _rng("s")).state
    assert state["politics"]["revealed"] == pile[:2]


def test_unknown_political_deck_is_refused() -> None:
    from pbem.games.maria.board import load_board
    from pbem.games.maria.political import board_regions, load_deck, parse_deck

    board = load_board()
    with pytest.raises(DataError, match="no political deck"):
        load_deck(board, "no-such-deck")
    bad = {"groups": {"A": {"turns": [1, 4]}},
           "cards": [{"id": "X1", "group": "A", "name": "x", "name_zh": 7, "effects": [
               {"effect": "teleport", "args": []},
               {"effect": "draw", "args": ["XX", 0]},
               {"effect": "move_track", "args": ["italy", 1, "prussia"]},
               {"effect": "retire_markers", "args": ["FR", "atlantis"]},
               {"effect": "draw", "args": ["FR", 1], "if": {"track_in": ["moon", 0, 1]}}]}]}
    with pytest.raises(DataError) as err:
        parse_deck(bad, "bad.yaml", board_regions(board))
    text = " | ".join(err.value.problems)
    for part in ("teleport", "'XX'", "prussia", "atlantis", "moon", "X1: 'name_zh' must be text"):
        assert part in text, part
    deck = load_deck(board)
    assert len(deck["titles_zh"]) == len(deck["cards"]) == 25  # every card has its Chinese title


def test_phases_of_the_first_turn_and_their_powers() -> None:
    state = _new()
    phase = adjudicate.current_phase(state)
    assert (phase.id, phase.kind, phase.deadline_kind) == ("setup", "setup", "setup")
    assert phase.powers == ("FR", "BA", "PR", "SX", "AU")
    seen = []
    rng = Rng(b"phases")
    while len(seen) < 6:
        state = adjudicate.resolve(state, {}, _rng(str(len(seen)))).state
        phase = adjudicate.current_phase(state)
        seen.append((phase.id, phase.powers))
    assert seen == [
        ("1741-1/hussars", ("AU",)),
        ("1741-1/france", ("FR", "BA")),
        ("1741-1/prussia", ("PR", "SX")),
        ("1741-1/austria", ("AU",)),
        ("1741-2/hussars", ("AU",)),
        ("1741-2/france", ("FR", "BA")),
    ]
    del rng


def test_missed_setup_gets_default_split_and_hands() -> None:
    state = adjudicate.resolve(_new(), {}, _rng()).state
    gens = state["generals"]
    assert gens["belle_isle"]["troops"] == 6 and gens["broglie"]["troops"] == 5
    assert gens["toerring"]["troops"] == 5 and gens["rutowski"]["troops"] == 5
    # starting hands are the base draws (M1.9) in the order FR, BA, PR, SX, AU (M2.1)
    sizes = {p: len(h) for p, h in state["cards"]["hands"].items()}
    assert sizes == {"FR": 5, "BA": 1, "PR": 5, "SX": 1, "AU": 5}


def test_validation_paths_and_messages() -> None:
    state = adjudicate.resolve(_new(), {}, _rng()).state  # hussars
    problems = orders.validate(state, "AU", {"hussars": ["atlantis"], "moves": []})
    assert [str(p) for p in problems] == [
        "orders.AU.moves: 'moves' is not an order of this round (hussars); allowed: hussars, "
        "standing, deals",
        "orders.AU.hussars[0]: there is no city 'atlantis' on the map",
    ]
    state = adjudicate.resolve(state, {}, _rng("h")).state  # FR stage
    board = model.board_of(state)
    city = state["generals"]["broglie"]["city"]
    far = next(c for c in sorted(board.cities) if board.distance(city, c) == 2)
    problems = orders.validate(state, "FR", {"moves": [{"piece": "broglie", "path": [far]}]})
    assert problems and problems[0].path == "orders.FR.moves[0].path[0]"
    assert "is not a road neighbour of" in problems[0].message
    problems = orders.validate(state, "FR", {"moves": [{"piece": "karl", "path": [far]}]})
    assert problems[0].message == "karl is not yours to move"
    assert orders.validate(state, "FR", {"standing": {"hussar_policy": "maybe"}})[0].path == \
        "orders.FR.standing.hussar_policy"


def test_setup_validation() -> None:
    state = _new()
    p = orders.validate(state, "FR", {"troops": {"belle_isle": 9, "broglie": 2}})
    assert p[0].message == "belle_isle must get 6 to 8 troops, not 9"
    assert orders.validate(state, "FR", {"troops": {"belle_isle": 6, "broglie": 5}}) == []


def test_views_show_only_own_secrets() -> None:
    state = adjudicate.resolve(_new(), {}, _rng()).state
    public = views.view(state, "public")
    assert all(g["troops"] is None for g in public["map"]["generals"])
    assert public["hand_sizes"]["FR"] == 5 and public["draw_pile"] == 152 - 17
    louis = views.view(state, "louis")
    assert set(louis["own"]) == {"FR", "BA"}
    troops = {g["id"]: g["troops"] for g in louis["map"]["generals"]}
    assert troops["broglie"] == 5 and troops["karl"] is None
    text = json.dumps(louis)
    for card in state["cards"]["hands"]["AU"] + state["cards"]["draw"]:
        assert f'"{card}"' not in text
    with pytest.raises(KeyError):
        views.view(state, "nobody")


def test_secrets_owners() -> None:
    state = adjudicate.resolve(_new(), {}, _rng()).state
    owners = {s.label: s.owner for s in views.secrets(state)}
    assert owners["hand:FR"] == "louis" and owners["hand:BA"] == "louis"
    assert owners["troops:AU"] == "maria_theresa" and owners["hand:SX"] == "frederick"
    assert owners["draw_pile"] is None


def test_legal_orders_of_a_stage() -> None:
    state = adjudicate.resolve(_new(), {}, _rng()).state
    state = adjudicate.resolve(state, {}, _rng("h")).state
    legal = bots.legal_orders(state, "FR")
    assert legal["kind"] == "stage" and "broglie" in legal["moves"]
    for dest, path in legal["moves"]["broglie"]["paths"].items():
        assert path[-1] == dest
        assert orders.validate(state, "FR", {"moves": [{"piece": "broglie", "path": path}]}) == []
    assert bots.legal_orders(state, "AU") == {"kind": "stage", "phase_power": False}


@pytest.mark.parametrize("kind", KINDS)
def test_examples_match_their_schema(kind: str) -> None:
    folder = orders_dir() / "maria"
    schema = json.loads((folder / f"{kind}.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    example = yaml.safe_load((folder / f"{kind}.example.yaml").read_text("utf-8"))
    jsonschema.validate(example["orders"], schema)
    form = yaml.safe_load((folder / f"{kind}.form.yaml").read_text("utf-8"))
    assert "orders" in form


def test_schema_refuses_unknown_fields() -> None:
    schema = json.loads((orders_dir() / "maria" / "stage.schema.json").read_text("utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"FR": {"mvoes": []}}, schema)


def test_default_splits_match_the_rules_table() -> None:
    """maria.md "Default splits" (M1.7), introductory game."""
    state = adjudicate.resolve(_new(), {}, _rng()).state
    troops = {g: v["troops"] for g, v in state["generals"].items()}
    assert troops == {
        "belle_isle": 6, "broglie": 5, "toerring": 5,
        "karl": 6, "traun": 5, "khevenhueller": 6, "batthyany": 2, "neipperg": 5,
        "friedrich": 6, "schwerin": 6, "leopold": 4, "dessauer": 6, "rutowski": 5,
    }


def test_default_splits_of_the_full_forces() -> None:
    """maria.md "Default splits" (M1.7), all generals (the advanced game's forces)."""
    board, forces = board_and_forces()
    got = {}
    for power in ("FR", "AU", "PA"):
        gens = [{"id": g.id, "rank": g.rank, "min": g.minimum} for g in forces.generals_of(power)]
        got.update(model.default_split(gens, forces.powers[power].troops, 8))
    assert got == {"moritz": 7, "belle_isle": 6, "broglie": 5, "maillebois": 4, "noailles": 4,
                   "karl": 6, "traun": 5, "khevenhueller": 6, "batthyany": 2, "neipperg": 5,
                   "arenberg": 4, "george_ii": 5, "cumberland": 5, "stair": 4}


def test_default_orders() -> None:
    """M12.6: the default split at set-up, nothing otherwise; resolving the defaults equals
    resolving nothing."""
    state = _new()
    defaults = {p: orders.default_orders(state, p) for p in state["powers"]}
    assert defaults["FR"] == {"troops": {"belle_isle": 6, "broglie": 5}}
    assert all(orders.validate(state, p, o) == [] for p, o in defaults.items())
    with_defaults = adjudicate.resolve(state, defaults, _rng()).state
    assert with_defaults == adjudicate.resolve(state, {}, _rng()).state
    assert orders.default_orders(with_defaults, "AU") == {}


def test_a_sudden_victory_ends_the_game_on_the_real_map() -> None:
    """M10.1, M4.9: Prussia takes its 12th Austrian or Silesian fortress in its stage; the game
    ends at step (f) and no round follows."""
    state = adjudicate.resolve(_new(), {}, _rng()).state          # -> hussars
    state = adjudicate.resolve(state, {}, _rng("h")).state        # -> FR stage
    state = adjudicate.resolve(state, {}, _rng("f")).state        # -> PR stage
    board = model.board_of(state)
    assert adjudicate.current_phase(state).id == "1741-1/prussia"
    wanted = sorted(f for f in board.fortresses() if board.map_of(f) == "bohemia" and (
        board.home_of(f) == "AU" or board.territory_of(f) == "silesia"))
    # Austria leaves the map; Prussia holds 11 and stands next to a 12th.
    for g in state["generals"].values():
        if g["power"] == "AU":
            g["city"], g["troops"] = None, 0
    target = next(f for f in wanted if model.controller(state, board, f) != "PR"
                  and any(not model.generals_in(state, n) for n in board.neighbours(f)))
    start = next(n for n in board.neighbours(target) if not model.generals_in(state, n)
                 and not model.trains_in(state, n))
    held = [f for f in wanted if f != target][:11]
    for f in held:
        model.set_control(state, board, f, "PR", True)
    state["generals"]["dessauer"]["city"] = start
    state["generals"]["dessauer"]["face_down"] = False
    res = adjudicate.resolve(state, {"PR": {"moves": [{"piece": "dessauer", "path": [target]}]}},
                             _rng("p"))
    result = res.state["result"]
    assert (result["winner"], result["player"]) == ("PR", "frederick")
    assert result["reason"].startswith("M10.1 Prussia controls 1")
    assert adjudicate.current_phase(res.state) is None
    assert res.events[-1]["type"] == "game_over"
    assert adjudicate.resolve(res.state, {}, _rng("z")).events == []


def _advanced_politics() -> dict:
    state = adjudicate.new_game("advanced", {}, _rng())
    return adjudicate.resolve(state, {}, _rng("s")).state


def test_political_orders_are_checked_before_sending() -> None:
    """M12.8, M11.4, M9.4, M9.9: what validate says about political orders."""
    state = _advanced_politics()
    hand = state["cards"]["hands"]["FR"]
    card = next(c for c in hand if not c.startswith("R"))
    revealed = state["politics"]["revealed"]
    good = {"bid": {card[0]: card}, "choices": [revealed[0], "keep"],
            "cards": {revealed[0]: {"execute": True}},
            "subsidies": [{"to": "BA", "card": card}]}
    assert orders.validate(state, "FR", good) == []
    bad = {"bid": {"X": "pass", "S": "S7", "H": "R.1a"}, "choices": ["PC99"],
           "accept_peace": True, "subsidies": [{"to": "AU", "card": card}],
           "salt": "x", "hussars": ["wien"]}
    paths = {p.path for p in orders.validate(state, "FR", bad)}
    assert {"orders.FR.bid.X", "orders.FR.bid.S", "orders.FR.bid.H", "orders.FR.choices[0]",
            "orders.FR.accept_peace", "orders.FR.subsidies[0].to", "orders.FR.salt",
            "orders.FR.hussars"} <= paths


def test_card_instructions_are_checked_before_sending() -> None:
    """M12.8, M9.19: the fields of a card's instructions are what the rules read."""
    state = _advanced_politics()
    cards = state["politics"]["cards"]
    card = max(state["politics"]["revealed"], key=lambda c: len(cards[c]["effects"]))
    n = len(cards[card]["effects"])
    assert n >= 2
    good = {"cards": {card: {"execute": True, "effects": {"1": {"skip": False, "steps": 1, "toward": "up",
                                                                "pieces": ["friedrich"], "site": "wien"}}}}}
    assert orders.validate(state, "FR", good) == []
    bad = {"cards": {card: {"execute": "maybe", "effects": {
        "0": {}, "1": {"skip": "no", "steps": -1, "toward": "north", "pieces": ["nobody"], "site": "atlantis"},
        str(n): {"colour": "red"}}}}}
    base = f"orders.FR.cards.{card}"
    assert [str(p) for p in orders.validate(state, "FR", bad)] == [
        f"{base}.execute: must be yes or no",
        f"{base}.effects.0: '0' is not an effect of this card; it has effects 1 to {n}",
        f"{base}.effects.1.skip: must be yes or no",
        f"{base}.effects.1.steps: must be a whole number of at least 0",
        f"{base}.effects.1.toward: is one of prussia, austria (Saxony), up, down (Russia), france, austria (Italy)",
        f"{base}.effects.1.pieces[0]: there is no piece 'nobody'",
        f"{base}.effects.1.site: there is no city 'atlantis' on the map",
        f"{base}.effects.{n}: an effect's instructions are {{skip, steps, toward, pieces, site}}",
    ]


def test_standing_answers_to_owner_choices_are_checked_before_sending() -> None:
    """M12.3, M9.19: the owner's standing answers name its own generals and pieces, real cities
    and card ids; pbem check says which entry is wrong and why."""
    state = _advanced_politics()
    board = model.board_of(state)
    own = sorted(g for g, v in state["generals"].items() if v["power"] == "PR")
    au = next(g for g, v in state["generals"].items() if v["power"] == "AU")
    city = sorted(board.cities)[0]
    good = {"standing": {"troop_gain_preference": own[:2], "troop_loss_preference": own[1:],
                         "withdraw_preference": own[:1], "block_preference": [own[0], "pr_1"],
                         "discard_preference": ["C9", "R.1a"], "marker_return_preference": [city],
                         "train_site_preference": [city], "loss_order": [own[0], au]}}
    assert orders.validate(state, "PR", good) == []
    bad = {"standing": {"troop_gain_preference": [au, "nobody"], "troop_loss_preference": "friedrich",
                        "block_preference": ["au_1"], "discard_preference": ["X9"],
                        "marker_return_preference": ["atlantis"], "train_site_preference": [7]}}
    assert [str(p) for p in orders.validate(state, "PR", bad)] == [
        f"orders.PR.standing.troop_gain_preference[0]: {au} is not a general of Prussia",
        "orders.PR.standing.troop_gain_preference[1]: there is no general 'nobody'",
        "orders.PR.standing.troop_loss_preference: must be a list",
        "orders.PR.standing.block_preference[0]: 'au_1' is not a general or supply train of Prussia",
        "orders.PR.standing.discard_preference[0]: 'X9' is not a card id (e.g. H7.2 or H7)",
        "orders.PR.standing.marker_return_preference[0]: there is no city 'atlantis' on the map",
        "orders.PR.standing.train_site_preference[0]: there is no city '7' on the map",
    ]
    # null clears a standing order (M12.3): pbem check, the schema and the round all agree
    cleared = {"standing": {"troop_gain_preference": None, "hussar_policy": None, "default_plan": None}}
    assert orders.validate(state, "PR", cleared) == []
    for kind in ("politics", "stage"):
        jsonschema.validate({"PR": cleared}, json.loads((orders_dir() / "maria" / f"{kind}.schema.json").read_text("utf-8")))
    state["standing"]["PR"] = {"troop_gain_preference": own[:1], "hussar_policy": "refuse"}
    after = adjudicate.resolve(state, {"PR": cleared}, _rng("c")).state
    assert "troop_gain_preference" not in after["standing"]["PR"] and "hussar_policy" not in after["standing"]["PR"]


def test_legal_and_bot_orders_of_the_politics_round() -> None:
    state = _advanced_politics()
    for power in ("AU", "FR", "PR", "PA"):
        legal = bots.legal_orders(state, power)
        assert legal["kind"] == "politics" and legal["phase_power"]
        assert legal["revealed"] == state["politics"]["revealed"]
        o = bots.bot_orders(state, power, Rng(power.encode()))
        assert orders.validate(state, power, o) == [], power
    assert bots.legal_orders(state, "BA") == {"kind": "politics", "phase_power": False}
    assert orders.default_orders(state, "AU") == {}  # M12.6: pass and keep


def test_a_game_master_deck_is_loaded_from_its_file(tmp_path: Any, monkeypatch: Any) -> None:
    """M9.20: a GM may load another deck in the same format (named by the scenario)."""
    from pbem.games.maria import political
    from pbem.games.maria.board import load_board

    (tmp_path / "maria").mkdir()
    (tmp_path / "maria" / "printed.yaml").write_text(
        "deck: printed\ngroups: {A: {turns: [1, 12]}}\ncards:\n"
        "  - {id: P1, group: A, name: One, effects: [{effect: draw, args: [taker, 2]}]}\n"
        "  - {id: P2, group: A, name: Two, effects: [{effect: offer_peace, args: []}]}\n",
        "utf-8")
    monkeypatch.setattr(political, "seeds_dir", lambda: tmp_path)
    deck = political.load_deck(load_board(), "printed")
    assert deck["deck"] == "printed" and sorted(deck["cards"]) == ["P1", "P2"]
    assert deck["groups"] == {"A": [1, 12]}


def test_in_supply_with_a_table_answers_the_same_and_keeps_each_powers_facts() -> None:
    """A caller asking for many generals in one position (the winter bot) passes a table that
    remembers each power's train and blocked cities: the answers are those without it."""
    from pbem.games.maria.rules.supply import in_supply, path_blocked_cities, train_cities
    from pbem.games.maria.selfplay import play

    states: list[dict[str, Any]] = []
    play(3, scenario="advanced", check=lambda state, _orders, _events: states.append(state))
    board = model.board_of(states[0])
    kept = 0
    for state in states[::5]:
        known: dict[str, tuple[set[str], set[str]]] = {}
        for g in model.on_map(state):
            assert in_supply(state, board, g, known) == in_supply(state, board, g)
        for power, (targets, blocked) in known.items():
            assert targets == train_cities(state, power)
            assert blocked == path_blocked_cities(state, board, power)
        kept += len(known)
    assert kept > 0
