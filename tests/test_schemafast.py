"""The compiled yes-or-no schema check (pbem.core.schemafast) answers as jsonschema does, on
every schema pbem ships (the envelope and each round of each game): for the example files,
for the orders bots send in whole games, and for thousands of mutants of them (keys dropped
and added, values of other types, lists grown, strings stretched). Intake trusts its yes."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import yaml

from pbem.common.fair import PhaseRng, Rng
from pbem.core import shape
from pbem.core.schemafast import compile_check
from pbem.data import orders_dir
from pbem.games import get_game

SCALARS: list[Any] = [None, True, False, 0, 1, -1, 7, 1.5, float("nan"), "", "x", "AU", "S2", "1741-1/prussia",
                      "a" * 300, "ed25519:" + "0" * 64, "0" * 64, [], {}, ["x"], {"k": 1}]


def _schemas() -> list[tuple[str, str]]:
    out = [("", "envelope")]
    for folder in sorted(p for p in orders_dir().iterdir() if p.is_dir()):
        out += [(folder.name, p.name.removesuffix(".schema.json")) for p in sorted(folder.glob("*.schema.json"))]
    return out


def _examples(game: str, kind: str) -> list[Any]:
    path = orders_dir() / game / f"{kind}.example.yaml" if game else None
    docs = [yaml.safe_load(p.read_text()) for p in sorted(orders_dir().glob("*/*.example.yaml"))]
    if path is None:
        return docs
    return [d.get("orders") for d in docs if path.is_file() and d is not None] if path.is_file() else []


def _bot_orders(game_name: str, rounds: int) -> dict[str, list[Any]]:
    """Orders of whole bot games, by round kind, as files carry them (keyed by power)."""
    game = get_game(game_name)
    out: dict[str, list[Any]] = {}
    for scenario in game.scenarios()[:2]:
        root = Rng(f"schemafast-{game_name}-{scenario}".encode())
        state = game.new_game(scenario, {}, PhaseRng(root.fork("p"), root.fork("s")))
        for n in range(rounds):
            phase = game.current_phase(state)
            if phase is None:
                break
            orders = {p: game.bot_orders(state, p, root.fork(f"b{n}{p}")) for p in phase.powers}
            for p, o in orders.items():
                out.setdefault(phase.kind, []).append({p: o})
            state = game.resolve(state, orders, PhaseRng(root.fork(f"p{n}"), root.fork(f"s{n}"))).state
    return out


def _mutant(rng: random.Random, value: Any) -> Any:
    value = copy.deepcopy(value)
    for _ in range(rng.randrange(1, 4)):
        holders: list[Any] = []

        def walk(v: Any, holders: list[Any] = holders) -> None:
            if isinstance(v, (dict, list)):
                holders.append(v)
                for child in (v.values() if isinstance(v, dict) else v):
                    walk(child)

        walk(value)
        if not holders:
            return copy.deepcopy(rng.choice(SCALARS))
        h = rng.choice(holders)
        if isinstance(h, dict):
            op = rng.randrange(4)
            if op == 0 and h:
                del h[rng.choice(list(h))]
            elif op == 1:
                h[rng.choice(["extra", "AU", "moves", "orders", "seq", 3])] = copy.deepcopy(rng.choice(SCALARS))
            elif h:
                h[rng.choice(list(h))] = copy.deepcopy(rng.choice(SCALARS))
        else:
            op = rng.randrange(3)
            if op == 0 and h:
                h.append(copy.deepcopy(rng.choice(h)))
            elif op == 1 and h:
                h[rng.randrange(len(h))] = copy.deepcopy(rng.choice(SCALARS))
            else:
                h.extend([copy.deepcopy(rng.choice(SCALARS))] * rng.randrange(1, 40))
    return value


def test_the_compiled_check_answers_as_jsonschema() -> None:
    rng = random.Random(16)
    bots = {"maria": _bot_orders("maria", 60), "ror": _bot_orders("ror", 40)}
    compiled = 0
    for game, kind in _schemas():
        validator = shape.validator(game, kind)
        check = compile_check(validator.schema)
        if check is None:
            continue
        compiled += 1
        samples = _examples(game, kind) + (bots.get(game, {}).get(kind, [])[:40] if game else [])
        assert samples, f"no sample for {game}/{kind}"
        fits = 0
        for value in samples + [_mutant(rng, rng.choice(samples)) for _ in range(300)]:
            want = not list(validator.iter_errors(value))
            assert check(value) == want, f"{game or 'envelope'}/{kind}: {str(value)[:300]}"
            fits += want
        assert fits > 0, f"{game}/{kind}: no sample fits, the comparison proves little"
    assert compiled >= 10, "the schemas stopped compiling: intake lost its quick check"


SMALL: list[Any] = [
    {"type": "object", "oneOf": [{"required": ["a"], "not": {"required": ["b"]}}, {"required": ["b"], "not": {"required": ["a"]}}]},
    {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"anyOf": [{"type": "string"}, {"required": ["a", "b"]}, {"type": "integer", "minimum": 3}]},
    {"not": {"type": ["integer", "null"]}},
    {"not": {"required": []}},
    {"oneOf": [True, {"not": {"not": {"required": ["a"]}}}]},
    {"type": "object", "not": {"required": ["a"]}, "additionalProperties": False, "properties": {"a": {}, "b": {"const": 1}}},
    {"additionalProperties": False, "properties": {"a": {"type": "integer", "const": 1}}},
    {"type": "integer", "const": 1},
    {"type": "number", "enum": [1, 2.5, 0]},
    {"enum": [1, True, "1", None, 0.0]},
    {"type": ["integer", "string"], "minimum": 0, "maximum": 999999999, "const": 0},
    {"minimum": 1.5, "maximum": 10},
    {"type": "integer", "minimum": -3, "maximum": 2**70},
    {"type": ["string", "integer"], "pattern": "^[a-z]", "minLength": 2, "maxLength": 3, "minimum": 1, "maximum": 5},
    {"pattern": "x$", "maxLength": 1, "minimum": 2.5},
    {"minLength": 1, "maximum": 0, "enum": [0, "", "x", -1, 1.5]},
]


def test_small_schemas_of_the_inlined_forms_answer_as_jsonschema() -> None:
    """The forms written as one test (choices between required keys, 'not', whole numbers
    compared as such, a closed set of keys) answer as jsonschema on every value tried."""
    values = [*SCALARS, 2, 3, 2.5, "ab", "abcd", "x\n", "Ab", 2**70, 2**71, -4, {"a": 1}, {"b": 1}, {"a": 1, "b": 1}, {"a": True}, {"a": 1.0}, {"c": 1},
              {"a": None, "b": 1.0}, {"b": True}]
    for schema in SMALL:
        check = compile_check(schema)
        assert check is not None, schema
        validator = shape._strict_validator()(schema)
        for value in values:
            assert check(value) == (not list(validator.iter_errors(value))), f"{schema} {value!r}"


def test_a_schema_with_a_keyword_it_does_not_know_is_left_to_jsonschema() -> None:
    assert compile_check({"type": "object", "patternProperties": {"^x": {"type": "string"}}}) is None
    assert compile_check({"type": "string", "format": "email"}) is None
    assert compile_check({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}}) is None
    assert Path(__file__).exists()


def test_a_file_that_fits_does_not_import_jsonschema() -> None:
    """Only a file that does not fit needs jsonschema (to name its problem); a command that takes
    in good files does not pay for importing it."""
    import subprocess
    import sys

    code = ("import sys\nfrom pbem.core import shape\n"
            "doc = {'pbem': 1, 'campaign': 'c', 'player': 'p', 'phase': 't', 'seq': 1, 'orders': {'AU': {}}}\n"
            "assert shape.problem('', 'envelope', doc) is None\n"
            "assert 'jsonschema' not in sys.modules, 'imported for a file that fits'\n"
            "assert shape.problem('', 'envelope', {'pbem': 2}) is not None and 'jsonschema' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
