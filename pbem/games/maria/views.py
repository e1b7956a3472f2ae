"""What each audience may see (M11): the only road from the state to a report.

The public view holds positions, faces, hussars, fortress control, hand and pile sizes, the
discard pile and the turn; a seat's view adds the hands, troop counts and standing orders of the
powers it plays. No other seat's secret is ever copied into a view.
"""

from __future__ import annotations

import copy
from typing import Any

from pbem.games.base import Secret
from pbem.games.maria import model
from pbem.games.maria.adjudicate import FIRST_YEAR, phase_id

STEP_TITLES = {"hussars": "hussars", "france": "France and Bavaria",
               "prussia": "Prussia and Saxony", "austria": "Austria", "winter": "winter",
               "setup": "set-up", "over": "end of the game", "politics": "politics"}


def title(state: dict[str, Any]) -> str:
    """``1741, turn 1 — Prussia and Saxony``."""
    turn, step = state["turn"], state["step"]
    if step == "setup":
        return f"{FIRST_YEAR}, set-up"
    year = FIRST_YEAR + (max(turn, 1) - 1) // 3
    if step == "winter":
        return f"{year}, winter"
    # the turn of the year, as the phase's name has it (1743-3/austria: 1743, turn 3)
    return f"{year}, turn {(max(turn, 1) - 1) % 3 + 1} \u2014 {STEP_TITLES.get(step, step)}"


def map_view(state: dict[str, Any], own: set[str]) -> dict[str, Any]:
    """The map view of maria-formats.md; troops only for generals of the powers in ``own``."""
    gens = state["generals"]
    generals = [
        {"id": g, "name": gens[g]["name"], "power": gens[g]["power"], "rank": gens[g]["rank"],
         "city": gens[g]["city"], "face_down": gens[g]["face_down"],
         "blocked": bool(gens[g].get("blocked")),
         "troops": gens[g]["troops"] if gens[g]["power"] in own else None}
        for g in model.on_map(state)
    ]
    trains = [{"id": t, "power": v["power"], "city": v["city"]}
              for t, v in sorted(state["trains"].items()) if v["city"] is not None]
    return {
        "generals": generals,
        "trains": trains,
        "hussars": list(state["hussars"]),
        "control": copy.deepcopy(state["control"]),
        "turn": state["turn"],
        "title": title(state),
    }


def advanced_view(state: dict[str, Any]) -> dict[str, Any]:
    """The public display of the advanced game (M11.5): tracks, boxes, markers, scores, the
    revealed political cards, the trump, the bids on the display, the published commitments,
    neutral powers and withdrawn or blocked pieces. The deck order and the bid maps and salts
    stay secret until the game is over (M11.4, M11.8)."""
    pol = state["politics"]
    out: dict[str, Any] = {
        "boxes": copy.deepcopy(state.get("boxes", {})),
        "set_aside": copy.deepcopy(state.get("set_aside", {})),
        "out_of_game": copy.deepcopy(state.get("out_of_game", {})),
        "scores": copy.deepcopy(state.get("scores", {})),
        "election": copy.deepcopy(state.get("election")),
        "peace": copy.deepcopy(state.get("peace")),
        "politics": {
            "revealed": [{"id": c, "name": pol["cards"][c]["name"],
                          "effects": copy.deepcopy(pol["cards"][c]["effects"])}
                         for c in pol["revealed"]],
            "trump": pol["trump"],
            "namer": pol["namer"],
            "display": {p: list(v) for p, v in pol["display"].items() if v},
            "commitments": dict(pol.get("commitments", {})),
            "cards_left": {g: len(v) for g, v in pol["groups"].items()},
            "gone": list(pol["gone"]),
        },
        "withdrawn": {g: v["withdrawn"]["kind"] for g, v in sorted(state["generals"].items())
                      if v.get("withdrawn")},
        "blocked_trains": sorted(t for t, v in state["trains"].items() if v.get("blocked")),
        "draw_effects": copy.deepcopy(state.get("draw_effects", [])),
        "hussar_effects": copy.deepcopy(state.get("hussar_effects", [])),
    }
    if state["step"] == "over":
        out["bid_log"] = copy.deepcopy(state.get("bid_log", []))
    return out


def view(state: dict[str, Any], audience: str) -> dict[str, Any]:
    """``public`` or a seat."""
    seats = model.seat_powers(state)
    if audience != "public" and audience not in seats:
        raise KeyError(f"unknown audience '{audience}' (public or one of {', '.join(seats)})")
    own = set(seats.get(audience, []))
    cards = state["cards"]
    out: dict[str, Any] = {
        "game": "maria",
        "scenario": state["scenario"],
        "variant": state["variant"],
        "phase": phase_id(state),
        "turn": state["turn"],
        "step": state["step"],
        "map": map_view(state, own),
        "control": copy.deepcopy(state["control"]),
        "draw_pile": len(cards["draw"]),
        "discard": list(cards["discard"]),
        "eliminated": [g for g in model.general_ids(state) if state["generals"][g]["city"] is None],
        "eliminated_trains": sorted(t for t, v in state["trains"].items() if v["city"] is None),
        "pools": copy.deepcopy(state["pools"]),
        "tracks": copy.deepcopy(state.get("tracks", {})),
        "last_battle_winner": state["last_battle_winner"],
        "seats": seats,
        "neutral": list(state.get("neutral", [])),
        "options": copy.deepcopy(state["options"]),
        "result": copy.deepcopy(state["result"]),
    }
    if "politics" in state:
        out.update(advanced_view(state))
    if state["options"]["hidden.hand_size_public"] or audience != "public":
        out["hand_sizes"] = {p: len(h) for p, h in cards["hands"].items()
                             if state["options"]["hidden.hand_size_public"] or p in own}
    if audience != "public":
        out["audience"] = audience
        out["deals"] = [copy.deepcopy(d) for d in state.get("deals", [])
                        if audience in d["parties"]]
        out["deal_offers"] = [copy.deepcopy(d) for d in state.get("deal_offers", [])
                              if d["from"] == audience]
        out["own"] = {
            p: {
                "hand": list(cards["hands"].get(p, [])),
                "troops": {g: v["troops"] for g, v in state["generals"].items()
                           if v["power"] == p and (v["city"] is not None or v.get("withdrawn"))},
                "standing": copy.deepcopy(state["standing"].get(p, {})),
            }
            for p in seats[audience]
        }
    return out


def secrets(state: dict[str, Any]) -> list[Secret]:
    """Each power's hand and troop numbers (owner: its seat now) and the draw-pile order."""
    out = []
    for p in state["powers"]:
        seat = model.seat_of(state, p)
        out.append(Secret(f"hand:{p}", seat, list(state["cards"]["hands"].get(p, []))))
        troops = {g: v["troops"] for g, v in sorted(state["generals"].items())
                  if v["power"] == p and (v["city"] is not None or v.get("withdrawn"))}
        out.append(Secret(f"troops:{p}", seat, troops))
    out.append(Secret("draw_pile", None, list(state["cards"]["draw"])))
    if "politics" in state:
        pol = state["politics"]
        out.append(Secret("political_deck", None, {g: list(v) for g, v in
                                                   sorted(pol["groups"].items())}))
        out.append(Secret("bids", None, [dict(b) for b in state.get("bid_log", [])]))
    return out
