"""Adjudication cases of Maria (format in tests/cases/README.md): expand a case's compact
position into a full state on its own mini-map, run the round (or named steps), and compare
the fields the case names."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from typing import Any

from pbem.common.fair import PhaseRng, Rng
from pbem.errors import DataError
from pbem.games.maria import adjudicate, model, shape
from pbem.games.maria.board import parse_board
from pbem.games.maria.cards import is_card_id
from pbem.games.maria.context import Ctx
from pbem.games.maria.rules import (
    battle,
    conquest,
    hussars,
    movement,
    politics,
    supply,
    tracks,
    victory,
    winter,
)
from pbem.games.maria.views import view

_GENERAL = re.compile(
    r"^(?P<power>FR|BA|PR|SX|AU|PA)(?P<rank>\d+)\s+(?P<city>[a-z0-9_]+|-)\s+(?P<troops>\d+)"
    r"(?P<flags>(\s+\S+)*)$"
)


def case_board(case: dict[str, Any]) -> Any:
    """The case's mini-map as a Board (``mapfile.parse_board(..., playable=False)``)."""
    raw = case.get("map")
    if not isinstance(raw, dict):
        raise DataError("a Maria case needs 'map:' with 'cities:' and 'roads:'")
    cities = []
    for cid, spec in (raw.get("cities") or {}).items():
        spec = dict(spec or {})
        if isinstance(spec.get("suit"), str) and "sector" not in spec:
            spec["sector"] = {"S": "G1", "H": "G2", "D": "G3", "C": "G4"}.get(spec["suit"], "G1")
        cities.append({"id": cid, "name": spec.pop("name", cid.capitalize()),
                       "territory": spec.pop("territory", "neutral"), **spec})
    digest = hashlib.sha256(json.dumps(raw, sort_keys=True).encode()).hexdigest()[:12]
    data = {"map": f"case-{digest}", "cities": cities, "roads": raw.get("roads") or []}
    board = parse_board(data, f"case map {digest}", playable=False)
    model.register_board(board)
    return board


def _general(gid: str, spec: Any) -> dict[str, Any]:
    if isinstance(spec, str):
        m = _GENERAL.match(spec.strip())
        if not m:
            raise DataError(f"general {gid}: '{spec}' is not 'POWERrank city troops [down] "
                            "[min=N] [failed=N] [blocked]'")
        flags = m.group("flags").split()
        g = adjudicate.new_general(gid, m.group("power"), int(m.group("rank")), None,
                                   None if m.group("city") == "-" else m.group("city"))
        g["troops"] = int(m.group("troops"))
        for f in flags:
            if f == "down":
                g["face_down"] = True
                g["supply_failures"] = max(g["supply_failures"], 1)
            elif f == "blocked":
                g["blocked"] = True
            elif f.startswith("min="):
                g["min"] = int(f[4:])
            elif f.startswith("failed="):
                g["supply_failures"] = int(f[7:])
            elif f.startswith("withdrawn="):
                kind, _, until = f[10:].partition(":")
                g["withdrawn"] = {"kind": kind, **({"until": int(until)} if until else {})}
            else:
                raise DataError(f"general {gid}: unknown flag '{f}'")
        return g
    if not isinstance(spec, dict):
        raise DataError(f"general {gid}: expected a string or a mapping")
    g = adjudicate.new_general(spec.get("name", gid), spec["power"], int(spec.get("rank", 1)),
                               spec.get("min"), spec.get("city"))
    g["troops"] = int(spec.get("troops", 1))
    g["face_down"] = bool(spec.get("face_down", False))
    g["supply_failures"] = int(spec.get("supply_failures", 1 if g["face_down"] else 0))
    g["blocked"] = bool(spec.get("blocked", False))
    if spec.get("withdrawn"):
        g["withdrawn"] = dict(spec["withdrawn"])
    return g


def _cards(field: str, ids: Any) -> list[str]:
    """The tactical card ids of a hand or pile; a DataError naming the entry for a bad one."""
    if ids is None:
        return []
    if not isinstance(ids, list):
        raise DataError(f"{field}: expected a list of card ids, got {ids!r}")
    for i, cid in enumerate(ids):
        if not is_card_id(cid):
            raise DataError(f"{field}[{i}]: {cid!r} is not a tactical card id (expected e.g. 'H7.2' or 'R.3a')")
    return list(ids)


def case_state(case: dict[str, Any], board: Any) -> dict[str, Any]:
    """Expand the compact ``state:`` of a case into a full game state."""
    pos = case.get("state") or {}
    scen = model.scenario_data(case.get("scenario", "intro"))
    opts = model.resolve_options(scen.get("options"), case.get("options"))
    powers = pos.get("powers") or [p for p in model.POWERS if p in scen["powers"]]
    state = adjudicate.empty_state(scen, opts, board.id, list(powers))
    state["maps"] = sorted({c.map for c in board.cities.values()} | set(state["maps"]))
    state["turn"] = int(pos.get("turn", 1))
    state["step"] = pos.get("step", "france")
    for gid, spec in (pos.get("generals") or {}).items():
        state["generals"][gid] = _general(gid, spec)
    for tid, spec in (pos.get("trains") or {}).items():
        if isinstance(spec, str):
            power, _, city = spec.partition(" ")
            spec = {"power": power, "city": None if city.strip() in ("", "-") else city.strip()}
        state["trains"][tid] = {"power": spec["power"], "city": spec.get("city")}
        if spec.get("blocked"):
            state["trains"][tid]["blocked"] = True
    state["train_max"] = {p: 3 for p in powers}
    state["train_max"].update(pos.get("train_max") or {})
    state["troop_totals"] = dict(pos.get("troop_totals") or {})
    for p, hand in (pos.get("hands") or {}).items():
        state["cards"]["hands"][p] = _cards(f"state.hands.{p}", hand)
    state["cards"]["draw"] = _cards("state.draw", pos.get("draw"))
    state["cards"]["discard"] = _cards("state.discard", pos.get("discard"))
    for city, spec in (pos.get("control") or {}).items():
        if isinstance(spec, str):
            spec = {"power": None if spec == "none" else spec.rstrip("+"),
                    "marker": spec.endswith("+")}
        model.set_control(state, board, city, spec["power"], bool(spec.get("marker")))
    state["hussars"] = list(pos.get("hussars") or [])
    state["deal_offers"] = [dict(d) for d in pos.get("deal_offers") or []]
    for p, st in (pos.get("standing") or {}).items():
        state["standing"][p] = copy.deepcopy(st)
    state["last_battle_winner"] = pos.get("last_battle_winner")
    state["neutral"] = list(pos.get("neutral") or [])
    if state["step"] in model.STAGES:
        state["stage_record"]["acting"] = model.stage_powers(state, state["step"])
    if not model.is_intro(state):
        advanced_case_state(state, pos)
    for p in pos.get("pending") or []:
        state["stage_record"]["pending"].append(dict(p))
    state["stage_record"]["lost"] = list(pos.get("lost") or [])
    state["stage_record"]["moved"] = list(pos.get("moved") or [])
    return state


ADVANCED_KEYS = ("pools", "boxes", "scores", "set_aside", "out_of_game", "peace", "election",
                 "draw_effects", "blocks", "hussar_effects", "track_firsts", "electoral_done",
                 "peace_made", "withdraw_waiting")


def advanced_case_state(state: dict[str, Any], pos: dict[str, Any]) -> None:
    """The advanced game's part of a case position: tracks, pools, boxes, the political
    display (``politics: {revealed, display, trump, namer, groups, commitments, cards}``;
    ``cards`` adds made-up political cards in the deck format, M9.19)."""
    from pbem.games.maria.board import load_board
    from pbem.games.maria.political import load_deck
    from pbem.games.maria.rules import politics

    state["tracks"].update(pos.get("tracks") or {})
    for key in ADVANCED_KEYS:
        if key in pos:
            if isinstance(state.get(key), dict) and isinstance(pos[key], dict):
                state[key].update(copy.deepcopy(pos[key]))
            else:
                state[key] = copy.deepcopy(pos[key])
    if "alliances" in pos:
        state["alliances"].update(pos["alliances"])
    pol = politics.new_politics(load_deck(load_board()), None)
    extra = (pos.get("politics") or {})
    for cid, card in (extra.get("cards") or {}).items():
        pol["cards"][cid] = {"group": card.get("group", "A"), "name": card.get("name", cid),
                             "effects": [dict(e) for e in card["effects"]]}
    for key in ("revealed", "trump", "namer", "groups", "commitments", "gone"):
        if key in extra:
            pol[key] = copy.deepcopy(extra[key])
    pol["ranges"] = {g: pol["ranges"].get(g, [1, 99]) for g in pol["groups"]}
    for p, cards in (extra.get("display") or {}).items():
        pol["display"][p] = list(cards)
    state["politics"] = pol


def _rng() -> PhaseRng:
    return PhaseRng(Rng(b"maria-case-public"), Rng(b"maria-case-secret"))


def run_steps(state: dict[str, Any], orders: dict[str, Any], steps: list[str]
              ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run the named steps of the current round on a copy of ``state``."""
    st = copy.deepcopy(state)
    ctx = Ctx(st, model.board_of(st), _rng())
    stage = st["step"]
    acting = list(st["stage_record"].get("acting") or [])
    for power, o in sorted(orders.items()):
        adjudicate.apply_standing(ctx, power, (o or {}).get("standing"))
    for step in steps:
        if step == "start":
            adjudicate.start_stage(ctx, stage)
            acting = list(st["stage_record"]["acting"])
        elif step == "draw":
            for p in acting:
                n = int(ctx.opt("cards.draws").get(p, 0))
                model.draw_cards(st, p, n, ctx.rng.secret)
        elif step == "supply":
            supply.supply_step(ctx, acting)
        elif step == "movement":
            movement.run_movement(ctx, acting, orders)
        elif step == "combat":
            battle.fight_battles(ctx, acting, orders)
        elif step == "conquest":
            conquest.retroactive(ctx, acting)
        elif step == "victory":
            won = victory.check_stage(st, ctx.board)
            if won:
                adjudicate.finish(ctx, won)
        elif step == "hussars":
            hussars.place_hussars(ctx, orders.get("AU") or {})
        elif step == "winter":
            winter.start_winter(ctx)
            winter.run_winter(ctx, orders)
        elif step == "setup":
            adjudicate.run_setup(ctx, orders)
        elif step == "politics_open":
            politics.start_politics(ctx)
        elif step == "commit":
            politics.run_commit(ctx, _shaped(ctx, orders, shape.commit))
        elif step == "politics":
            adjudicate.run_politics_round(ctx, _shaped(ctx, orders, shape.politics))
        elif step == "election":
            tracks.election(ctx, "M9.14")
        elif step == "score":
            adjudicate.end_winter(ctx)
        elif step == "withdrawn":
            tracks.return_withdrawn(ctx, acting)
        elif step == "stage_end":
            tracks.end_of_stage(ctx, acting)
            tracks.electoral_boxes(ctx)
        else:
            raise DataError(f"unknown step '{step}' (start, draw, supply, movement, combat, "
                            "conquest, victory, hussars, winter, setup, politics_open, "
                            "commit, politics, election, score, withdrawn, stage_end)")
    return st, ctx.events


def _shaped(ctx: Ctx, orders: dict[str, Any], shaper: Any) -> dict[str, dict[str, Any]]:
    """Orders brought to shape as a real round does (M12.2)."""
    out = {}
    for power, o in sorted(orders.items()):
        if isinstance(o, dict):
            out[power] = shaper(o, lambda where, reason, p=power: ctx.void(p, where, reason))
    return out


def _match(want: Any, got: Any) -> bool:
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _match(v, got[k])
                                             for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(want) == len(got) and all(
            _match(w, g) for w, g in zip(want, got, strict=True))
    return bool(want == got)


def _show(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False, sort_keys=True)


def _dig(state: dict[str, Any], path: str) -> Any:
    cur: Any = state
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return "<missing>"
    return cur


def compare(expect: dict[str, Any], state: dict[str, Any], events: list[dict[str, Any]],
            board: Any) -> list[str]:
    """``expected …, got …`` lines for every named field that differs."""
    out: list[str] = []
    for gid, want in (expect.get("generals") or {}).items():
        got = state["generals"].get(gid)
        if isinstance(want, str):
            want = {"city": None if want == "-" else want}
        for k, v in want.items():
            g = None if got is None else got.get(k)
            if g != v:
                out.append(f"expected generals.{gid}.{k} = {_show(v)}, got {_show(g)}")
    for tid, want in (expect.get("trains") or {}).items():
        got = state["trains"].get(tid, {}).get("city")
        if got != want:
            out.append(f"expected trains.{tid} in {_show(want)}, got {_show(got)}")
    for p, want in (expect.get("hands") or {}).items():
        got = state["cards"]["hands"].get(p)
        if sorted(got or []) != sorted(want):
            out.append(f"expected hands.{p} = {_show(sorted(want))}, got {_show(sorted(got or []))}")
    if "discard" in expect and state["cards"]["discard"] != expect["discard"]:
        out.append(f"expected discard = {_show(expect['discard'])}, got "
                   f"{_show(state['cards']['discard'])}")
    if "draw" in expect and state["cards"]["draw"] != expect["draw"]:
        out.append(f"expected draw = {_show(expect['draw'])}, got {_show(state['cards']['draw'])}")
    for city, want in (expect.get("controller") or {}).items():
        got = model.controller(state, board, city)
        if got != want:
            out.append(f"expected {city} controlled by {_show(want)}, got {_show(got)}")
    for city, want in (expect.get("control") or {}).items():
        got = state["control"].get(city)
        if isinstance(want, str):
            want = {"power": want.rstrip("+"), "marker": want.endswith("+")}
        if got != want:
            out.append(f"expected control.{city} = {_show(want)}, got {_show(got)}")
    if "hussars" in expect and sorted(state["hussars"]) != sorted(expect["hussars"]):
        out.append(f"expected hussars {_show(expect['hussars'])}, got {_show(state['hussars'])}")
    if "phase" in expect:
        got = adjudicate.phase_id(state)
        if got != expect["phase"]:
            out.append(f"expected phase {_show(expect['phase'])}, got {_show(got)}")
    if "result" in expect and not _match(expect["result"], state["result"]):
        out.append(f"expected result {_show(expect['result'])}, got {_show(state['result'])}")
    for path, want in (expect.get("state") or {}).items():
        got = _dig(state, path)
        if not _match(want, got):
            out.append(f"expected {path} = {_show(want)}, got {_show(got)}")
    for audience, seen in (expect.get("view") or {}).items():
        shown_view = view(state, audience)
        if not _match(seen, shown_view):
            shown = ({k: shown_view.get(k) for k in seen} if isinstance(seen, dict)
                     else shown_view)
            out.append(f"expected view({audience}) to hold {_show(seen)}, got {_show(shown)}")
    for audience, keys in (expect.get("view_lacks") or {}).items():
        text = _show(view(state, audience))
        for k in keys:
            if k in text:
                out.append(f"expected view({audience}) not to contain {k!r}, got it")
    pos = 0
    for want in expect.get("events") or []:
        for i in range(pos, len(events)):
            if _match(want, events[i]):
                pos = i + 1
                break
        else:
            same = [e for e in events if e.get("type") == want.get("type")]
            out.append(f"expected event {_show(want)} (in order), got {_show(same)}")
    for unwanted in expect.get("no_events") or []:
        hits = [e for e in events if _match(unwanted, e)]
        if hits:
            out.append(f"expected no event {_show(unwanted)}, got {_show(hits)}")
    return out


def run_case(case: dict[str, Any]) -> list[str]:
    """Run one case; [] when it passes."""
    board = case_board(case)
    state = case_state(case, board)
    orders = case.get("orders") or {}
    run = case.get("run", "resolve")
    if run == "resolve":
        given = json.dumps(state, sort_keys=True)
        res = adjudicate.resolve(state, orders, _rng())
        st, events = res.state, res.events
        if json.dumps(state, sort_keys=True) != given:  # the core resolves a round again
            return ["expected resolve to leave the state it was given unchanged"]
    else:
        if isinstance(run, str):
            run = [run]
        st, events = run_steps(state, orders, list(run))
    if json.loads(json.dumps(st)) != st:
        return ["expected the state to round-trip through JSON exactly, got a difference"]
    if case.get("replay"):
        # M12.11: the same record replays to the same bytes.
        again = (adjudicate.resolve(state, orders, _rng()).state if run == "resolve"
                 else run_steps(state, orders, list(run))[0])
        if json.dumps(again, sort_keys=True) != json.dumps(st, sort_keys=True):
            return ["expected a replay to give the same state, got a different one"]
    return compare(case.get("expect") or {}, st, events, board)
