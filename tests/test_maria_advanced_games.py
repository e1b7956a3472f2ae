"""Fuzz: complete advanced games of Maria between seeded random bots (M9, M10), on both maps,
with the invariants of the introductory fuzz plus the advanced game's: every victory marker in
exactly one place (M1.11), every bid reveal matching its commitment (M11.4), politics that
never show a hand, and every game ending by M10.2-M10.4."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from test_maria_games import _validating_bots

from pbem.games.maria import adjudicate, model, views
from pbem.games.maria.rules.politics import bid_commitment
from pbem.games.maria.rules.tracks import MARKER_POOLS, marker_places
from pbem.games.maria.selfplay import play

GAMES = 100
OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"pbem.commitments": "trustless"},
    {"pbem.rounds": "merge_hussars_into_politics", "game.players": "two"},
    {"politics.deck_mode": "single", "politics.offsuit_carried": "stay_uncounted",
     "politics.bid_ties": "fixed_order_only", "politics.zero_may_take": True},
    {"politics.subsidies": "off", "tracks.saxony.start": "P1", "tracks.russia.start": 3,
     "tracks.italy.start": -2, "tracks.italy.withdraw_general": "at_3"},
    {"victory.check_in_winter": True, "tracks.saxony.defection_marker": "none",
     "pbem.commitments": "trustless", "game.players": "two"},
]
"""Games cycle through these rule options (game ``seed`` uses set ``seed % 6``)."""


class AdvancedInvariants:
    """Checks run after every round of one advanced game."""

    def __init__(self) -> None:
        self.events: Counter[str] = Counter()
        self.commitments: dict[str, str] = {}
        self.reveals = 0

    def __call__(self, state: dict[str, Any], sent: dict[str, Any] | None,
                 events: list[dict[str, Any]]) -> None:
        for e in events:
            self.events[e["type"]] += 1
        assert json.loads(json.dumps(state)) == state, "state does not round-trip through JSON"
        top = state["options"]["troops.max"]
        cities: dict[str, list[str]] = {}
        for gid, g in state["generals"].items():
            if state["step"] == "setup":
                continue
            if g.get("withdrawn"):
                assert g["city"] is None and 1 <= g["troops"] <= top, gid
            elif g["city"] is None:
                assert g["troops"] == 0, f"{gid} is off the map with {g['troops']} troops"
            else:
                assert 1 <= g["troops"] <= top, f"{gid} has {g['troops']} troops (M1.7)"
                cities.setdefault(g["city"], []).append(g["power"])
                board = model.board_of(state)
                assert board.map_of(g["city"]) in ("bohemia", "flanders")
                if g["power"] in ("PR", "SX", "BA"):
                    assert board.map_of(g["city"]) == "bohemia", f"{gid} left Bohemia (M1.4)"
                if g["power"] == "PA":
                    assert board.map_of(g["city"]) == "flanders", f"{gid} left Flanders (M1.4)"
        for city, powers in cities.items():
            assert len(powers) <= 2, f"{city} holds {len(powers)} generals (M3.3)"
            for a in powers:
                for b in powers:
                    assert not model.are_enemies(state, a, b), f"enemies {a}, {b} in {city}"
        cards = state["cards"]
        display = [c for v in state["politics"]["display"].values() for c in v]
        pile = cards["draw"] + cards["discard"] + display + \
            [c for h in cards["hands"].values() for c in h]
        assert len(pile) == 152 and len(set(pile)) == 152, "the 152 cards are not all there once"
        # M1.11: every marker is in exactly one place, and a pool is never negative.
        for p, n in MARKER_POOLS.items():
            places = marker_places(state, p)
            assert places["pool"] >= 0, f"{p}'s pool is negative"
            assert sum(places.values()) == n, f"{p}'s markers: {places} do not add up to {n}"
        # M11.4: every reveal matches its commitment.
        for e in events:
            if e["type"] == "bid_commitments":
                self.commitments = dict(e["commitments"])
            if e["type"] == "bid_reveal":
                self.reveals += 1
                log = {b["power"]: b for b in state["bid_log"] if b["turn"] == e["turn"]}
                for power, card in e["bids"].items():
                    if card == "pass":
                        continue
                    entry = log[power]
                    assert entry["bid"][e["trump"]] == card
                    want = self.commitments[power]
                    assert bid_commitment(e["turn"], power, entry["bid"], entry["salt"]) == want
        # hidden information (M11.3, M11.4, M11.8)
        public = views.view(state, "public")
        text = json.dumps(public)
        hands = [c for h in cards["hands"].values() for c in h]
        if state["step"] != "over":  # the bid maps and salts are released at the end (M11.8)
            assert not any(f'"{c}"' in text for c in hands if c not in cards["discard"])
            assert "bid_log" not in public and '"salt"' not in text
        assert all(g["troops"] is None for g in public["map"]["generals"])


@pytest.mark.slow
def test_100_random_advanced_games(monkeypatch: pytest.MonkeyPatch) -> None:
    _validating_bots(monkeypatch)
    reasons: Counter[str] = Counter()
    events: Counter[str] = Counter()
    reveals = 0
    for seed in range(GAMES):
        options = OPTION_SETS[seed % len(OPTION_SETS)]
        inv = AdvancedInvariants()
        state, rounds = play(seed, scenario="advanced", options=options, check=inv)
        assert adjudicate.current_phase(state) is None
        result = state["result"]
        assert result is not None and result["winner"] in ("AU", "FR", "PR", "PA")
        assert result["player"] == model.seat_of(state, result["winner"])
        reason = result["reason"][:5]
        assert reason in ("M10.2", "M10.3", "M10.4"), result
        if reason == "M10.4":
            assert state["turn"] == 12 and all(len(v) == 4 for v in state["scores"].values())
            sums = {p: sum(v) for p, v in state["scores"].items()}
            assert sums[result["winner"]] == min(sums.values())
        else:
            assert state["pools"][result["winner"]] == 0
        reasons[reason] += 1
        events.update(inv.events)
        reveals += inv.reveals
    # The games must really exercise the advanced rules.
    for kind in ("bid_reveal", "choice", "political_card", "track", "box_filled", "election",
                 "winter_score", "subsidy", "battle", "conquest", "peace_offered", "alliance",
                 "hussars", "recruit", "draw_modifier", "peace", "transfer", "withdrawn",
                 "withdrawal_ended", "bid_refused", "markers_returned", "blocked",
                 "marker_removed", "neutral"):
        assert events[kind] > 0, f"no '{kind}' event in {GAMES} games"
    assert reasons["M10.4"] > 0 and reasons["M10.2"] > 0, reasons
    assert reveals >= GAMES


def test_same_seed_same_advanced_game() -> None:
    a, _ = play(5, scenario="advanced")
    b, _ = play(5, scenario="advanced")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def test_resolve_leaves_the_state_it_was_given_unchanged() -> None:
    """resolve shares the parts no round changes in place (adjudicate.SHARED) instead of copying
    them; a round that changed one of them, or any other part, in place would change the old
    state, which the core resolves again when a player's orders are void."""
    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import bots

    for seed, options in ((3, {}), (4, {"pbem.commitments": "trustless"})):
        root = Rng(f"unchanged-{seed}".encode())
        state = adjudicate.new_game("advanced", options, PhaseRng(root.fork("p"), root.fork("s")),
                                    None, None)
        rounds = 0
        while (phase := adjudicate.current_phase(state)) is not None:
            rng = root.fork(f"bot-{rounds}")
            orders = {p: bots.bot_orders(state, p, rng.fork(p)) for p in phase.powers}
            before = json.dumps(state)
            new = adjudicate.resolve(state, orders, PhaseRng(root.fork(f"p{rounds}"),
                                                             root.fork(f"s{rounds}"))).state
            assert json.dumps(state) == before, f"round {rounds} ({phase.kind}) changed its input"
            state, rounds = new, rounds + 1
        assert rounds > 20 and state["bid_log"]


def test_every_destination_the_bots_find_passes_the_whole_path_check() -> None:
    """The bots' searches walk along roads within the length limits, so only the cities a path
    enters are left to the movement rules (bots.Reach.legal): every path they offer must pass the
    whole check, roads and lengths included (M3.1, M3.6)."""
    from pbem.common.fair import PhaseRng, Rng
    from pbem.games.maria import bots
    from pbem.games.maria.context import Ctx
    from pbem.games.maria.rules.movement import general_path_problem, train_path_problem

    root = Rng(b"every-destination")
    state = adjudicate.new_game("advanced", {}, PhaseRng(root.fork("p"), root.fork("s")),
                                None, None)
    checked = forced = stacked = 0
    rounds = 0
    while (phase := adjudicate.current_phase(state)) is not None and rounds < 25:
        if phase.kind == "stage":
            ctx = Ctx(state, model.board_of(state), PhaseRng(root.fork("c"), root.fork("d")))
            for power in phase.powers:
                legal = bots.legal_orders(state, power)
                for pid, choice in legal["moves"].items():
                    start = (state["generals"].get(pid) or state["trains"][pid])["city"]
                    for force in (False, True):
                        for path in choice.get("force_march" if force else "paths", {}).values():
                            if pid in state["generals"]:
                                problem = general_path_problem(ctx, power, [pid], start, path,
                                                               force)
                            else:
                                problem = train_path_problem(ctx, power, pid, start, path)
                            assert problem is None, (pid, path, problem)
                            checked += 1
                            forced += force
                for stack in legal["stacks"].values():
                    start = state["generals"][stack["stack"][0]]["city"]
                    for path in stack["paths"].values():
                        problem = general_path_problem(ctx, power, stack["stack"], start, path,
                                                       False)
                        assert problem is None, (stack["stack"], path, problem)
                        stacked += 1
        orders = {p: bots.bot_orders(state, p, root.fork(f"bot-{rounds}-{p}"))
                  for p in phase.powers}
        state = adjudicate.resolve(state, orders, PhaseRng(root.fork(f"p{rounds}"),
                                                           root.fork(f"s{rounds}"))).state
        rounds += 1
    assert checked > 500 and forced > 50 and stacked > 0, (checked, forced, stacked)
