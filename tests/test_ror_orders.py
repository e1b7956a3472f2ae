"""Order schemas, forms and examples of the revolution module, and order validation (R8.6)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from pbem.common.fair import Rng
from pbem.common.safeyaml import load_yaml_file
from pbem.data import orders_dir
from pbem.games.ror import GAME
from pbem.games.ror.adjudicate import open_case_round
from pbem.games.ror.setup import load_scenario, normalize_state

KINDS = ("revolution", "declare", "revolution-2", "senate", "endgame")
DIR = orders_dir() / "ror"


def _schema(kind: str) -> dict[str, Any]:
    return json.loads((DIR / f"{kind}.schema.json").read_text(encoding="utf-8"))


def _state_for(kind: str) -> dict[str, Any]:
    """A state waiting for a round of ``kind`` in which the shipped example is legal."""
    st = load_scenario("middle")
    if kind == "revolution":
        st["awaiting"] = {"round": "T6/revolution", "kind": "revolution",
                          "powers": ["A", "B", "C"]}
        return st
    if kind in ("declare", "revolution-2"):
        extra = {"ror.pbem_declarations": "sequential"} if kind == "declare" else {
            "ror.pbem_loyalty_test": "two_round"}
        st = load_scenario("middle", extra)
        power = "C" if kind == "declare" else "A"
        st["awaiting"] = {"round": f"T6/{kind}", "kind": kind, "powers": [power]}
        return st
    base = {
        "turn": 7, "seating": ["A", "B", "C"],
        "factions": {"A": {}, "B": {}, "C": {}},
        "senators": {"4": {"faction": "A", "markers": ["rebel"], "location": "rebel_army"},
                     "1": {"faction": "B", "offices": ["rome_consul"]},
                     "19": {"faction": "B"}, "14": {"faction": "C"}},
        "civil_war": {"primary_rebel": "4", "rebel_condition_met": 1},
        "legions": {"1": "rebel_army", **{str(i): "active_forces" for i in range(11, 17)}},
        "wars": {w: {"status": "active"} for w in ("W3", "W4", "W5", "W6")},
    }
    st = normalize_state(base)
    open_case_round(st, kind)
    return st


@pytest.mark.parametrize("kind", KINDS)
def test_schema_is_valid(kind: str) -> None:
    jsonschema.Draft202012Validator.check_schema(_schema(kind))


@pytest.mark.parametrize("kind", KINDS)
def test_example_matches_schema_and_rules(kind: str) -> None:
    doc = load_yaml_file(DIR / f"{kind}.example.yaml")
    assert doc["orders"], "the example names a faction"
    jsonschema.validate(doc["orders"], _schema(kind))
    st = _state_for(kind)
    assert GAME.current_phase(st).kind == kind
    for power, orders in doc["orders"].items():
        assert GAME.validate(st, power, orders) == []


@pytest.mark.parametrize("kind", KINDS)
def test_form_is_blank_and_schema_valid(kind: str) -> None:
    doc = load_yaml_file(DIR / f"{kind}.form.yaml")
    assert list(doc["orders"]) == ["FACTION"]
    jsonschema.validate(doc["orders"], _schema(kind))
    text = (DIR / f"{kind}.form.yaml").read_text(encoding="utf-8")
    assert text.startswith(f"# yaml-language-server: $schema={kind}.schema.json")


def test_schema_refuses_unknown_keys() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"A": {"plays": [{"statesmen": "1A"}]}}, _schema("revolution"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"A": {"attack": "W1"}}, _schema("endgame"))


def test_validation_messages_point_into_the_yaml() -> None:
    """R8.6: each problem is a path relative to the faction's orders and a plain sentence."""
    st = _state_for("revolution")
    probs = {p.path: p.message for p in GAME.validate(st, "A", {
        "trades": [{"give": ["mining"], "to": "B"}],
        "plays": [{"statesman": "1A"}],
        "declarations": [{"commander": "14", "decision": "revolt"}],
        "dispatch": [],
    })}
    assert probs["trades[0].give[0]"] == "card 'mining' is not in your hand"
    assert "not a land victor of your faction" in probs["declarations[0].commander"]
    assert "eligible: 4" in probs["declarations[0].commander"]
    assert "not an order of the revolution round" in probs["dispatch"]
    assert "plays[0].statesman" not in probs  # 1A is not A's card: not checked as a play
    assert GAME.validate(st, "Z", {}) and GAME.validate(st, "A", []) != []


def test_defaults_and_legal_orders() -> None:
    """R8.4: the Senate default is one army under the Consul with every Active legion."""
    st = _state_for("senate")
    assert GAME.default_orders(st, "B") == {
        "dispatch": [{"commander": "1", "legions": [11, 12, 13, 14, 15, 16], "raise": 0}]}
    legal = GAME.legal_orders(st, "B")
    assert legal["must_send"] and legal["commanders"] == ["1"]
    rev = _state_for("revolution")
    legal = GAME.legal_orders(rev, "A")
    assert legal["statesmen"] == ["25A"] and "4" in legal["commanders"]
    assert GAME.default_orders(rev, "A") == {}


JUNK_KEYS = ["trades", "plays", "discards", "declarations", "consent_pay", "dispatch",
             "reinforce", "attack", "standing", "nonsense"]
JUNK_FIELDS = ["give", "to", "get", "with", "statesman", "concession", "senator", "commander",
               "decision", "bribes", "moh_pays", "moh_joins", "secondaries", "roll", "war", "moh",
               "n", "legions", "raise", "proconsul", "desert", "consent", "release", "accept",
               "redistribute", "from", "amount", "legion"]
JUNK_ATOMS = [None, -1, 0, 3, 17, 1.5, True, "", "4", "1A", "25A", "W1", "A", "all", "revolt",
              "roll", "manilian", "treasury", "faction:B", "senate_army", "mining", "xx"]


def _junk(rng: Rng, depth: int = 0) -> Any:
    c = rng.below(7 if depth < 3 else 4)
    if c < 3:
        return JUNK_ATOMS[rng.below(len(JUNK_ATOMS))]
    if c == 3:
        return str(rng.below(30))
    if c in (4, 5):
        return [_junk(rng, depth + 1) for _ in range(rng.below(4))]
    return {JUNK_FIELDS[rng.below(len(JUNK_FIELDS))]: _junk(rng, depth + 1)
            for _ in range(rng.below(4))}


def test_garbage_orders_are_void_and_never_break_adjudication() -> None:
    """R8.6: whatever arrives, each unreadable order is void for its sender and play goes on."""
    from pbem.common.fair import PhaseRng

    voids = 0
    for seed in range(60):
        rng = Rng(f"junk-{seed}".encode())
        st = GAME.new_game(GAME.scenarios()[seed % 3], {}, PhaseRng(rng.fork("p"), rng.fork("s")))
        for k in range(8):
            phase = GAME.current_phase(st)
            if phase is None:
                break
            orders: dict[str, Any] = {}
            for power in st["seating"]:
                keys = rng.shuffled(JUNK_KEYS)[: rng.below(4)]
                o: Any = {key: _junk(rng) for key in keys}
                if rng.below(4) == 0:
                    o = _junk(rng)
                GAME.validate(st, power, o)  # never raises
                orders[power] = o
            res = GAME.resolve(st, orders, PhaseRng(rng.fork(f"p{k}"), rng.fork(f"s{k}")))
            voids += sum(1 for e in res.events if e["type"] == "void")
            assert json.loads(json.dumps(res.state)) == res.state
            st = res.state
    assert voids > 100


def test_a_concession_placed_on_no_senator_is_void_saying_what_is_missing() -> None:
    """R2.10: a Concession play without its 'senator' is VOID, and the reason says which field is
    missing (it used to name 'senator None'), in both languages."""
    from pbem.common.fair import PhaseRng
    from pbem.render import i18n

    st = _state_for("revolution")
    card = next(c for c in st["factions"]["A"]["hand"] if c in GAME.legal_orders(st, "A")["concessions"])
    rng = Rng(b"concession")
    res = GAME.resolve(st, {"A": {"plays": [{"concession": card}]}}, PhaseRng(rng.fork("p"), rng.fork("s")))
    void = next(e for e in res.events if e["type"] == "void")
    assert void["path"] == "orders.A.plays[0]" and "None" not in void["reason"]
    assert "names no senator" in void["reason"]
    assert card in res.state["factions"]["A"]["hand"]  # the card stays in hand
    said = {}
    for lang in ("en", "zh-TW"):
        env = i18n.environment(lang)
        said[lang] = env.from_string('{% import "ror/names.txt" as n with context %}{% include "ror/events/void.txt" %}').render(e=void)
        assert "None" not in said[lang]
    assert "names no senator" in said["en"]
    assert "沒有指定要放在哪位元老身上" in said["zh-TW"]
