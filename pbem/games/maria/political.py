"""The political deck of Maria as data (M9.19, M9.20): ``seeds/maria/political.yaml`` (or a deck
file a game master names), loaded and checked once; every problem is reported in one
:class:`~pbem.errors.DataError`."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from pbem.common.safeyaml import load_yaml_file
from pbem.data import seeds_dir
from pbem.errors import DataError

POWERS = ("FR", "BA", "PR", "SX", "AU", "PA")
MAJORS = ("AU", "FR", "PR", "PA")
TRACKS = ("saxony", "russia", "italy")
TOWARD = {
    "saxony": ("prussia", "austria", "taker_choice"),
    "russia": ("down", "up", "taker_choice"),
    "italy": ("france", "austria", "taker_choice"),
}
SIDES = ("habsburg", "coalition")
HOMES = ("AU", "FR", "BA", "SX", "PR", "PA")
TERRITORIES = ("silesia", "poland", "neutral")
MAP_IDS = ("bohemia", "flanders")

# effect name -> (rule id, argument kinds)
EFFECTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "move_track": ("E1", ("track", "int+", "toward")),
    "draw": ("E2", ("power", "int+")),
    "draw_modifier": ("E3", ("power", "int", "int+")),
    "discard": ("E4", ("power", "int+", "by_discard")),
    "add_troops": ("E5", ("power", "int+", "where")),
    "lose_troops": ("E6", ("power", "int+")),
    "block_generals": ("E7", ("power", "int+", "int+", "by_block")),
    "block_trains": ("E8", ("power", "int+", "int+", "by_block")),
    "withdraw_general": ("E9", ("power", "int+", "by_block")),
    "place_marker": ("E10", ("marker_power", "box")),
    "return_markers": ("E11", ("major", "int+", "region")),
    "retire_markers": ("E12", ("major", "region")),
    "hussars": ("E13", ("int", "int+")),
    "restore_train": ("E14", ("power",)),
    "trigger_election": ("E15", ()),
    "offer_peace": ("E16", ()),
    "end_neutrality": ("E17", ("power",)),
}
CONDITIONS: dict[str, tuple[str, ...]] = {
    "track_in": ("track", "int", "int"),
    "controls": ("power_or_side", "region"),
    "no_general_in": ("power", "region"),
    "peace_made": ("bool",),
    "neutral": ("power",),
}


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def check_arg(kind: str, value: Any, regions: frozenset[str], track: str | None) -> str | None:
    """Why ``value`` is not an argument of ``kind``, or None."""
    if kind == "track":
        return None if value in TRACKS else f"unknown track {value!r} (saxony, russia, italy)"
    if kind == "int":
        return None if _int(value) else f"{value!r} is not a whole number"
    if kind == "int+":
        return None if _int(value) and value >= 1 else f"{value!r} is not a whole number >= 1"
    if kind == "bool":
        return None if isinstance(value, bool) else f"{value!r} is not true or false"
    if kind == "toward":
        allowed: tuple[str, ...] = TOWARD.get(track or "", ())
        return None if value in allowed else \
            f"direction {value!r} does not fit the {track} track ({', '.join(allowed)})"
    if kind in ("power", "major"):
        allowed = (MAJORS if kind == "major" else POWERS) + ("taker",)
        return None if value in allowed else f"unknown power {value!r}"
    if kind == "power_or_side":
        return None if value in POWERS + SIDES + ("taker",) else \
            f"{value!r} is neither a power nor a side"
    if kind == "marker_power":
        if isinstance(value, str) and value.startswith("controller_of:"):
            tag = value.split(":", 1)[1]
            return None if tag in regions else f"unknown city tag {tag!r}"
        return None if value in MAJORS + ("taker",) else f"unknown power {value!r}"
    if kind == "box":
        return None if isinstance(value, str) and value.replace("_", "").isalnum() else \
            f"{value!r} is not a box name"
    if kind == "region":
        return None if value in regions else f"unknown region or city tag {value!r}"
    if kind == "by_discard":
        return None if value in ("owner", "random") else "'by' must be owner or random"
    if kind == "by_block":
        return None if value in ("owner", "taker") else "'by' must be owner or taker"
    if kind == "where":
        return None if value in ("any", "home", "in_supply") else \
            f"'where' must be any, home or in_supply, not {value!r}"
    return f"unknown argument kind {kind}"


def parse_deck(data: Any, source: str, regions: frozenset[str]) -> dict[str, Any]:
    """Check a deck document; ``regions`` are the region names and city tags the map knows."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise DataError(f"{source}: a political deck must be a mapping")
    groups = data.get("groups")
    if not isinstance(groups, dict) or not groups:
        problems.append("needs 'groups:' (group -> {turns: [first, last]})")
        groups = {}
    for g, spec in groups.items():
        turns = spec.get("turns") if isinstance(spec, dict) else None
        if not (isinstance(turns, list) and len(turns) == 2 and all(_int(t) for t in turns)
                and turns[0] <= turns[1]):
            problems.append(f"group {g}: 'turns' must be [first, last]")
    cards = data.get("cards")
    if not isinstance(cards, list) or not cards:
        problems.append("needs a list 'cards:'")
        cards = []
    seen: set[str] = set()
    for i, card in enumerate(cards):
        where = f"cards[{i}]"
        if not isinstance(card, dict):
            problems.append(f"{where}: must be a mapping")
            continue
        cid = card.get("id")
        if not isinstance(cid, str) or not cid:
            problems.append(f"{where}: needs an 'id'")
        elif cid in seen:
            problems.append(f"{where}: duplicate card id {cid}")
        else:
            seen.add(cid)
            where = cid
        if card.get("group") not in groups:
            problems.append(f"{where}: unknown group {card.get('group')!r}")
        if not isinstance(card.get("name"), str):
            problems.append(f"{where}: needs a 'name'")
        if card.get("name_zh") is not None and not isinstance(card.get("name_zh"), str):
            problems.append(f"{where}: 'name_zh' must be text")
        effects = card.get("effects")
        if not isinstance(effects, list):
            problems.append(f"{where}: 'effects' must be a list")
            continue
        for j, eff in enumerate(effects):
            problems += [f"{where} effect {j + 1}: {p}" for p in _check_effect(eff, regions)]
    if problems:
        raise DataError(f"{source}: broken political deck", problems)
    return {"deck": str(data.get("deck", source)),
            "groups": {str(g): [int(t) for t in s["turns"]] for g, s in groups.items()},
            "cards": {c["id"]: {"group": c["group"], "name": c["name"],
                                "effects": [_norm(e) for e in c["effects"]]} for c in cards},
            # reports' Chinese titles, by English title: not part of a game's state
            "titles_zh": {c["name"]: c["name_zh"] for c in cards if c.get("name_zh")}}


def _norm(eff: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"effect": eff["effect"], "args": list(eff.get("args") or [])}
    if eff.get("optional"):
        out["optional"] = True
    if eff.get("if") is not None:
        out["if"] = eff["if"]
    return out


def _check_effect(eff: Any, regions: frozenset[str]) -> list[str]:
    if not isinstance(eff, dict):
        return ["an effect must be a mapping {effect, args, optional, if}"]
    out: list[str] = []
    extra = set(eff) - {"effect", "args", "optional", "if"}
    if extra:
        out.append(f"unknown field(s) {', '.join(sorted(extra))}")
    name = eff.get("effect")
    if name not in EFFECTS:
        return out + [f"unknown effect {name!r}"]
    kinds = EFFECTS[name][1]
    args = eff.get("args") or []
    if not isinstance(args, list) or len(args) != len(kinds):
        return out + [f"{name} takes {len(kinds)} argument(s) ({', '.join(kinds)}), "
                      f"got {args!r}"]
    track = args[0] if name == "move_track" else None
    for kind, value in zip(kinds, args, strict=True):
        p = check_arg(kind, value, regions, track)
        if p:
            out.append(f"{name}: {p}")
    if "optional" in eff and not isinstance(eff["optional"], bool):
        out.append("'optional' must be true or false")
    cond = eff.get("if")
    if cond is not None:
        out += [f"if: {p}" for p in check_condition(cond, regions)]
    return out


def check_condition(cond: Any, regions: frozenset[str]) -> list[str]:
    """Problems of one condition ``{name: [args]}``."""
    if not isinstance(cond, dict) or len(cond) != 1:
        return ["a condition is one mapping {name: [args]}"]
    (name, args), = cond.items()
    if name not in CONDITIONS:
        return [f"unknown condition {name!r}"]
    kinds = CONDITIONS[name]
    if not isinstance(args, list) or len(args) != len(kinds):
        return [f"{name} takes {len(kinds)} argument(s), got {args!r}"]
    track = args[0] if name == "track_in" else None
    return [p for k, v in zip(kinds, args, strict=True)
            if (p := check_arg(k, v, regions, track))]


def board_regions(board: Any) -> frozenset[str]:
    """Every region name a card may use on ``board`` (M9.19)."""
    tags = {t for c in board.cities.values() for t in c.tags}
    return frozenset(set(HOMES) | set(TERRITORIES) | set(MAP_IDS) | tags)


@cache
def _load(path: str, regions: frozenset[str]) -> dict[str, Any]:
    return parse_deck(load_yaml_file(Path(path)), path, regions)


def load_deck(board: Any, name: str | None = None) -> dict[str, Any]:
    """The political deck ``seeds/maria/<name>.yaml`` (default ``political``), checked against
    ``board``'s regions and tags."""
    base = seeds_dir() / "maria"
    fname = name or "political"
    if "/" in fname or fname.startswith("."):
        raise DataError(f"a political deck is named by its file in seeds/maria/, not {fname!r}")
    path = base / f"{fname}.yaml"
    if not path.is_file():
        raise DataError(f"no political deck '{fname}' in {base}")
    return _load(str(path), board_regions(board))
