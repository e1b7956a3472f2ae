"""The state model of the revolution module (R1) and the helpers every rule module shares.

State is plain data (dicts, lists, str, int, bool, None) that round-trips through JSON exactly:

* ``senators``: id -> record (R1.3). Every family card 1-30 has a record unless it lies under a
  Statesman (``family_under``); a Statesman gets a record when he enters play (R1.8).
* ``factions``: id -> {id, player, hand, faction_treasury, standing} (R1.4).
* ``legions``: "1".."25" -> {veteran, allegiance, location}; ``fleets``: "F1".. -> {location}
  (R1.5). Army unit lists are *derived* from these locations (``army:<army id>``), so they can
  never disagree with them (R1.6).
* ``armies``: [{id, commander, master_of_horse, target, dispatch_index, reinforced_turn}].
* ``wars``, ``civil_war``, ``forum_concessions``, ``discard``, ``dice_log``, ``script`` and the
  game fields of R1.2.

Card data and options are loaded once from ``seeds/ror/`` (R1.1, R1.8).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pbem.common.catalog import N_
from pbem.common.fair import Rng
from pbem.common.safeyaml import load_yaml_file
from pbem.data import seeds_dir
from pbem.errors import DataError, PbemError

State = dict[str, Any]

PHASES = ("mortality", "revenue", "forum", "population", "senate", "combat", "revolution")
ERAS = ("early", "middle", "late")
LOYALTY_TARGET = {"early": 5, "middle": 4, "late": 3}  # R4.1
OFFICE_RANK = ("dictator", "rome_consul", "field_consul", "censor", "master_of_horse")  # R2.3
ZONES = ("faction", "forum", "curia", "deck", "discard", "removed")
PAIRS = {"25": ("25A", "25B"), "29": ("29A", "29B")}  # R2.4 exempt pairs
NUM_LEGIONS = 25
NUM_FLEETS = 25

# R6.5 Combat Results Table: modified 3d6 -> (result, losses); losses None means "All".
_CRT: dict[int, tuple[str, int | None]] = {
    4: ("defeat", 4), 5: ("defeat", 3), 6: ("defeat", 2), 7: ("defeat", 1),
    8: ("stalemate", 5), 9: ("stalemate", 4), 10: ("stalemate", 3), 11: ("stalemate", 2),
    12: ("stalemate", 1), 13: ("stalemate", 0),
    14: ("victory", 4), 15: ("victory", 3), 16: ("victory", 2), 17: ("victory", 1),
}


def crt(total: int) -> tuple[str, int | None]:
    """Read the CRT (R6.5): ``(defeat|stalemate|victory, losses)``; ``None`` losses = All."""
    if total <= 3:
        return ("defeat", None)
    if total >= 18:
        return ("victory", 0)
    return _CRT[total]


class RorError(PbemError):
    """A state or case the revolution module cannot process."""


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class CardData:
    """Printed card values (R1.8) and the option table, loaded once."""

    family: dict[str, dict[str, Any]]
    statesmen: dict[str, dict[str, Any]]
    concessions: dict[str, dict[str, Any]]
    options: dict[str, dict[str, Any]]
    rulesets: dict[str, dict[str, Any]]


@cache
def card_data() -> CardData:
    """Load and check ``seeds/ror/cards.yaml`` and ``options.yaml``; every problem in one error."""
    base = seeds_dir() / "ror"
    cards = load_yaml_file(base / "cards.yaml")
    opts = load_yaml_file(base / "options.yaml")
    problems: list[str] = []
    for section in ("family", "statesmen", "concessions"):
        if not isinstance(cards.get(section), dict):
            problems.append(f"cards.yaml: '{section}' must be a mapping")
    if problems:
        raise DataError("broken card data in seeds/ror", problems)
    for sid, rec in cards["family"].items():
        if not re.fullmatch(r"\d+", str(sid)):
            problems.append(f"cards.yaml: family id '{sid}' is not a number")
        for k in ("mil", "ora", "loy", "influence"):
            if not isinstance(rec.get(k), int):
                problems.append(f"cards.yaml: family {sid}: '{k}' must be an integer")
    for sid, rec in cards["statesmen"].items():
        if not re.fullmatch(r"\d+[A-Z]", str(sid)):
            problems.append(f"cards.yaml: statesman id '{sid}' must be a number and a letter")
        elif number_of(sid) not in cards["family"]:
            problems.append(f"cards.yaml: statesman {sid} has no family card")
        for k in ("mil", "ora", "loy", "influence", "popularity"):
            if not isinstance(rec.get(k), int):
                problems.append(f"cards.yaml: statesman {sid}: '{k}' must be an integer")
    for cid, rec in cards["concessions"].items():
        if not isinstance(rec.get("income"), int):
            problems.append(f"cards.yaml: concession {cid}: 'income' must be an integer")
    if not isinstance(opts.get("options"), dict) or not isinstance(opts.get("rulesets"), dict):
        problems.append("options.yaml: needs 'options' and 'rulesets' mappings")
    else:
        for oid, spec in opts["options"].items():
            if "default" not in spec:
                problems.append(f"options.yaml: {oid} has no default")
        for rs, over in opts["rulesets"].items():
            for oid in over or {}:
                if oid not in opts["options"]:
                    problems.append(f"options.yaml: ruleset {rs} sets unknown option {oid}")
    if problems:
        raise DataError("broken card data in seeds/ror", problems)
    return CardData(
        family={str(k): v for k, v in cards["family"].items()},
        statesmen={str(k): v for k, v in cards["statesmen"].items()},
        concessions={str(k): v for k, v in cards["concessions"].items()},
        options=dict(opts["options"]),
        rulesets={str(k): dict(v or {}) for k, v in opts["rulesets"].items()},
    )


def resolve_options(given: dict[str, Any] | None) -> dict[str, Any]:
    """Every option's value (R1.1): defaults, then the ruleset's overrides, then explicit keys."""
    data = card_data()
    given = dict(given or {})
    problems: list[str] = []
    out = {oid: copy.deepcopy(spec["default"]) for oid, spec in data.options.items()}
    ruleset = str(given.get("ror.ruleset", out["ror.ruleset"]))
    if ruleset not in data.rulesets:
        problems.append(f"ror.ruleset: unknown ruleset '{ruleset}'")
    else:
        out.update(data.rulesets[ruleset])
    for oid, value in given.items():
        spec = data.options.get(oid)
        if spec is None:
            problems.append(f"unknown option '{oid}'")
            continue
        allowed = spec.get("values")
        if oid == "ror.ruleset":
            value = str(value)
        if isinstance(allowed, list) and value not in allowed:
            problems.append(f"{oid}: '{value}' is not one of {', '.join(map(str, allowed))}")
        if oid == "ror.mortality_cup" and not (
            isinstance(value, dict)
            and all(isinstance(value.get(k), int) and value[k] >= 0 for k in ("draw2", "blank"))
        ):
            problems.append("ror.mortality_cup: needs whole numbers 'draw2' and 'blank'")
        out[oid] = value
    if problems:
        raise DataError("bad rule options", problems)
    return out


# --------------------------------------------------------------------------- ids


def number_of(sid: str) -> str:
    """The card number of a senator id: ``"25A"`` -> ``"25"``."""
    m = re.match(r"\d+", str(sid))
    return m.group(0) if m else str(sid)


def sid_key(sid: str) -> tuple[int, str]:
    """Canonical order of senators (R8.1): by number, then suffix (1, 1A, 1B, 2, ...)."""
    s = str(sid)
    num = number_of(s)
    return (int(num) if num.isdigit() else 10**6, s[len(num):])


def is_statesman_id(card: str) -> bool:
    """True for a Statesman card id such as ``"25A"``."""
    return str(card) in card_data().statesmen


def is_concession_id(card: str) -> bool:
    """True for a Concession card id."""
    return str(card) in card_data().concessions


def legion_key(lid: str) -> int:
    """Canonical order of legions (by number)."""
    return int(lid)


def fleet_key(fid: str) -> int:
    """Canonical order of fleets (by number)."""
    return int(str(fid)[1:])


# --------------------------------------------------------------------------- reasons


class Why(str):
    """A reason in English (what ``pbem check`` and the order file's checks print) that also keeps
    a message code and its arguments, so a report words it in its reader's language."""

    code: str
    args: dict[str, Any]

    def __new__(cls, code: str, text: str, **args: Any) -> Why:
        obj = super().__new__(cls, text)
        obj.code = code
        obj.args = args
        return obj

    def data(self) -> dict[str, Any]:
        """The code and arguments as plain data for an event (nested reasons included)."""
        return {"code": self.code,
                "args": {k: v.data() if isinstance(v, Why) else v for k, v in self.args.items()}}


def why_data(reason: Any) -> dict[str, Any] | None:
    """The code and arguments of a reason, or None for plain text."""
    return reason.data() if isinstance(reason, Why) else None


# --------------------------------------------------------------------------- dice


DIE_FACES = [1, 2, 3, 4, 5, 6]
# The words the purposes of the dice are made of (``R9.2 mortality chit``), for the catalogs: a
# report says each in the reader's language around the ids and rule ids (i18n.say_words).
DIE_WORDS = (N_("mortality"), N_("chit"), N_("pair pick"), N_("tie"), N_("legion"), N_("roll-off"), N_("mob"),
             N_("discard"), N_("MIL"), N_("senate loss"), N_("rebel loss"), N_("senate veteran"),
             N_("rebel veteran"), N_("fleet loss"), N_("legion loss"), N_("veteran"))


class OutOfDice(RorError):
    """A case scripted fewer draws than the rules needed."""


class Dice:
    """Every draw of the public stream, logged (R1.7, R8.1).

    ``draw`` picks uniformly among ``candidates`` in canonical order, one stream draw each; a
    pick among one candidate uses no draw. A scripted Dice (cases) returns given values instead
    of drawing, checking that each value is one of the candidates.
    """

    def __init__(self, rng: Rng | None, script: list[Any] | None = None) -> None:
        self.rng = rng
        self.script = list(script) if script is not None else None
        self.used = 0
        self.ctx: Ctx | None = None

    def draw(self, candidates: list[Any], purpose: str, *, log: bool = True,
             shown: dict[str, Any] | None = None) -> Any:
        """One uniform pick among ``candidates`` (R8.1).

        The ``die`` event publishes what anyone needs to recompute the pick from the stream
        (R8.1): the candidates in canonical order, or ``shown`` when a shorter description fixes
        them (the mortality cup); a plain die needs neither."""
        if not candidates:
            raise RorError(f"nothing to draw from for {purpose}")
        if len(candidates) == 1:
            return candidates[0]
        if self.script is not None:
            if not self.script:
                raise OutOfDice(f"the case scripts no draw for '{purpose}'")
            want = self.script.pop(0)
            self.used += 1
            for c in candidates:
                if str(c) == str(want):
                    value = c
                    break
            else:
                raise RorError(
                    f"scripted draw {want!r} for '{purpose}' is not one of "
                    f"{', '.join(map(str, candidates))}"
                )
        else:
            assert self.rng is not None
            value = candidates[self.rng.below(len(candidates))]
            self.used += 1
        if log and self.ctx is not None:
            if shown is None and list(candidates) != DIE_FACES:
                shown = {"candidates": list(candidates)}
            self.ctx.log_die(purpose, value, **(shown or {}))
        return value

    def d6(self, purpose: str) -> int:
        """One six-sided die."""
        return int(self.draw(list(DIE_FACES), purpose))

    def dice(self, n: int, purpose: str) -> list[int]:
        """``n`` dice, each its own draw (2d6, 3d6)."""
        return [self.d6(f"{purpose} #{i + 1}") for i in range(n)]


# --------------------------------------------------------------------------- context


@dataclass
class Ctx:
    """One resolution in progress: the state being changed, the dice, the events."""

    state: State
    dice: Dice
    round: str
    events: list[dict[str, Any]] = field(default_factory=list)
    orders: dict[str, Any] = field(default_factory=dict)
    secret: Rng | None = None

    def __post_init__(self) -> None:
        self.dice.ctx = self
        self.die_index = 0

    @property
    def options(self) -> dict[str, Any]:
        return self.state["options"]

    def opt(self, oid: str) -> Any:
        """The value of rule option ``oid``."""
        return self.state["options"][oid]

    def emit(self, type_: str, **data: Any) -> dict[str, Any]:
        """Append an event."""
        ev = {"type": type_, **data}
        self.events.append(ev)
        return ev

    def log_die(self, purpose: str, value: Any, **shown: Any) -> None:
        """Record one public draw in ``dice_log`` and as a ``die`` event (R1.7, R8.1); the
        event also carries what the pick was made among (``candidates`` or ``cup``)."""
        rec = {"round": self.round, "index": self.die_index, "purpose": purpose, "result": value}
        self.state["dice_log"].append(rec)
        self.emit("die", purpose=purpose, value=value, index=self.die_index, round=self.round,
                  **shown)
        self.die_index += 1

    def seat(self, faction: str) -> str:
        """The seat that plays ``faction``."""
        return str(self.state["factions"][faction]["player"])


# --------------------------------------------------------------------------- talents


def holder_amount(state: State, holder: str) -> int:
    """Talents held by ``holder``: ``state``, ``faction:<id>`` or ``senator:<id>``."""
    kind, _, ident = holder.partition(":")
    if kind == "state":
        return int(state["state_treasury"])
    if kind == "faction":
        return int(state["factions"][ident]["faction_treasury"])
    return int(state["senators"][ident]["talents"])


def change_talents(ctx: Ctx, holder: str, delta: int, reason: str, **extra: Any) -> None:
    """Add ``delta`` talents to ``holder``; every change is an event, so the ledger checks."""
    if delta == 0:
        return
    st = ctx.state
    kind, _, ident = holder.partition(":")
    if kind == "state":
        st["state_treasury"] += delta
    elif kind == "faction":
        st["factions"][ident]["faction_treasury"] += delta
    else:
        st["senators"][ident]["talents"] += delta
    ev: dict[str, Any] = {"holder": holder, "delta": delta, "reason": reason, **extra}
    if kind == "faction":
        ev["audience"] = ctx.seat(ident)  # faction treasuries are secret (R8.7)
    ctx.emit("talents", **ev)


def transfer(ctx: Ctx, src: str, dst: str, amount: int, reason: str) -> None:
    """Move ``amount`` talents between two holders (no creation)."""
    if amount <= 0:
        return
    change_talents(ctx, src, -amount, reason, transfer=True)
    change_talents(ctx, dst, amount, reason, transfer=True)


def total_talents(state: State) -> int:
    """Every talent in the game: the State, faction treasuries and personal treasuries."""
    return (
        int(state["state_treasury"])
        + sum(int(f["faction_treasury"]) for f in state["factions"].values())
        + sum(int(s["talents"]) for s in state["senators"].values())
    )


# --------------------------------------------------------------------------- queries


def sen(state: State, sid: str) -> dict[str, Any]:
    """The senator record ``sid``."""
    return state["senators"][str(sid)]


def is_in_play(rec: dict[str, Any]) -> bool:
    """In play: alive, in a faction or the Forum (R1.3)."""
    return bool(rec["alive"]) and rec["zone"] in ("faction", "forum")


def is_aligned(rec: dict[str, Any]) -> bool:
    """Alive and in a faction."""
    return bool(rec["alive"]) and rec["zone"] == "faction" and rec["faction"] is not None


def is_rebel(rec: dict[str, Any]) -> bool:
    """Carries the Rebel marker."""
    return "rebel" in rec["markers"]


def is_in_rome(rec: dict[str, Any]) -> bool:
    """Aligned, alive and at location rome (R1.3); rebels never are."""
    return is_aligned(rec) and rec["location"] == "rome" and not is_rebel(rec)


def senators_sorted(state: State, pred: Any = None) -> list[str]:
    """Senator ids in canonical order, filtered by ``pred(rec)``."""
    ids = [s for s, r in state["senators"].items() if pred is None or pred(r)]
    return sorted(ids, key=sid_key)


def faction_members(state: State, faction: str) -> list[str]:
    """Living senators of ``faction`` in canonical order."""
    return senators_sorted(state, lambda r: is_aligned(r) and r["faction"] == faction)


def office_holder(state: State, office: str) -> str | None:
    """The living senator holding ``office``, if any."""
    for sid in senators_sorted(state, is_aligned):
        if office in state["senators"][sid]["offices"]:
            return sid
    return None


def clockwise_from(state: State, faction: str | None) -> list[str]:
    """Factions clockwise from ``faction`` (R: notation)."""
    seating = list(state["seating"])
    if faction not in seating:
        return seating
    i = seating.index(faction)
    return seating[i:] + seating[:i]


def hrao(state: State, everyone_in_rome: bool = False, exclude_faction: str | None = None
         ) -> tuple[str | None, str]:
    """The HRAO and his faction (R2.3).

    ``everyone_in_rome`` treats every living, aligned, non-rebel senator as in Rome (R3.1);
    ``exclude_faction`` leaves a faction out (the dispatcher of R9.9).
    """
    def ok(r: dict[str, Any]) -> bool:
        if exclude_faction is not None and r["faction"] == exclude_faction:
            return False
        if everyone_in_rome:
            return is_aligned(r) and not is_rebel(r)
        return is_in_rome(r)

    cands = senators_sorted(state, ok)
    for office in OFFICE_RANK:
        for sid in cands:
            if office in state["senators"][sid]["offices"]:
                return sid, state["senators"][sid]["faction"]
    if cands:
        best = min(
            cands,
            key=lambda s: (-sen(state, s)["influence"], -sen(state, s)["ora"], sid_key(s)),
        )
        return best, sen(state, best)["faction"]
    seating = [f for f in state["seating"] if f != exclude_faction] or list(state["seating"])
    return None, seating[0]


def votes(rec: dict[str, Any]) -> int:
    """Votes of a senator: ORA + Knights (R1.10)."""
    return int(rec["ora"]) + int(rec["knights"])


def legions_at(state: State, location: str) -> list[str]:
    """Legion ids at ``location``, in canonical order."""
    return sorted(
        (lid for lid, lg in state["legions"].items() if lg["location"] == location), key=legion_key
    )


def fleets_at(state: State, location: str) -> list[str]:
    """Fleet ids at ``location``, in canonical order."""
    return sorted(
        (fid for fid, fl in state["fleets"].items() if fl["location"] == location), key=fleet_key
    )


def legion_strength(state: State, lids: list[str]) -> int:
    """Legion strength: a veteran counts 2 (R3.4, R6.3)."""
    return sum(2 if state["legions"][lid]["veteran"] else 1 for lid in lids)


def army(state: State, army_id: str) -> dict[str, Any] | None:
    """The army record ``army_id``."""
    for a in state["armies"]:
        if a["id"] == army_id:
            return a
    return None


def army_of(state: State, commander: str) -> dict[str, Any] | None:
    """The army commanded by ``commander``."""
    for a in state["armies"]:
        if a["commander"] == commander:
            return a
    return None


def army_legions(state: State, a: dict[str, Any]) -> list[str]:
    """The legions of an army (derived from unit locations, R1.6)."""
    return legions_at(state, f"army:{a['id']}")


def army_fleets(state: State, a: dict[str, Any]) -> list[str]:
    """The fleets of an army."""
    return fleets_at(state, f"army:{a['id']}")


def new_army_id(state: State, commander: str) -> str:
    """A fresh army id: the commander's id, made unique if an old army still bears it."""
    taken = {a["id"] for a in state["armies"]}
    if commander not in taken:
        return commander
    k = 2
    while f"{commander}#{k}" in taken:
        k += 1
    return f"{commander}#{k}"


def cw_armies(state: State) -> list[dict[str, Any]]:
    """Senate armies sent against the rebel, in ascending ``dispatch_index`` (R6.1)."""
    arms = [a for a in state["armies"] if a["target"] == "civil_war"]
    return sorted(arms, key=lambda a: (a.get("dispatch_index") or 0, a["id"]))


def rebels(state: State) -> list[str]:
    """Every living rebel, canonical order."""
    return senators_sorted(state, lambda r: r["alive"] and is_rebel(r))


def primary_alive(state: State) -> bool:
    """A Primary Rebel is alive (R7.3)."""
    cw = state.get("civil_war")
    return cw is not None and not cw.get("primary_dead")


def military(state: State, sid: str | None) -> int:
    """MIL outside battle (Pompey counts 2, R3.4/R9.9); 0 for none."""
    if sid is None:
        return 0
    return int(sen(state, sid)["mil"])


def active_war_count(state: State, include_civil_war: bool = True) -> int:
    """Active Wars (R7.3): active and unprosecuted cards, plus the civil war unless its rebel
    has met condition 1 or 2."""
    n = sum(1 for w in state["wars"].values() if w["status"] in ("active", "unprosecuted"))
    cw = state.get("civil_war")
    if include_civil_war and cw and not cw.get("rebel_condition_met") and primary_alive(state):
        n += 1
    return n


def card_location_map(state: State) -> dict[str, list[str]]:
    """Where every Faction card is (hands, senators, Forum, discard): for invariant checks."""
    where: dict[str, list[str]] = {}

    def put(card: str, place: str) -> None:
        where.setdefault(str(card), []).append(place)

    for fid, f in state["factions"].items():
        for c in f["hand"]:
            put(c, f"hand:{fid}")
    for sid, r in state["senators"].items():
        if r["alive"] or r["zone"] != "removed":
            if is_statesman_id(sid) and r["zone"] != "removed":
                put(sid, f"senator:{sid}")
        for c in r["concessions"]:
            put(c, f"senator:{sid}")
    for c in state["forum_concessions"]:
        put(c, "forum")
    for c in state["discard"]:
        put(c, "discard")
    return where
