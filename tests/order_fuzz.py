"""Hostile order files for every round kind of both games, and the check that intake and the
rules survive them (used by tests/test_order_fuzz.py and bench/fuzz_orders.py).

A file starts as a seat's legal orders (the game's bot) in a real position of each round kind,
wrapped in the envelope; then a few positions anywhere in it -- envelope fields, any value or
key of the orders, or a field the round's schema knows but the file lacks -- get a hostile
value: null, a wrong type, a list, a mapping, a huge or negative number, a long or odd string,
or a real name from somewhere else in the game. :func:`check_file` then does what intake does
with the file (restricted YAML, envelope, shape of the round, the game's checks) and, if intake
would accept it, resolves the round with it. It raises only if something that must not
happen does: intake raises, or the rules choke on a file intake accepted.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from pbem.common.fair import PhaseRng, Rng
from pbem.core import shape
from pbem.core.envelope import parse_order_document
from pbem.core.intake import screen
from pbem.errors import PbemError
from pbem.games import get_game
from pbem.games.base import Phase

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
ENVELOPE = {"pbem": 1, "campaign": "fuzz-1", "seq": 1, "entropy_commit": "ab" * 32}
MARIA_KINDS = ("setup", "commit", "politics", "hussars", "stage", "winter")
ROR_KINDS = ("senate", "revolution", "declare", "revolution-2", "endgame")


@dataclass(frozen=True)
class Case:
    """A position waiting for orders, a seat that owes them, and its legal orders."""

    game: str
    state: dict[str, Any]
    phase: Phase
    seat: str
    orders: dict[str, Any]

    @property
    def label(self) -> str:
        return f"{self.game}/{self.phase.kind}"


def _rng(label: str) -> PhaseRng:
    return PhaseRng(Rng(f"{label}-p".encode()), Rng(f"{label}-s".encode()))


def _case(game_name: str, state: dict[str, Any], n: int) -> Case | None:
    game = get_game(game_name)
    phase = game.current_phase(state)
    if phase is None:
        return None
    for power in phase.powers:
        seat = game.seat_of(state, power)
        if seat is not None:
            orders = {p: game.bot_orders(state, p, Rng(f"bot{n}{p}".encode()))
                      for p in phase.powers if game.seat_of(state, p) == seat}
            return Case(game_name, state, phase, seat, orders)
    return None


def _played(game_name: str, scenario: str, options: dict[str, Any], per_kind: int) -> list[Case]:
    """Up to ``per_kind`` positions of each round kind met in a bot game."""
    game = get_game(game_name)
    state = game.new_game(scenario, options, _rng("new"))
    found: dict[str, list[Case]] = {}
    for i in range(200):
        phase = game.current_phase(state)
        if phase is None:
            break
        if len(found.get(phase.kind, [])) < per_kind and (case := _case(game_name, state, i)) is not None:
            found.setdefault(phase.kind, []).append(case)
        orders = {p: game.bot_orders(state, p, Rng(f"play{i}{p}".encode())) for p in phase.powers if game.seat_of(state, p)}
        orders.update({p: game.default_orders(state, p) for p in phase.powers if p not in orders})
        state = game.resolve(state, orders, _rng(f"r{i}")).state
    return [c for cases in found.values() for c in cases]


def _ror_states() -> list[dict[str, Any]]:
    """Rome's rounds that a short bot game does not reach, set up as the rules cases do."""
    from pbem.games.ror.adjudicate import open_case_round
    from pbem.games.ror.setup import load_scenario, normalize_state

    out = []
    for kind in ("declare", "revolution-2"):
        extra = {"ror.pbem_declarations": "sequential"} if kind == "declare" else {"ror.pbem_loyalty_test": "two_round"}
        st = load_scenario("middle", extra)
        st["awaiting"] = {"round": f"T6/{kind}", "kind": kind, "powers": ["C" if kind == "declare" else "A"]}
        out.append(st)
    for kind in ("senate", "endgame"):
        st = normalize_state({
            "turn": 7, "seating": ["A", "B", "C"], "factions": {"A": {}, "B": {}, "C": {}},
            "senators": {"4": {"faction": "A", "markers": ["rebel"], "location": "rebel_army"},
                         "1": {"faction": "B", "offices": ["rome_consul"]},
                         "19": {"faction": "B"}, "14": {"faction": "C"}},
            "civil_war": {"primary_rebel": "4", "rebel_condition_met": 1},
            "legions": {"1": "rebel_army", **{str(i): "active_forces" for i in range(11, 17)}},
            "wars": {w: {"status": "active"} for w in ("W3", "W4", "W5", "W6")},
        })
        open_case_round(st, kind)
        out.append(st)
    return out


@cache
def cases() -> dict[str, list[Case]]:
    """Positions of every round kind of both games, by ``game/kind``."""
    every = _played("maria", "intro", {}, 2)
    every += _played("maria", "advanced", {"pbem.commitments": "trustless"}, 2)
    every += _played("maria", "advanced", {"pbem.rounds": "merge_hussars_into_politics"}, 1)
    every += _played("ror", "early", {}, 2)
    every += [c for i, st in enumerate(_ror_states()) if (c := _case("ror", st, i)) is not None]
    out: dict[str, list[Case]] = {}
    for c in every:
        out.setdefault(c.label, []).append(c)
    return out


@cache
def _vocabulary(label: str) -> tuple[list[str], list[str]]:
    """The words of a round kind: every string in its cases' legal orders and every property
    name its schema knows (so hostile files also reach deep into the rules with real names)."""
    words: set[str] = set()
    keys: set[str] = set()

    def walk(node: Any, into: set[str]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                into.add(str(k))
                walk(v, into)
        elif isinstance(node, list):
            for v in node:
                walk(v, into)
        elif isinstance(node, str):
            words.add(node)

    for c in cases()[label]:
        walk(c.orders, words)
        for power in c.orders:
            walk(get_game(c.game).legal_orders(c.state, power), words)
    game, kind = label.split("/")
    schema = shape.validator(game, kind).schema

    def props(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "properties" and isinstance(v, dict):
                    keys.update(v)
                props(v)
        elif isinstance(node, list):
            for v in node:
                props(v)

    props(schema)
    keys.update(ENVELOPE)
    return sorted(words), sorted(keys)


ODD_STRINGS = ["", " ", "x" * 65, "x" * 3000, "é", "名", "\u202e", "-1", "1.5", "null", "yes", "a>b", "../x",
               "R", "H7", "S10.4", "pass", "keep", "0" * 64, "f" * 31]
ODD_INTS = [0, -1, 1, 2, 3, 7, 8, 9, 25, 10_000, 10_001, 2**31, -(2**31), 2**63 - 1, -(2**63 - 1)]


def hostile(rnd: random.Random, label: str, depth: int = 0) -> Any:
    """One hostile value."""
    words, keys = _vocabulary(label)
    pick = rnd.randrange(10 if depth < 2 else 7)
    if pick == 0:
        return None
    if pick == 1:
        return rnd.choice([True, False])
    if pick == 2:
        return rnd.choice(ODD_INTS)
    if pick == 3:
        return rnd.choice([0.0, 1.0, -2.5, 1e300, 3.14])
    if pick == 4:
        return rnd.choice(ODD_STRINGS)
    if pick in (5, 6):
        return rnd.choice(words) if words else "x"
    if pick == 7:
        return [hostile(rnd, label, depth + 1) for _ in range(rnd.randrange(4))]
    if pick == 8:
        return {rnd.choice(keys + words[:50] or ["x"]): hostile(rnd, label, depth + 1) for _ in range(rnd.randrange(4))}
    return [rnd.choice(words or ["x"])] * rnd.randrange(1, 4)


def _positions(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            out += _positions(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _positions(v, (*path, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        node = node[p]
    return node


def hostile_file(rnd: random.Random, case: Case) -> dict[str, Any]:
    """The case's legal orders in an envelope, with one to three hostile changes."""
    data: dict[str, Any] = {**ENVELOPE, "player": case.seat, "phase": case.phase.id, "orders": copy.deepcopy(case.orders)}
    _, keys = _vocabulary(case.label)
    for _ in range(rnd.randrange(1, 4)):
        path = rnd.choice(_positions(data))
        if not path:
            continue
        parent, last = _get(data, path[:-1]), path[-1]
        if path == ("phase",) or path == ("player",):
            continue  # a file for another phase or seat is refused before its orders are read
        op = rnd.randrange(4)
        if op == 0 and isinstance(parent, dict):
            del parent[last]
        elif op == 1 and isinstance(_get(data, path), dict):
            _get(data, path)[rnd.choice(keys)] = hostile(rnd, case.label)
        elif op == 2 and isinstance(_get(data, path), list):
            _get(data, path).append(hostile(rnd, case.label))
        else:
            parent[last] = hostile(rnd, case.label)
    return data


def check_file(case: Case, data: dict[str, Any]) -> bool:
    """Take the file in as intake does and, if it is accepted, resolve the round with it.
    Returns whether it was accepted; raises if intake raises or the rules choke."""
    game = get_game(case.game)
    # what format_document writes, by libyaml's emitter (several times faster)
    raw = yaml.dump(data, Dumper=_DUMPER, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100).encode()
    try:
        doc = parse_order_document(raw, "fuzz.yaml", require_signature=False)
        shape.check_envelope(doc.data, doc.source, doc.line_of)
        if doc.request is not None:
            return False
        screen(game, case.state, case.phase, doc)
    except shape.ShapeError as exc:
        assert exc.field and exc.message and exc.problem.sentence("zh-TW"), exc
        return False
    except PbemError:
        return False
    before = json.dumps(case.state, sort_keys=True)
    orders = {p: o for p, o in doc.orders.items() if game.seat_of(case.state, p) == case.seat}
    orders.update({p: game.default_orders(case.state, p) for p in case.phase.powers if p not in orders})
    res = game.resolve(case.state, orders, _rng("fuzz"))
    assert json.loads(json.dumps(res.state)) == res.state
    assert json.dumps(case.state, sort_keys=True) == before
    return True
