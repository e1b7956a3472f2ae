"""The dice section of a public report: every roll listed there is recomputed from the seed the
report prints, with nothing but :class:`pbem.common.fair.Rng` (R1.7, R8.1: every draw of the
public stream is logged and checkable)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbem.cli import main
from pbem.common.fair import H, Rng

# A draw among ``1 << 64`` outcomes never rejects, so it consumes exactly one 8-byte number:
# the stream position a pick among candidates the report does not list (a chit, a unit) used.
_ONE_NUMBER = 1 << 64


@pytest.fixture(scope="module")
def ror_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dice") / "d"
    res = CliRunner().invoke(main, ["demo", str(root), "--game", "ror", "-q"])
    assert res.exit_code == 0, res.output
    return root / "campaign"


def _section(text: str) -> tuple[str, list[tuple[str, str]], str]:
    """The seed, the listed rolls and the check command of a public.txt's dice section."""
    part = text.split("The dice of this phase\n", 1)[1].split("Commitments and reveals", 1)[0]
    rolls = re.findall(r"^\s*\d+\. (.+): (\S+)$", part, flags=re.M)
    seed = re.search(r"^Seed of the public stream: ([0-9a-f]{64})$", part, flags=re.M)
    command = re.search(r"^  (printf .+)$", part, flags=re.M)
    assert seed and command, part
    return seed.group(1), rolls, command.group(1)


def _phase_reports(camp: Path) -> list[tuple[dict, str]]:
    out = []
    for rec_path in sorted((camp / "archive").glob("*.json")):
        rec = json.loads(rec_path.read_text())
        if rec.get("kind") != "phase":
            continue
        folder = camp / "reports" / f"{rec['phase_number']:04d}-{rec['phase'].replace('/', '_')}"
        out.append((rec, (folder / "public.txt").read_text()))
    return out


def test_every_listed_die_is_recomputed_from_the_printed_seed(ror_demo: Path) -> None:
    checked = 0
    for rec, text in _phase_reports(ror_demo):
        events = json.loads((ror_demo / "states" / f"{rec['index']:06d}.events.json").read_text())
        events = events if isinstance(events, list) else events["events"]
        dice = [e for e in events if e["type"] == "die"]
        if not dice:
            assert "The dice of this phase" not in text
            continue
        seed, rolls, command = _section(text)
        # the listed rolls are the die events, in order
        assert rolls == [(str(e["purpose"]), str(e["value"])) for e in dice]
        assert len(rolls) == rec["public_draws"]
        assert command == f"printf '{seed}0000000000000000' | xxd -r -p | sha256sum"
        rng = Rng(bytes.fromhex(seed))
        for (purpose, value), ev in zip(rolls, dice, strict=True):
            # a plain die draws among the ints 1..6 (Dice.d6); a pick among chits or units
            # draws among strings
            if not isinstance(ev["value"], int):
                rng.below(_ONE_NUMBER)
                continue
            assert rng.die(6) == int(value), (rec["phase"], purpose)
            checked += 1
        # block 0, as the printed command computes it, opens the stream
        first = int.from_bytes(H(bytes.fromhex(seed) + bytes(8))[:8], "big")
        if isinstance(dice[0]["value"], int):
            assert first % 6 + 1 == dice[0]["value"]
    assert checked >= 5, "the ror demo should roll some plain dice"


def test_a_wrong_seed_does_not_give_the_listed_dice(ror_demo: Path) -> None:
    """The check can fail: the seed of another phase does not reproduce these rolls."""
    reports = [(rec, text) for rec, text in _phase_reports(ror_demo) if "The dice of this phase" in text]
    assert reports
    seed, rolls, _ = _section(reports[0][1])
    wrong = Rng(H(bytes.fromhex(seed)))
    plain = [int(v) for p, v in rolls if v in {"1", "2", "3", "4", "5", "6"} and " chit" not in p]
    assert [wrong.die(6) for _ in plain] != plain


_OWN_TEMPLATES = ("bribes", "lay_down", "veterans_desert", "maintenance", "state_debits", "chit",
                  "family_card", "war_activated", "no_attack", "pending_win", "rebel_condition")


def test_ror_events_are_told_in_sentences_not_key_value_lines(ror_demo: Path) -> None:
    """Events with their own template never fall back to the generic ``type: key value`` line."""
    seen = set()
    for rec, text in _phase_reports(ror_demo):
        events = json.loads((ror_demo / "states" / f"{rec['index']:06d}.events.json").read_text())
        events = events if isinstance(events, list) else events["events"]
        seen |= {e["type"] for e in events} & set(_OWN_TEMPLATES)
        for kind in _OWN_TEMPLATES:
            assert not re.search(rf"^\s*\d+\. {kind}: ", text, flags=re.M), (rec["phase"], kind)
    assert len(seen) >= 8, seen


# One event of each kind the demo may not reach, with the fields the engine emits
# (pbem/games/ror: civil_war, combat, maintenance, turn, victory).
_SAMPLES = [
    ({"type": "master_of_horse", "senator": "4", "joins": True}, "Julius (4)"),
    ({"type": "master_of_horse", "senator": "4", "joins": False}, "Julius (4)"),
    ({"type": "consul_for_life", "senator": "4", "how": "elected"}, "Julius (4)"),
    ({"type": "consul_for_life", "senator": "4", "how": "appointed"}, "Julius (4)"),
    ({"type": "release", "legion": "12", "accepted": True, "hrao_faction": "B"}, "12"),
    ({"type": "release", "legion": "13", "accepted": False, "hrao_faction": "B", "reason": "declined"}, "13"),
    ({"type": "desert", "legion": "7", "to": "army:A2", "owner": "4"}, "A2"),
    ({"type": "desert", "legion": "8", "to": "active_forces", "owner": "4"}, "Julius (4)"),
    ({"type": "army_returns", "army": "A3", "legions": ["2", "5"], "reason": "R9.8 no commander"}, "2, 5"),
    ({"type": "popularity", "senator": "4", "before": 2, "after": 5, "reason": "R6.4"}, "5"),
    ({"type": "bankruptcy"}, ""),
    ({"type": "attack_skipped", "war": "W9", "reason": "no army"}, "W9"),
    ({"type": "fleet_eliminated", "fleet": "F3", "reason": "R5"}, "F3"),
    ({"type": "chit", "chit": "4", "purpose": "R9.2 mortality", "senator": "4", "kills": True}, "Julius (4)"),
    ({"type": "chit", "chit": "draw2", "purpose": "R9.2 mortality", "senator": None}, "R9.2"),
    ({"type": "family_card", "family": "4", "to": "faction:C", "rule": "R9.3"}, "C"),
    ({"type": "maintenance", "faction": "A", "bill": 4, "paid": 2, "kept": ["6"], "released": ["9"],
      "paid_by": {}}, "9"),
    ({"type": "script", "effect": "war", "args": {"id": "W7"}}, "W7"),
    ({"type": "script", "effect": "war", "args": {"id": "W7", "status": "active", "land": 6}}, "land = 6"),
    ({"type": "script", "effect": "army", "args": {"commander": "4", "legions": [17, 18], "fleets": ["F7"],
                                                   "target": "W3"}}, "17, 18"),
    ({"type": "script", "effect": "land_victory", "args": {"commander": "4"}}, "Julius (4)"),
    ({"type": "script", "effect": "drought", "args": {"count": 2}}, "2"),
    ({"type": "script", "effect": "law", "args": {"in_play": False, "name": "manilian_law"}}, "manilian_law"),
    ({"type": "victory_gain", "senator": "4", "influence": 3}, "3"),
    ({"type": "tie_roll", "current": "4", "challenger": "5", "totals": [7, 9]}, "9"),
    ({"type": "rolled", "commander": "4", "legions": ["3", "6"]}, "3, 6"),
    ({"type": "reinforce", "proconsul": "4", "legions": ["11"]}, "11"),
    ({"type": "people_revolt"}, ""),
    ({"type": "mob"}, ""),
    ({"type": "manilian", "commander": "4", "war": "W2"}, "W2"),
    ({"type": "four_wars", "count": 4}, "4"),
    ({"type": "era_ends_revealed"}, ""),
    ({"type": "era", "era": "late"}, ""),
    ({"type": "consul_for_life_lost", "senator": "4", "reason": "R7.2 appointment"}, "Julius (4)"),
    ({"type": "discard", "faction": "B", "card": "C17", "how": "default"}, "C17"),
    ({"type": "desert_lapsed", "legion": "7", "faction": "A"}, "7"),
    ({"type": "card_drawn", "faction": "A", "card": "C3"}, "C3"),
    ({"type": "trade", "factions": ["A", "B"], "count": 2, "kind": "gift"}, "B"),
    ({"type": "trade", "factions": ["A", "C"], "count": 3, "kind": "trade"}, "C"),
    ({"type": "trade_cards", "giver": "A", "receiver": "C", "cards": ["C1"], "received": ["C9"]}, "C9"),
    ({"type": "endgame", "primary_rebel": "4", "faction": "A", "active_wars": 2}, "Julius (4)"),
    ({"type": "endgame_battle", "war": "W5", "naval": False, "dice": [3, 4, 5], "rebel_strength": 9,
      "war_strength": 6, "total": 15, "result": "victory"}, "3 4 5"),
    ({"type": "era_ends", "totals": {"A": 20, "B": 29}, "decided_by": "influence"}, "B 29"),
    ({"type": "pending_win", "condition": 3, "faction": "B", "senator": "4", "turn": 6, "phase": "senate"},
     "Julius (4)"),
    ({"type": "secret_draw", "purpose": "R2.11 discard A", "value": "C4"}, "C4"),
    ({"type": "secret_draw", "purpose": "R2.11 discard A", "value": "C4", "candidates": ["C1", "C4"]}, "C1, C4"),
    ({"type": "loyalty_auto", "commander": "4", "legions": ["1", "7"]}, "1, 7"),
    ({"type": "script_void", "effect": "army", "senator": "4", "why": "cannot_take_army"}, "Julius (4)"),
    ({"type": "script_void", "effect": "war", "senator": None, "why": "unknown_effect"}, "war"),
    ({"type": "die", "purpose": "R6.12 rebel veteran", "value": "9", "candidates": ["4", "9", "11"]}, "4, 9, 11"),
    ({"type": "die", "purpose": "R6.7 chit", "value": "8",
      "cup": {"draw2": 2, "blank": 4, "out": ["3", "12"], "size": 34}}, "3, 12"),
    ({"type": "battle", "commander": "4", "primary_rebel": "5", "dice": [1, 2, 3], "senate_mil": 4, "rebel_mil": 5,
      "rolled_mil": ["4"], "senate_strength": 9, "rebel_strength": 8, "omens": 0, "total": 7, "result": "defeat",
      "crt_losses": 1, "senate_to_lose": 1, "rebel_to_lose": 0}, "Julius (4)"),
    ({"type": "endgame_battle", "war": "W4", "naval": True, "dice": [6, 5, 1], "natural": 12, "rebel_mil": 4,
      "rolled_mil": [], "rebel_strength": 10, "war_strength": 4, "omens": 0, "total": 18, "result": "standoff",
      "disaster": [16], "standoff": [12], "cancelled": False, "crt_losses": None}, "W4"),
    ({"type": "no_attack", "primary_rebel": "4", "dispatcher": "B", "armies": []}, "B"),
    ({"type": "no_attack", "primary_rebel": "5", "dispatcher": "B",
      "armies": [{"army": "4", "commander": "4", "why": "no_legion"}]}, "Julius (4)"),
    ({"type": "game_end", "outcome": "all_lose", "condition": "L2", "faction": None, "senator": None}, "L2"),
    ({"type": "game_end", "outcome": "win", "condition": 1, "faction": "A", "senator": "4"}, "Julius (4)"),
    ({"type": "four_wars", "count": 4, "wars": ["W1", "W2", "W3", "civil_war"]}, "W3"),
    ({"type": "void", "power": "B", "order": "orders.B.plays[0]", "reason": "29A cannot be played: 29A is not in your hand",
      "why": {"code": "cannot_play", "args": {"card": "29A", "why": {"code": "not_in_hand", "args": {"card": "29A"}}}}},
     "29A"),
    ({"type": "void", "power": "B", "order": "orders.B.dispatch[0]", "reason": "faction A does not consent to sending 4",
      "why": {"code": "no_consent", "args": {"faction": "A", "senator": "4"}}}, "Julius (4)"),
]


@pytest.mark.parametrize("lang", ["en", "zh-TW"])
@pytest.mark.parametrize("ext", ["txt", "html"])
def test_every_ror_event_template_renders_its_fields(lang: str, ext: str) -> None:
    from pbem.render.i18n import environment

    env = environment(lang)
    tpl_source = '{% import "ror/names.' + ext + '" as n with context %}{% include "ror/events/" ~ e.type ~ ".' + ext + '" %}'
    tpl = env.from_string(tpl_source)
    english = environment("en").from_string(tpl_source)
    for ev, want in _SAMPLES:
        out = tpl.render(e=ev, view={"senators": {"4": {"name": "Julius"}}})
        if lang == "zh-TW":  # lists in Chinese punctuation: 「2、5」
            want = want.replace(", ", "、")
        assert want in out, (ev, out)
        assert "None" not in out and "Undefined" not in out and out.strip(), (ev, out)
        if lang != "en":  # every sentence is translated
            assert out != english.render(e=ev, view={"senators": {"4": {"name": "Julius"}}}), (ev, out)
