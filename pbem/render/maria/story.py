"""How Maria's reports tell a phase: its events in the order a player follows them on the
board, and the history site's summary of a phase."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def _en_route(ev: Mapping[str, Any]) -> str | None:
    """The piece whose move made ``ev`` on the way (Maria: a fortress taken or left pending as
    a general enters it, M4.5/M4.7; an enemy train eliminated as it passes, M3.2), or ``None``."""
    kind = ev.get("type")
    if kind == "conquest" and ev.get("how") == "entry" or kind == "conquest_pending":
        return str(ev.get("general"))
    if kind == "train_destroyed" and ev.get("by"):
        return str(ev.get("by"))
    return None


# Maria's events that change the board or a power's strength: the report sets them apart from
# the routine ones (draws, generals in supply).
KEY_EVENTS = frozenset({"battle", "conquest", "conquest_dropped", "eliminated", "train_destroyed",
                        "troops_lost", "game_over", "box_filled", "peace", "alliance", "election"})


def story(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``events`` in the order a player follows them on the board.

    Maria's engine tells what a move did on its way (a conquest on entry, a train eliminated)
    before the move that did it; here each such event follows its move. Generals found in
    supply with nothing to pay are gathered into one ``supply_table`` entry (``rows``: general,
    power and city; a power's generals together) in the place of the first; what changed (a battle, a conquest, a loss, a general
    out of supply) gets ``key: True``."""
    out: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    table: dict[str, Any] | None = None
    evs = [dict(e) for e in events]
    for e in evs:
        if e.get("type") in KEY_EVENTS or (e.get("type") == "supply" and e.get("result") != "in_supply"):
            e["key"] = True
    for i, e in enumerate(evs):
        nxt = evs[i + 1] if i + 1 < len(evs) else {}
        # a marker going back to its pool as its fortress is taken belongs to that conquest
        with_conquest = e.get("type") == "marker_returned" and _en_route(nxt) is not None \
            and nxt.get("type") == "conquest" and nxt.get("city") == e.get("city")
        if with_conquest or _en_route(e) is not None:
            waiting.append(e)
            continue
        if e.get("type") == "move":
            pieces = {str(x) for x in e.get("pieces") or []}
            mine = [w for j, w in enumerate(waiting)
                    if (_en_route(w) or _en_route(waiting[j + 1] if j + 1 < len(waiting) else {})) in pieces]
            out.extend(w for w in waiting if w not in mine)
            out.append(e)
            out.extend(mine)
            waiting = []
            continue
        out.extend(waiting)
        waiting = []
        if e.get("type") == "supply" and e.get("result") == "in_supply" and not e.get("cost") \
                and not e.get("face_up") and not e.get("audience"):
            if table is None:
                table = {"type": "supply_table", "rows": []}
                out.append(table)
            table["rows"].append({"general": e.get("general"), "power": e.get("power"), "city": e.get("city")})
            continue
        out.append(e)
    out.extend(waiting)
    if table is not None:  # each power's generals together, in the order the powers act
        order = ("FR", "BA", "PR", "SX", "AU", "PA")
        table["rows"].sort(key=lambda r: order.index(r["power"]) if r.get("power") in order else len(order))
    return out


def phase_summary(events: Sequence[Mapping[str, Any]], view: Mapping[str, Any]) -> dict[str, Any]:
    """What a history-site phase page says first: the phase's battles (city, winner, totals) and
    conquests (city, power), and who leads (fortresses held outside their home and victory
    markers on the map, per power, most first). ``events`` must be public."""
    battles = [{"city": (e.get("defender") or {}).get("city"), "winner": e.get("winner_power"),
                "totals": list(e.get("totals") or []), "major": bool(e.get("major_victory"))}
               for e in events if e.get("type") == "battle"]
    conquests = [{"city": e.get("city"), "power": e.get("power"), "previous": e.get("previous")}
                 for e in events if e.get("type") == "conquest"]
    held: dict[str, list[int]] = {}
    for info in (view.get("control") or {}).values():
        row = held.setdefault(str(info.get("power")), [0, 0])
        row[0] += 1
        row[1] += 1 if info.get("marker") else 0
    leaders = [{"power": p, "fortresses": n, "markers": m}
               for p, (n, m) in sorted(held.items(), key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))]
    return {"battles": battles, "conquests": conquests, "leaders": leaders}
