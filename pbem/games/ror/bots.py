"""A seeded random bot: legal orders chosen at random (fuzzing, demo, autopilot)."""

from __future__ import annotations

from typing import Any

from pbem.common.fair import Rng
from pbem.games.ror.model import State, is_aligned
from pbem.games.ror.orders import legal_orders


def bot_orders(st: State, power: str, rng: Rng) -> dict[str, Any]:
    """Random legal orders for ``power`` in the waiting round."""
    legal = legal_orders(st, power)
    kind = legal.get("kind")
    out: dict[str, Any] = {}
    if kind == "revolution" and legal["must_send"]:
        hand = list(legal["hand"])
        if hand and legal["trade_partners"] and rng.below(4) == 0:
            out["trades"] = [{"give": [rng.choice(hand)], "to": rng.choice(
                legal["trade_partners"])}]
        plays: list[dict[str, Any]] = [{"statesman": c} for c in legal["statesmen"]
                                       if rng.below(3)]
        for c, targets in sorted(legal["concessions"].items()):
            if targets and rng.below(2):
                plays.append({"concession": c, "senator": rng.choice(targets)})
        if plays:
            out["plays"] = plays
        if legal["must_discard"]:
            out["discards"] = rng.shuffled(hand)[: legal["must_discard"]]
        decls = []
        for sid, info in sorted(legal["commanders"].items()):
            choice = rng.choice(info["decisions"])
            if choice == "revolt" and st["options"]["ror.pbem_loyalty_test"] == "two_round":
                choice = "roll"
            d: dict[str, Any] = {"commander": sid, "decision": choice}
            if choice == "manilian":
                d["war"] = rng.choice(info["manilian_wars"])
            if choice in ("revolt", "roll"):
                lids = info["legions"]
                d["bribes"] = [int(x) for x in lids if rng.below(2)]
                others = [s for s in legal["secondaries"] if s != sid]
                d["secondaries"] = [s for s in others if rng.below(2)]
                if rng.below(3) == 0:
                    d["only_if_primary"] = True
            decls.append(d)
        if decls:
            out["declarations"] = decls
    elif kind in ("declare", "revolution-2") and legal["must_send"]:
        decls = []
        for sid, info in sorted(legal["commanders"].items()):
            choice = rng.choice(info["decisions"])
            d = {"commander": sid, "decision": choice}
            if choice == "revolt":
                if kind == "declare":
                    d["bribes"] = [int(x) for x in info["legions"] if rng.below(2)]
                others = [s for s in legal["secondaries"] if s != sid]
                d["secondaries"] = [s for s in others if rng.below(2)]
            decls.append(d)
        if decls:
            out["declarations"] = decls
    elif kind == "senate" and legal["must_send"]:
        af = [int(x) for x in legal["active_forces"]]
        cmds = list(legal["commanders"])
        if af and cmds and rng.below(5):
            cmd = rng.choice(cmds)
            k = 1 + rng.below(len(af))
            out["dispatch"] = [{"commander": cmd, "legions": rng.shuffled(af)[:k],
                                "raise": rng.below(3)}]
        else:
            out["dispatch"] = legal["default"]
    elif kind == "endgame" and legal["must_send"]:
        wars = list(legal["wars"])
        out["attack"] = wars if rng.below(2) else rng.shuffled(wars)
    standing: dict[str, Any] = {}
    if rng.below(3) == 0:
        standing["accept"] = "all" if rng.below(2) else []
    members = [s for s, r in st["senators"].items() if is_aligned(r) and r["faction"] == power]
    if legal["standing"]["consent"] and rng.below(4) == 0:
        standing["consent"] = {s: bool(rng.below(2)) for s in legal["standing"]["consent"]}
    if members and rng.below(3) == 0:
        src = rng.choice(members)
        standing["redistribute"] = [{"from": src, "to": "treasury", "amount": 1 + rng.below(3)}]
    if rng.below(4) == 0:
        vets = legal["standing"]["desert"]
        if vets:
            standing["desert"] = [{"legion": int(rng.choice(vets)),
                                   "to": rng.choice(["senate_army", "active_forces"])}]
    if standing:
        out["standing"] = standing
    return out

